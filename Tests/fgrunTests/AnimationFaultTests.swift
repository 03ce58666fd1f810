// AnimationFaultTests.swift — an animated WebP whose frame 3 libwebp refuses to encode, written
// by the fgrun binary: exit 65 with a sentence naming the frame, the old file at the output path
// untouched, nothing else left in its folder.
//
// libwebp is made to fail from outside fgrun: a small library preloaded into the child
// (LD_PRELOAD) takes the place of libwebp's `WebPEncode` and, for pictures of one size only,
// returns what libwebp returns when it runs out of memory; every other picture goes to libwebp.
// The test's animation changes a 6×6 square in frame 3 alone, so that frame's stored rectangle is
// the only 6×6 picture the writer encodes, while frames 1, 2 and 4–6 encode on the worker pool
// around it.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

extension FGRunTests {
  func testAnAnimatedWebPFrameLibwebpRefusesLeavesTheOldFileAndNoLitter() throws {
    // The sanitizers' runtimes must come first in the child; a preloaded library would precede them.
    if ProcessInfo.processInfo.environment["FILTERGRAPH_SANITIZER"] != nil { throw XCTSkip("not under a sanitizer") }
    let binary = try XCTUnwrap(Self.binary?.path)
    let preload = try refusingWebPEncode(width: 6, height: 6)
    try sixFrameGIF().write(to: file("in.gif"))
    let outFolder = file("out")
    try FileManager.default.createDirectory(at: outFolder, withIntermediateDirectories: true)
    try Data("old".utf8).write(to: outFolder.appendingPathComponent("anim.webp"))

    let refused = try ChildProcess.run(
      "/bin/sh", ["-c", "LD_PRELOAD=\"$0\" exec \"$1\" -e orient in.gif out/anim.webp", preload.path, binary], in: folder)
    XCTAssertEqual(refused.status, 65, refused.stderr)
    XCTAssertEqual(
      refused.stderr,
      "fgrun: error: Frame 3 of the animated WebP cannot be encoded: libwebp ran out of memory encoding the image (libwebp error 1).\n")
    XCTAssertEqual(try Data(contentsOf: outFolder.appendingPathComponent("anim.webp")), Data("old".utf8))
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outFolder.path), ["anim.webp"])
  }

  /// A 16×16 GIF of six frames: gray, then a 4×4 red square at the corner, a 6×6 blue square at
  /// (4, 4) (frame 3), a 2×2 green one at (12, 12), and two more 4×4 squares (the changed
  /// rectangles, all at even coordinates: 16×16, 4×4, 6×6, 2×2, 4×4, 4×4).
  func sixFrameGIF() throws -> Data {
    let size = Size(width: 16, height: 16)
    let writer = try GIFAnimationWriter(size: size, hasAlpha: false, loopCount: 0, options: GIFEncodeOptions())
    var frame = PixelBuffer(width: 16, height: 16, format: .rgb8)
    let squares: [(x: Int, y: Int, side: Int, color: [UInt8])] = [
      (0, 0, 16, [128, 128, 128]), (0, 0, 4, [255, 0, 0]), (4, 4, 6, [0, 0, 255]), (12, 12, 2, [0, 255, 0]),
      (0, 12, 4, [255, 255, 0]), (12, 0, 4, [0, 255, 255]),
    ]
    for square in squares {
      frame.withUnsafeMutableBaseAddress { base, stride in
        for y in square.y..<square.y + square.side {
          for x in square.x..<square.x + square.side {
            for c in 0..<3 { base.storeBytes(of: square.color[c], toByteOffset: y * stride + x * 3 + c, as: UInt8.self) }
          }
        }
      }
      try writer.add(frame, delay: 100)
    }
    return try XCTUnwrap(writer.finish())
  }

  /// A shared library, built with the C compiler beside swiftc, whose `WebPEncode` fails pictures
  /// of `width`×`height` as libwebp does out of memory and passes every other to libwebp.
  func refusingWebPEncode(width: Int, height: Int) throws -> URL {
    let source = """
      #define _GNU_SOURCE
      #include <dlfcn.h>
      #include <webp/encode.h>

      int WebPEncode(const WebPConfig *config, WebPPicture *picture) {
        if (picture->width == \(width) && picture->height == \(height)) {
          picture->error_code = VP8_ENC_ERROR_OUT_OF_MEMORY;
          return 0;
        }
        int (*encode)(const WebPConfig *, WebPPicture *) = (int (*)(const WebPConfig *, WebPPicture *))dlsym(RTLD_NEXT, "WebPEncode");
        return encode(config, picture);
      }
      """
    let tools = file("preload")
    try FileManager.default.createDirectory(at: tools, withIntermediateDirectories: true)
    try Data(source.utf8).write(to: tools.appendingPathComponent("refuse.c"))
    let library = tools.appendingPathComponent("refuse.so")
    let build = try ChildProcess.run(
      "/bin/sh", ["-c", "exec clang -shared -fPIC -O1 -o refuse.so refuse.c -ldl"], in: tools)
    guard build.status == 0 else {
      XCTFail(build.stderr)
      throw CocoaError(.executableLoad)
    }
    return library
  }
}
