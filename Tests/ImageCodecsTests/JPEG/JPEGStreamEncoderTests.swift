// JPEGStreamEncoderTests.swift — the JPEG encoder's two destinations: a JPEG streamed to a file in
// chunks is byte for byte the in-memory encode, and a write that fails part-way (a file-size
// limit, a full disk) is an `.io` error that leaves no output file behind.
import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import ImageCodecs

#if canImport(Glibc)
  import Glibc
#endif

final class JPEGStreamEncoderTests: XCTestCase {
  var folder: URL!

  override func setUpWithError() throws {
    folder = FileManager.default.temporaryDirectory.appendingPathComponent("jpegstream-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: folder)
  }

  /// Random pixels compress badly: 1024×640 RGB at quality 95 is about 650 KB, three 256 KiB chunks.
  static let noisy = PixelBuffer.random(width: 1024, height: 640, format: .rgb8, seed: 11)

  /// Quality 95 without optimised Huffman tables, so libjpeg emits bytes while rows arrive (with
  /// optimised tables everything is written by `finish()`).
  static let streaming = JPEGEncodeOptions(quality: 95, optimizesHuffmanCoding: false)

  /// Encodes `image` strip by strip, streaming to `handle`.
  private func stream(
    _ image: PixelBuffer, options: JPEGEncodeOptions, icc: Data? = nil, strip: Int, to handle: OutputHandle
  ) throws {
    let encoder = try JPEGStreamEncoder(
      size: image.size, layout: image.format.layout, options: options, iccProfile: icc, to: .handle(handle))
    var y = 0
    while y < image.height {
      let rows = min(strip, image.height - y)
      try encoder.write(rows: image.cropped(to: Rect(x: 0, y: y, width: image.width, height: rows)))
      y += rows
    }
    let returned = try encoder.finish()
    XCTAssertNil(returned, "a streamed JPEG returns no bytes")
  }

  func testStreamedFileEqualsInMemoryEncodeByteForByte() throws {
    let gray = PixelBuffer.random(width: 301, height: 203, format: .gray8, seed: 3)
    let icc = Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    let cases: [(String, PixelBuffer, JPEGEncodeOptions, Data?)] = [
      ("noisy q95", Self.noisy, Self.streaming, nil),
      ("noisy progressive 4:4:4 + ICC", Self.noisy,
       JPEGEncodeOptions(quality: 90, chromaSubsampling: .s444, isProgressive: true), icc),
      ("noisy optimised", Self.noisy, JPEGEncodeOptions(quality: 80, optimizesHuffmanCoding: true), nil),
      ("gray", gray, JPEGEncodeOptions(quality: 85), nil),
    ]
    for (name, image, options, profile) in cases {
      let encoder = try JPEGStreamEncoder(
        size: image.size, layout: image.format.layout, options: options, iccProfile: profile)
      try encoder.write(rows: image)
      let expected = try XCTUnwrap(try encoder.finish(), name)
      let url = folder.appendingPathComponent("\(name).jpg")
      try OutputFile.write(to: url) { handle in
        try stream(image, options: options, icc: profile, strip: 16, to: handle)
      }
      let written = try Data(contentsOf: url)
      XCTAssertEqual(written.count, expected.count, name)
      XCTAssertTrue(written == expected, "\(name): the streamed file differs from the in-memory encode")
      if name == "noisy q95" {
        XCTAssertGreaterThan(expected.count, 2 * JPEGStreamEncoder.chunkSize, "the case spans several chunks")
      }
    }
  }

  /// The file-size limit (RLIMIT_FSIZE) stops the file part-way: the first chunk is written, a
  /// later one fails with EFBIG inside libjpeg's destination manager. That must come back as
  /// `.io` through the shim's error path, and the temporary file must be gone while the previous
  /// output stays as it was.
  func testWriteFailureMidStreamIsAnIOErrorAndLeavesNoFile() throws {
    let target = folder.appendingPathComponent("out.jpg")
    let before = Data("the previous, complete output".utf8)
    try before.write(to: target)
    let expected = try JPEGEncoder.encode(Self.noisy, options: Self.streaming)
    let limit = rlim_t(JPEGStreamEncoder.chunkSize * 3 / 2)
    XCTAssertGreaterThan(expected.count, Int(limit) + JPEGStreamEncoder.chunkSize, "the limit falls mid-stream")

    var saved = rlimit()
    XCTAssertEqual(getrlimit(Int32(RLIMIT_FSIZE.rawValue), &saved), 0)
    let previousHandler = signal(SIGXFSZ, SIG_IGN)  // else the kernel kills the process
    var lowered = saved
    lowered.rlim_cur = limit
    XCTAssertEqual(setrlimit(Int32(RLIMIT_FSIZE.rawValue), &lowered), 0)
    var thrown: Error?
    do {
      try OutputFile.write(to: target) { handle in
        try stream(Self.noisy, options: Self.streaming, strip: 8, to: handle)
      }
    } catch {
      thrown = error
    }
    XCTAssertEqual(setrlimit(Int32(RLIMIT_FSIZE.rawValue), &saved), 0)
    signal(SIGXFSZ, previousHandler)

    let error = try XCTUnwrap(thrown as? CodecError, "\(String(describing: thrown))")
    XCTAssertEqual(error.kind, .io)
    XCTAssertTrue(error.message.contains("File too large"), error.message)
    XCTAssertTrue(error.message.contains(target.path), error.message)
    XCTAssertEqual(try Data(contentsOf: target), before, "the previous output is untouched")
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["out.jpg"], "no temporary file")
  }

  /// A full disk (/dev/full answers every write with ENOSPC): `.io` that says so, raised by the
  /// row write that filled the first chunk; the encoder then refuses further use with the same error.
  func testFullDiskIsAnIOErrorAndTheEncoderStaysFailed() throws {
    guard FileManager.default.fileExists(atPath: "/dev/full") else { throw XCTSkip("no /dev/full") }
    let fd = open("/dev/full", O_WRONLY)
    XCTAssertGreaterThanOrEqual(fd, 0)
    defer { close(fd) }
    let handle = OutputHandle(fd: fd, path: "/dev/full")
    let encoder = try JPEGStreamEncoder(
      size: Self.noisy.size, layout: .rgb, options: Self.streaming, to: .handle(handle))
    XCTAssertThrowsError(try encoder.write(rows: Self.noisy)) { error in
      guard let error = error as? CodecError else { return XCTFail("\(type(of: error)): \(error)") }
      XCTAssertEqual(error.kind, .io)
      XCTAssertTrue(error.message.contains("No space left on device"), error.message)
    }
    XCTAssertThrowsError(try encoder.finish()) { XCTAssertEqual(($0 as? CodecError)?.kind, .io) }
  }

  /// The same through `OutputFile` at the path /dev/full (written in place, as a device).
  func testFullDiskThroughOutputFile() throws {
    guard FileManager.default.fileExists(atPath: "/dev/full") else { throw XCTSkip("no /dev/full") }
    XCTAssertThrowsError(
      try OutputFile.write(to: URL(fileURLWithPath: "/dev/full")) { handle in
        try stream(Self.noisy, options: Self.streaming, strip: 64, to: handle)
      }
    ) { error in
      XCTAssertEqual((error as? CodecError)?.kind, .io, "\(error)")
      XCTAssertTrue("\(error)".contains("No space left on device"), "\(error)")
    }
  }
}
