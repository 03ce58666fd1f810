// ServeCommandTests.swift — `fgrun serve` as a process: configuration from flags and FGRUN_*
// variables printed at start without secrets, and SIGTERM draining a request in flight before
// exiting 0.

import Foundation
import Glibc
import TestSupport
import XCTest

@testable import ImageServer

final class ServeCommandTests: XCTestCase {
  /// The built `fgrun`: $FGRUN, or beside the test bundle.
  static let binary: String? = {
    if let path = ProcessInfo.processInfo.environment["FGRUN"] { return path }
    var folders = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
    for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") { folders.append(bundle.bundleURL.deletingLastPathComponent()) }
    return folders.map { $0.appendingPathComponent("fgrun").path }.first { FileManager.default.isExecutableFile(atPath: $0) }
  }()

  func testSIGTERMDrainsAndHidesSecrets() async throws {
    let binary = try XCTUnwrap(Self.binary, "run `swift build --build-tests` first (or set FGRUN)")
    let folder = try ServedFolder()
    let origin = try await SourceServer.start(image: try Data(contentsOf: folder.url("photo.jpg")))
    let port = freeLoopbackPort()
    let key = "0badc0ffee0badc0ffee", salt = "5a175a175a17"
    setenv("FGRUN_ALLOW_NETWORK", "127.0.0.1/32", 1)
    defer { unsetenv("FGRUN_ALLOW_NETWORK") }
    let child = try ChildProcess(
      binary,
      ["serve", "--bind", "127.0.0.1:\(port)", "--root", folder.root.path, "--key", key, "--salt", salt, "--allow-unsigned",
       "--allow-source", "http://127.0.0.1:\(origin.port)/", "--threads", "1"],
      in: folder.root)
    var reaped = false
    // A failure part-way must not leave the server running.
    defer { if !reaped { child.kill(SIGKILL); _ = try? child.wait() } }
    var ready = 0
    for _ in 0..<600 where ready != 200 {
      ready = (try? await HTTPResult.get("http://127.0.0.1:\(port)/ready", timeout: 2).status) ?? 0
      if ready != 200 { try await Task.sleep(nanoseconds: 50_000_000) }
    }
    XCTAssertEqual(ready, 200, "the server came up")
    async let inFlight = HTTPResult.get("http://127.0.0.1:\(port)/_/w:10/plain/\(origin.url("/gate.jpg"))@png")
    try await origin.gateReached.value
    child.kill(SIGTERM)
    try await Task.sleep(nanoseconds: 300_000_000)
    origin.gate.fulfil(.success(()))
    let response = try? await inFlight
    XCTAssertEqual(response?.status, 200, "the request in flight at SIGTERM completes")
    let ended = try await exits(child, within: 30)
    XCTAssertTrue(ended, "SIGTERM ends the server")
    let outcome = try child.wait()
    reaped = true
    XCTAssertEqual(outcome.status, 0, outcome.stderr)
    XCTAssertTrue(outcome.stderr.contains("signing=1 key/salt pair(s)"), outcome.stderr)
    XCTAssertTrue(outcome.stderr.contains("allow-network=127.0.0.1/32"), "FGRUN_* variables are read: \(outcome.stderr)")
    XCTAssertFalse(outcome.stderr.contains(key) || outcome.stderr.contains(salt), "no secret in the log")
    XCTAssertTrue(outcome.stderr.contains("status=200"), "the access log has the request")
    try await origin.stop()
  }

  /// True when `child` ends within `seconds`; else it is killed (SIGKILL).
  private func exits(_ child: ChildProcess, within seconds: Int) async throws -> Bool {
    for _ in 0..<(seconds * 20) {
      var info = siginfo_t()
      if waitid(P_PID, id_t(child.pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0, info._sifields._sigchld.si_pid == child.pid { return true }
      try await Task.sleep(nanoseconds: 50_000_000)
    }
    child.kill(SIGKILL)
    return false
  }

  func testBadConfigurationIsAClearError() throws {
    let binary = try XCTUnwrap(Self.binary)
    let folder = try ServedFolder()
    let noKey = try ChildProcess.run(binary, ["serve", "--bind", "127.0.0.1:0"], in: folder.root)
    XCTAssertEqual(noKey.status, 64)
    XCTAssertTrue(noKey.stderr.contains("--allow-unsigned"), noKey.stderr)
    let badHex = try ChildProcess.run(binary, ["serve", "--key", "xyz", "--salt", "00"], in: folder.root)
    XCTAssertEqual(badHex.status, 64)
    XCTAssertTrue(badHex.stderr.contains("hex"), badHex.stderr)
    let unpaired = try ChildProcess.run(binary, ["serve", "--key", "00"], in: folder.root)
    XCTAssertNotEqual(unpaired.status, 0)
    XCTAssertTrue(unpaired.stderr.contains("--salt"), unpaired.stderr)
  }
}
