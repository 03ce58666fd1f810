// LocalSourceFaultTests.swift — `fgrun serve` when a system call on a local source fails for want
// of memory or descriptors: the answer is 503 with Retry-After (the file is there; come back),
// not 404 "does not exist". A library preloaded into the server (LD_PRELOAD), built by the test
// with the C compiler beside swiftc, makes `realpath` fail with ENOMEM and `open` with EMFILE
// for file names that say so, and passes every other call on.

import Foundation
import Glibc
import TestSupport
import XCTest

final class LocalSourceFaultTests: XCTestCase {
  /// Three copies of one photo under the root: `enomem.jpg` (realpath fails with ENOMEM),
  /// `emfile.jpg` (open fails with EMFILE) and `photo.jpg`. The first two are 503 with
  /// `Retry-After: 1` and a sentence naming the shortage; the photo is 200; a missing file is
  /// still 404. Not under a sanitizer, whose runtime must load before a preloaded library.
  func testAShortageOfMemoryOrDescriptorsIsServiceUnavailableNotMissing() async throws {
    if ProcessInfo.processInfo.environment["FILTERGRAPH_SANITIZER"] != nil { throw XCTSkip("not under a sanitizer") }
    let binary = try XCTUnwrap(ServeCommandTests.binary, "run `swift build --build-tests` first (or set FGRUN)")
    let folder = try ServedFolder()
    for name in ["enomem.jpg", "emfile.jpg"] {
      try FileManager.default.copyItem(at: folder.url("photo.jpg"), to: folder.url(name))
    }
    let preload = try Self.shortageLibrary(in: folder.outside)
    let port = freeLoopbackPort()
    let child = try ChildProcess(
      "/bin/sh",
      ["-c", "LD_PRELOAD=\"$0\" exec \"$1\" serve --bind 127.0.0.1:\(port) --root \"$2\" --allow-unsigned --threads 1",
       preload.path, binary, folder.root.path],
      in: folder.root)
    defer {
      child.kill(SIGKILL)
      _ = try? child.wait()
    }
    var ready = 0
    for _ in 0..<300 where ready != 200 {
      ready = (try? await HTTPResult.get("http://127.0.0.1:\(port)/ready", timeout: 2).status) ?? 0
      if ready != 200 { try await Task.sleep(nanoseconds: 50_000_000) }
    }
    XCTAssertEqual(ready, 200, "the server came up")
    func get(_ name: String) async throws -> HTTPResult {
      try await HTTPResult.get("http://127.0.0.1:\(port)/_/w:10/plain/local:///\(name)@png", timeout: 30)
    }
    let memory = try await get("enomem.jpg")
    XCTAssertEqual(memory.status, 503, memory.text)
    XCTAssertEqual(memory.headers["retry-after"], "1")
    XCTAssertTrue(memory.text.contains("cannot be read now: the server is short of memory"), memory.text)
    let descriptors = try await get("emfile.jpg")
    XCTAssertEqual(descriptors.status, 503, descriptors.text)
    XCTAssertEqual(descriptors.headers["retry-after"], "1")
    XCTAssertTrue(descriptors.text.contains("cannot be read now: the server is short of resources"), descriptors.text)
    let photo = try await get("photo.jpg")
    XCTAssertEqual(photo.status, 200, photo.text)
    let missing = try await get("nope.jpg")
    XCTAssertEqual(missing.status, 404, missing.text)
  }

  /// The preloaded library: `realpath` of a path containing "enomem" fails with ENOMEM, `open`
  /// and `open64` of a path containing "emfile" fail with EMFILE; every other call goes on to libc.
  static func shortageLibrary(in folder: URL) throws -> URL {
    let source = """
      #define _GNU_SOURCE
      #include <dlfcn.h>
      #include <errno.h>
      #include <fcntl.h>
      #include <stdarg.h>
      #include <stdlib.h>
      #include <string.h>

      char *realpath(const char *path, char *resolved) {
        if (path && strstr(path, "enomem")) { errno = ENOMEM; return NULL; }
        char *(*next)(const char *, char *) = (char *(*)(const char *, char *))dlsym(RTLD_NEXT, "realpath");
        return next(path, resolved);
      }

      static int opened(const char *name, const char *path, int flags, va_list arguments) {
        mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(arguments, int) : 0;
        if (path && strstr(path, "emfile")) { errno = EMFILE; return -1; }
        int (*next)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, name);
        return next(path, flags, mode);
      }

      int open(const char *path, int flags, ...) {
        va_list arguments;
        va_start(arguments, flags);
        int fd = opened("open", path, flags, arguments);
        va_end(arguments);
        return fd;
      }

      int open64(const char *path, int flags, ...) {
        va_list arguments;
        va_start(arguments, flags);
        int fd = opened("open64", path, flags, arguments);
        va_end(arguments);
        return fd;
      }
      """
    try Data(source.utf8).write(to: folder.appendingPathComponent("shortage.c"))
    let build = try ChildProcess.run("/bin/sh", ["-c", "exec clang -shared -fPIC -O1 -o shortage.so shortage.c -ldl"], in: folder)
    guard build.status == 0 else {
      XCTFail(build.stderr)
      throw CocoaError(.executableLoad)
    }
    return folder.appendingPathComponent("shortage.so")
  }
}
