// TIFFEncoderTests.swift — TIFF writing: round trips through our decoder and libvips (an
// independent reader), every compression, strips and tiles, predictors, depths, ICC, failures.

import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import ImageCodecs

final class TIFFEncoderTests: XCTestCase {
  /// A buffer of the fixtures' pattern in `format` (p8, p16 or pf by component).
  static func pattern(_ format: PixelFormat, size: Size = TIFFPattern.size) -> PixelBuffer {
    var buffer = PixelBuffer(width: size.width, height: size.height, format: format)
    let channels = format.channelCount
    buffer.withUnsafeMutableBaseAddress { base, rowBytes in
      for y in 0..<size.height {
        let row = base + y * rowBytes
        for x in 0..<size.width {
          for c in 0..<channels {
            let i = x * channels + c
            switch format.component {
            case .uint8: row.assumingMemoryBound(to: UInt8.self)[i] = UInt8(TIFFPattern.p8(x, y, c, channels: channels))
            case .uint16: row.assumingMemoryBound(to: UInt16.self)[i] = UInt16(TIFFPattern.p16(x, y, c, channels: channels))
            case .float32: row.assumingMemoryBound(to: Float.self)[i] = TIFFPattern.pf(x, y, c)
            }
          }
        }
      }
    }
    return buffer
  }

  /// Encodes `source` through the registry with `options`, in uneven bands.
  static func encode(_ source: PixelBuffer, _ options: FormatOptionValues, icc: Data? = nil, handle: OutputHandle? = nil) throws -> Data? {
    let encoder = try TIFFCodec.makeEncoder(
      EncodeRequest(
        size: source.size, pixelFormat: source.format, colorSpace: .sRGB, metadata: ImageMetadata(iccProfile: icc),
        options: try options.resolved(by: TIFFCodec.encodeOptions), handle: handle, executor: nil))
    var y = 0
    for band in [1, 16, 7, 100] where y < source.height {
      let n = min(band, source.height - y)
      try encoder.write(rows: source.cropped(to: Rect(x: 0, y: y, width: source.width, height: n)))
      y += n
    }
    return try encoder.finish()
  }

  /// Every lossless compression, with and without prediction, in strips and tiles, at 8, 16 bits
  /// and float, gray to RGBA, decodes back to exactly the source.
  func testLosslessRoundTrips() throws {
    let formats = [
      PixelFormat.gray8, PixelFormat(layout: .grayAlpha, component: .uint16), .rgb8, .rgba8, .rgb16, .rgba16,
      PixelFormat(layout: .rgb, component: .float32), PixelFormat(layout: .gray, component: .float32),
    ]
    for format in formats {
      let source = Self.pattern(format)
      for compression in ["none", "lzw", "deflate", "packbits"] {
        for (tile, predictor) in [(0, "auto"), (16, "auto"), (0, "none"), (32, "none")] {
          let label = "\(format) \(compression) tile \(tile) predictor \(predictor)"
          let bytes = try XCTUnwrap(Self.encode(source, ["compression": .choice(compression), "tile": .integer(tile), "predictor": .choice(predictor)]))
          let decoder = try TIFFDecoder(data: bytes)
          XCTAssertEqual(decoder.isTiled, tile > 0, label)
          XCTAssertEqual(decoder.compression, ["none": 1, "lzw": 5, "deflate": 8, "packbits": 32773][compression], label)
          let decoded = try decoder.decodeAll()
          XCTAssertEqual(decoded.format, format, label)
          XCTAssertTrue(decoded.hasSamePixels(as: source), label)
        }
      }
    }
  }

  /// Prediction shrinks a smooth 16-bit image, and the tags say which predictor was used.
  func testPredictorsAreWritten() throws {
    let smooth = PixelBuffer.random(width: 64, height: 64, format: .rgb16, seed: 3)
    var gradient = smooth
    gradient.withUnsafeMutableBaseAddress { base, rowBytes in
      for y in 0..<64 {
        let row = (base + y * rowBytes).assumingMemoryBound(to: UInt16.self)
        for i in 0..<(64 * 3) { row[i] = UInt16((y * 900 + i * 97) % 65536) }
      }
    }
    let with = try XCTUnwrap(Self.encode(gradient, ["compression": "lzw"]))
    let without = try XCTUnwrap(Self.encode(gradient, ["compression": "lzw", "predictor": "none"]))
    XCTAssertLessThan(with.count, without.count / 2)
    XCTAssertEqual(TIFFTags.values(of: 317, in: [UInt8](with)), [2])
    XCTAssertNil(TIFFTags.values(of: 317, in: [UInt8](without)))
    let float = try XCTUnwrap(Self.encode(Self.pattern(PixelFormat(layout: .rgb, component: .float32)), ["compression": "deflate"]))
    XCTAssertEqual(TIFFTags.values(of: 317, in: [UInt8](float)), [3])
    XCTAssertEqual(TIFFTags.values(of: 322, in: [UInt8](try XCTUnwrap(Self.encode(smooth, ["tile": 48])))), [48])
  }

  /// JPEG compression: 8-bit YCbCr for RGB, near the source; 16-bit images are written 8-bit.
  func testJPEGCompression() throws {
    let source = Self.pattern(.rgb8)
    let bytes = try XCTUnwrap(Self.encode(source, ["compression": "jpeg", "quality": 95]))
    let decoder = try TIFFDecoder(data: bytes)
    XCTAssertEqual(decoder.compression, 7)
    XCTAssertEqual(TIFFTags.values(of: 262, in: [UInt8](bytes)), [6], "YCbCr")
    XCTAssertGreaterThan(CodecTest.psnr(CodecTest.samples(try decoder.decodeAll()), CodecTest.samples(source)), 17)
    let small = try XCTUnwrap(Self.encode(source, ["compression": "jpeg", "quality": 20]))
    XCTAssertLessThan(small.count, bytes.count)
    let options = try FormatOptionValues(["compression": "jpeg", "bit-depth": "16"]).resolved(by: TIFFCodec.encodeOptions)
    XCTAssertEqual(TIFFCodec.encodedPixelFormat(layout: .rgba, component: .uint16, options: options), .rgba8)
    let gray = try XCTUnwrap(Self.encode(Self.pattern(PixelFormat(layout: .grayAlpha, component: .uint8)), ["compression": "jpeg", "tile": 16]))
    XCTAssertEqual(try TIFFDecoder(data: gray).outputFormat, PixelFormat(layout: .grayAlpha, component: .uint8))
  }

  /// libvips reads what we write: the same samples (16-bit tiles with LZW, float with the
  /// floating-point predictor, 8-bit RGBA strips with PackBits), and the ICC profile.
  func testLibvipsReadsOurFiles() throws {
    let vips = "/usr/bin/vips"
    guard FileManager.default.isExecutableFile(atPath: vips) else { throw XCTSkip("no vips") }
    let icc = try CodecTest.data("webp/metadata.icc")
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tiff-vips-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let cases: [(PixelFormat, FormatOptionValues)] = [
      (.rgb16, ["compression": "lzw", "tile": 16]),
      (PixelFormat(layout: .rgb, component: .float32), ["compression": "deflate"]),
      (.rgba8, ["compression": "packbits"]),
      (.gray8, ["compression": "none", "tile": 32]),
    ]
    for (index, (format, options)) in cases.enumerated() {
      let source = Self.pattern(format)
      let tiff = folder.appendingPathComponent("\(index).tif"), raw = folder.appendingPathComponent("\(index).raw")
      try OutputFile.write(to: tiff) { handle in _ = try Self.encode(source, options, icc: icc, handle: handle) }
      let outcome = try ChildProcess.run(vips, ["rawsave", tiff.path, raw.path], in: folder)
      XCTAssertEqual(outcome.status, 0, outcome.stderr)
      let samples = try Data(contentsOf: raw)
      let expected = source.withUnsafeBaseAddress { base, rowBytes in
        (0..<source.height).reduce(into: Data()) { data, y in
          data.append(Data(bytes: base + y * rowBytes, count: source.width * format.bytesPerPixel))
        }
      }
      XCTAssertEqual(samples, expected, "\(format) \(options)")
      XCTAssertEqual(try TIFFDecoder(data: Data(contentsOf: tiff)).header.metadata.iccProfile, icc)
      let header = try ChildProcess.run(vips + "header", ["-f", "icc-profile-data", tiff.path], in: folder)
      XCTAssertEqual(Data(base64Encoded: header.text.trimmingCharacters(in: .whitespacesAndNewlines)), icc, "\(format) \(options)")
    }
  }

  /// Bad requests and a full disk are CodecErrors; nothing is half-written silently.
  func testFailures() throws {
    let source = Self.pattern(.rgb8)
    XCTAssertThrowsError(try Self.encode(source, ["tile": 20])) { XCTAssertEqual(($0 as? CodecError)?.kind, .invalidArgument) }
    XCTAssertThrowsError(try TIFFStreamEncoder(size: Size(width: 4, height: 4), format: .rgb16, settings: TIFFEncodeSettings(compression: .jpeg))) {
      XCTAssertEqual(($0 as? CodecError)?.kind, .invalidArgument)
    }
    let encoder = try TIFFStreamEncoder(size: source.size, format: .rgb8)
    try encoder.write(rows: source.cropped(to: Rect(x: 0, y: 0, width: 45, height: 10)))
    XCTAssertThrowsError(try encoder.finish()) { XCTAssertEqual(($0 as? CodecError)?.kind, .invalidArgument) }
    XCTAssertThrowsError(try encoder.write(rows: source)) { XCTAssertEqual(($0 as? CodecError)?.kind, .invalidArgument) }
    guard FileManager.default.fileExists(atPath: "/dev/full") else { return }
    let fd = open("/dev/full", O_WRONLY)
    defer { close(fd) }
    XCTAssertThrowsError(try Self.encode(Self.pattern(.rgb16, size: Size(width: 600, height: 400)), ["compression": "none"], handle: OutputHandle(fd: fd, path: "/dev/full"))) {
      XCTAssertEqual(($0 as? CodecError)?.kind, .io, "\($0)")
    }
  }
}
