// HEIFCodecTests.swift — AVIF and HEIC decoding against heif-convert's decode and the source
// images, 10/12-bit precision, alpha (straight and premultiplied), irot/imir, pages, colour,
// encoding round trips (read back by heif-convert as well), missing encoders and bad input.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class HEIFCodecTests: XCTestCase {
  /// The 16-bit samples of a buffer, row by row.
  private func samples16(_ buffer: PixelBuffer) -> [UInt16] {
    buffer.withUnsafeBaseAddress { base, rowBytes in
      (0..<buffer.height).flatMap { y in
        Array(UnsafeBufferPointer(start: (base + y * rowBytes).assumingMemoryBound(to: UInt16.self), count: buffer.width * buffer.format.channelCount))
      }
    }
  }

  /// The largest difference between corresponding samples.
  private func maxDifference<T: BinaryInteger>(_ a: [T], _ b: [T]) -> Int {
    var worst = 0
    for (x, y) in zip(a, b) { worst = max(worst, abs(Int(x) - Int(y))) }
    return worst
  }

  /// Lossy AVIF (q60) and HEIC (q60): exactly heif-convert's decode (the same libheif and codec
  /// library, an independent caller), and above 30 dB against the source picture.
  func testLossyDecodeEqualsHeifConvert() throws {
    let source = CodecTest.samples(try PNGDecoder.decode(CodecTest.data("pngsuite/PngSuite.png")))
    for name in ["photo.avif", "photo.heic"] {
      let data = try CodecTest.data("heif/\(name)")
      XCTAssertTrue(CodecRegistry.sniff(data) == (name.hasSuffix("avif") ? AVIFCodec.self : HEICCodec.self) as Any.Type?, name)
      let decoded = try CodecTest.decode(data)
      XCTAssertEqual(decoded.format, .rgb8, name)
      let reference = try PNGDecoder.decode(CodecTest.data("heif/\(name).png"))
      CodecTest.assertSame(CodecTest.samples(decoded), CodecTest.samples(reference), name)
      XCTAssertGreaterThan(CodecTest.psnr(CodecTest.samples(decoded), source), 30, name)
    }
  }

  /// Lossless AVIF with alpha (heif-enc -L, identity matrix): the source PNG's RGBA within one
  /// code (libaom's lossless 8-bit RGB path rounds a few samples by one here, as heif-convert
  /// shows too), and the alpha exactly.
  func testLosslessAlphaMatchesTheSource() throws {
    let decoded = CodecTest.samples(try CodecTest.decode(CodecTest.data("heif/alpha.avif")))
    let source = CodecTest.samples(try PNGDecoder.decode(CodecTest.data("pngsuite/basn6a08.png")))
    XCTAssertEqual(decoded.count, source.count)
    for i in 0..<min(decoded.count, source.count) {
      if i % 4 == 3 {
        XCTAssertEqual(decoded[i], source[i], "alpha at \(i / 4)")
      } else if source[i - i % 4 + 3] > 0 {
        XCTAssertLessThanOrEqual(abs(Int(decoded[i]) - Int(source[i])), 1, "sample \(i)")
      }
    }
  }

  /// 12-bit AVIF and 10-bit HEIC decode to 16 bits without losing a stored code: each sample,
  /// brought back to the file's depth, is heif-convert's code (its PNG holds code << (16 − bits)),
  /// and the samples are not 8-bit values widened (most are not multiples of 257).
  func testDeepImagesKeepTheirPrecision() throws {
    for (name, bits) in [("deep12.avif", 12), ("deep10.heic", 10)] {
      let data = try CodecTest.data("heif/\(name)")
      let header = try CodecRegistry.sniff(data)!.readHeader(data, request: DecodeRequest())
      XCTAssertEqual(header.component, .uint16, name)
      let decoded = try CodecTest.decode(data)
      XCTAssertEqual(decoded.format, .rgb16, name)
      let reference = try PNGDecoder.decode(CodecTest.data("heif/\(name).png"))
      XCTAssertEqual(reference.format, .rgb16)
      let ours = samples16(decoded), theirs = samples16(reference)
      XCTAssertEqual(ours.count, theirs.count)
      let top = Double((1 << bits) - 1)
      var mismatches = 0
      for (a, b) in zip(ours, theirs) where Int((Double(a) * top / 65535).rounded()) != Int(b) >> (16 - bits) { mismatches += 1 }
      XCTAssertEqual(mismatches, 0, "\(name): codes differing from heif-convert's")
      let widened8 = ours.filter { $0 % 257 == 0 }.count
      XCTAssertLessThan(widened8, ours.count / 10, "\(name): samples look like 8-bit values")
      // heif-enc's "lossless" 12 bits of a 16-bit source (it truncates to 12 bits, then libheif's
      // RGB → YCbCr 4:4:4 rounds by up to a code): within two 12-bit steps of the source.
      if bits == 12 {
        let source = samples16(try PNGDecoder.decode(CodecTest.data("heif/deep.png")))
        XCTAssertLessThanOrEqual(maxDifference(ours, source), 2 * 65535 / 4095 + 1)
      }
    }
  }

  /// A file flagged premultiplied (heif-enc --premultiplied-alpha of premultiplied pixels) comes
  /// out straight: the source's straight colours within the rounding premultiplication caused.
  func testPremultipliedAlphaIsDividedBack() throws {
    let data = try CodecTest.data("heif/premultiplied.avif")
    XCTAssertTrue(try HEIFFile(data).isPremultiplied)
    let decoded = CodecTest.samples(try CodecTest.decode(data))
    let source = CodecTest.samples(try PNGDecoder.decode(CodecTest.data("pngsuite/basn6a08.png")))
    var worst = 0
    for p in stride(from: 0, to: source.count, by: 4) where source[p + 3] >= 16 {
      let a = Int(source[p + 3])
      XCTAssertEqual(Int(decoded[p + 3]), a)
      // Premultiplying rounds to half of 255/a straight codes, the lossless coding moves a
      // premultiplied code by up to one (255/a more), and dividing back rounds once more.
      let allowed = 3 * 255 / (2 * a) + 1
      for c in 0..<3 {
        let error = abs(Int(decoded[p + c]) - Int(source[p + c]))
        worst = max(worst, error)
        XCTAssertLessThanOrEqual(error, allowed, "pixel \(p / 4) channel \(c), alpha \(a)")
      }
    }
    XCTAssertLessThan(worst, 20)
  }

  /// irot (stored turned 90°) and imir (stored mirrored) are applied: the upright picture, as
  /// heif-convert gives it, and the header says the upright size with orientation `.up`.
  func testTransformationsAreApplied() throws {
    let upright = CodecTest.samples(try PNGDecoder.decode(CodecTest.data("heif/upright.png")))
    for (name, reference) in [("rot6.avif", "rot6.dec.png"), ("mirror2.avif", "mirror2.dec.png")] {
      let data = try CodecTest.data("heif/\(name)")
      let header = try AVIFCodec.readHeader(data, request: DecodeRequest())
      XCTAssertEqual(header.size, Size(width: 48, height: 32), name)
      XCTAssertEqual(header.metadata.orientation, .up, name)
      let decoded = try CodecTest.decode(data)
      XCTAssertEqual(decoded.size, Size(width: 48, height: 32), name)
      CodecTest.assertSame(CodecTest.samples(decoded), CodecTest.samples(try PNGDecoder.decode(CodecTest.data("heif/\(reference)"))), name)
      XCTAssertLessThanOrEqual(maxDifference(CodecTest.samples(decoded), upright), 2, name)
    }
  }

  /// An Exif block saying orientation 6 (heif-enc copies a JPEG's) is kept as metadata but not
  /// applied: no irot box, so the stored 32×48 picture is the upright one (as libheif, libvips
  /// and browsers show it). Exif and XMP written with the image come back as given.
  func testExifIsKeptNotApplied() throws {
    let data = try CodecTest.data("heif/exif6.avif")
    let header = try AVIFCodec.readHeader(data, request: DecodeRequest())
    XCTAssertEqual(header.size, Size(width: 32, height: 48))
    XCTAssertEqual(header.metadata.orientation, .up)
    let exif = try XCTUnwrap(header.metadata.exif)
    XCTAssertEqual(EXIF.orientation(tiff: [UInt8](exif)), .right)
    XCTAssertEqual(try CodecTest.decode(data).size, Size(width: 32, height: 48))

    let photo = try PNGDecoder.decode(CodecTest.data("heif/upright.png"))
    let xmp = try CodecTest.data("metadata/xmp.xml")
    let encoder = try HEIFStreamEncoder(
      size: photo.size, format: photo.format, settings: HEIFEncodeSettings(compression: .av1, effort: 9), exif: exif, xmp: xmp)
    try encoder.write(rows: photo)
    let written = try XCTUnwrap(try encoder.finish())
    let back = try AVIFCodec.readHeader(written, request: DecodeRequest())
    XCTAssertEqual(back.metadata.exif, exif)
    XCTAssertEqual(back.metadata.xmp, xmp)
  }

  /// Page 0 is the primary image, page 1 the other top-level image; page 2 does not exist.
  func testPagesSelectTopLevelImages() throws {
    let data = try CodecTest.data("heif/multi.heic")
    let first = try HEICCodec.readHeader(data, request: DecodeRequest())
    XCTAssertEqual(first.pageCount, 2)
    XCTAssertEqual(first.size, Size(width: 32, height: 32))
    let second = DecodeRequest(options: ["page": 1])
    XCTAssertEqual(try HEICCodec.readHeader(data, request: second).size, Size(width: 48, height: 32))
    let page1 = try HEICCodec.makeDecoder(data, request: second).decodeAll()
    let upright = CodecTest.samples(try PNGDecoder.decode(CodecTest.data("heif/upright.png")))
    XCTAssertGreaterThan(CodecTest.psnr(CodecTest.samples(page1), upright), 30)
    XCTAssertThrowsError(try HEICCodec.readHeader(data, request: DecodeRequest(options: ["page": 2]))) {
      XCTAssertEqual(($0 as? CodecError)?.kind, .invalidArgument)
    }
  }

  /// An ICC profile is read as stored; an nclx box other than sRGB becomes the profile it
  /// defines (Display P3: P3 primaries, D65, the sRGB curve); an sRGB nclx box needs none.
  func testColorDescriptions() throws {
    let icc = try AVIFCodec.readHeader(CodecTest.data("heif/icc.avif"), request: DecodeRequest())
    XCTAssertEqual(icc.metadata.iccProfile, try CodecTest.data("webp/metadata.icc"))
    let p3File = try HEIFFile(CodecTest.data("heif/p3-nclx.avif"))
    let nclx = try XCTUnwrap(p3File.nclx)
    XCTAssertEqual(nclx.primaries, 12)
    XCTAssertEqual(nclx.transfer, 13)
    for (value, expected) in zip(nclx.chromaticities, [0.680, 0.320, 0.265, 0.690, 0.150, 0.060, 0.3127, 0.3290]) {
      XCTAssertEqual(value, expected, accuracy: 0.001)
    }
    let profile = try XCTUnwrap(p3File.colorProfile)
    XCTAssertEqual(Array(profile[36..<40]), Array("acsp".utf8))
    XCTAssertEqual(try AVIFCodec.readHeader(CodecTest.data("heif/p3-nclx.avif"), request: DecodeRequest()).metadata.iccProfile, profile)
    XCTAssertNotNil(try HEIFFile(CodecTest.data("heif/photo.avif")).nclx)
    XCTAssertNil(try HEIFFile(CodecTest.data("heif/photo.avif")).colorProfile, "sRGB nclx needs no profile")
    XCTAssertNil(HEIFColor(primaries: 1, transfer: 13, matrix: 6, isFullRange: true, chromaticities: nclx.chromaticities).iccProfile)
    XCTAssertNil(HEIFColor(primaries: 12, transfer: 16, matrix: 6, isFullRange: true, chromaticities: nclx.chromaticities).curveParameters)
  }

  private func encode(_ image: PixelBuffer, _ settings: HEIFEncodeSettings, icc: Data? = nil) throws -> Data {
    let encoder = try HEIFStreamEncoder(size: image.size, format: image.format, settings: settings, iccProfile: icc)
    let half = image.height / 2
    try encoder.write(rows: image.cropped(to: Rect(x: 0, y: 0, width: image.width, height: half)))
    try encoder.write(rows: image.cropped(to: Rect(x: 0, y: half, width: image.width, height: image.height - half)))
    let bytes = try encoder.finish()
    return try XCTUnwrap(bytes)
  }

  /// heif-convert's decode of `data` (an independent reader of what we wrote).
  private func heifConvert(_ data: Data, _ ext: String) throws -> PixelBuffer {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("heif-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try data.write(to: folder.appendingPathComponent("in.\(ext)"))
    let run = try ChildProcess.run("heif-convert", ["in.\(ext)", "out.png"], in: folder)
    XCTAssertEqual(run.status, 0, run.stderr)
    return try PNGDecoder.decode(Data(contentsOf: folder.appendingPathComponent("out.png")))
  }

  /// Round trips, each read back by our decoder and by heif-convert: lossless RGBA AVIF (alpha
  /// exact, colour within one code), lossy AVIF and HEIC above 30 dB, 16-bit rows as lossless
  /// 12-bit AVIF (within one 12-bit step), the ICC profile kept; quality changes the size.
  func testRoundTrips() throws {
    let rgba = try PNGDecoder.decode(CodecTest.data("pngsuite/basn6a08.png"))
    let lossless = try encode(rgba, HEIFEncodeSettings(compression: .av1, isLossless: true, effort: 9))
    for decoded in [CodecTest.samples(try CodecTest.decode(lossless)), CodecTest.samples(try heifConvert(lossless, "avif"))] {
      let source = CodecTest.samples(rgba)
      for i in 0..<source.count where i % 4 == 3 || source[i - i % 4 + 3] > 0 {
        XCTAssertLessThanOrEqual(abs(Int(decoded[i]) - Int(source[i])), i % 4 == 3 ? 0 : 1, "sample \(i)")
      }
    }
    let photo = try PNGDecoder.decode(CodecTest.data("heif/upright.png"))
    var sizes: [Int] = []
    for quality in [20, 90] {
      let bytes = try encode(photo, HEIFEncodeSettings(compression: .av1, quality: quality, effort: 9))
      sizes.append(bytes.count)
      XCTAssertGreaterThan(CodecTest.psnr(CodecTest.samples(try CodecTest.decode(bytes)), CodecTest.samples(photo)), 30)
    }
    XCTAssertLessThan(sizes[0], sizes[1])
    let heic = try encode(photo, HEIFEncodeSettings(compression: .hevc, quality: 80, effort: 0, chroma: 444))
    XCTAssertTrue(CodecRegistry.sniff(heic) == HEICCodec.self as Any.Type?)
    XCTAssertGreaterThan(CodecTest.psnr(CodecTest.samples(try CodecTest.decode(heic)), CodecTest.samples(photo)), 30)
    XCTAssertGreaterThan(CodecTest.psnr(CodecTest.samples(try heifConvert(heic, "heic")), CodecTest.samples(photo)), 30)

    let deep = try PNGDecoder.decode(CodecTest.data("heif/deep.png"))
    let twelve = try encode(deep, HEIFEncodeSettings(compression: .av1, isLossless: true, effort: 9, bitDepth: 12))
    XCTAssertEqual(try HEIFFile(twelve).bitDepth, 12)
    // Our rows are rounded to 12 bits (half a step); libheif's RGB → YCbCr 4:4:4 at 12 bits moves
    // a code by up to one more.
    let back = samples16(try CodecTest.decode(twelve)), source = samples16(deep)
    XCTAssertLessThanOrEqual(maxDifference(back, source), 3 * 65535 / 4095 / 2 + 1)

    let icc = try CodecTest.data("webp/metadata.icc")
    let tagged = try encode(photo, HEIFEncodeSettings(compression: .av1, quality: 50, effort: 9), icc: icc)
    XCTAssertEqual(try HEIFFile(tagged).iccProfile, icc)
  }

  /// Lossless means lossless: an opaque 8-bit photo written as lossless AVIF (its nclx box says
  /// the identity matrix, 0) and HEIC decodes to exactly its samples, by our decoder and by
  /// heif-convert. (libheif 1.15 ignores the encoding options' nclx for the RGB → YCbCr step: it
  /// used BT.601 and rounded samples by one.)
  func testLosslessIsExactWithTheIdentityMatrix() throws {
    let photo = try PNGDecoder.decode(CodecTest.data("heif/upright.png"))
    XCTAssertEqual(photo.channelCount, 3)
    for (compression, ext) in [(HEIFEncodeSettings.Compression.av1, "avif"), (.hevc, "heic")] {
      let bytes = try encode(photo, HEIFEncodeSettings(compression: compression, isLossless: true, effort: 0))
      // (libheif 1.15 writes HEIC's colour description in the HEVC stream, not in a colr box.)
      if compression == .av1 { XCTAssertEqual(try HEIFFile(bytes).nclx?.matrix, 0, ext) }
      XCTAssertEqual(CodecTest.samples(try CodecTest.decode(bytes)), CodecTest.samples(photo), ext)
      XCTAssertEqual(CodecTest.samples(try heifConvert(bytes, ext)), CodecTest.samples(photo), "\(ext) through heif-convert")
    }
  }

  /// The registry's options reach libheif: bit depth, lossless, and the pixel format they ask for.
  func testOptionsReachTheEncoder() throws {
    let deep = try PNGDecoder.decode(CodecTest.data("heif/deep.png"))
    func encode(_ values: FormatOptionValues, _ image: PixelBuffer) throws -> Data {
      let options = try values.resolved(by: AVIFCodec.encodeOptions)
      let format = AVIFCodec.encodedPixelFormat(layout: image.format.layout, component: image.format.component, options: options)
      XCTAssertEqual(format.component, image.format.component)
      let encoder = try AVIFCodec.makeEncoder(
        EncodeRequest(
          size: image.size, pixelFormat: format, colorSpace: .sRGB, metadata: ImageMetadata(), options: options, handle: nil,
          executor: nil))
      try encoder.write(rows: image)
      return try XCTUnwrap(encoder.finish())
    }
    XCTAssertEqual(try HEIFFile(encode(["effort": 9], deep)).bitDepth, 12, "deep images default to 12 bits")
    XCTAssertEqual(try HEIFFile(encode(["effort": 9, "bit-depth": "10", "chroma": "422"], deep)).bitDepth, 10)
    XCTAssertEqual(
      AVIFCodec.encodedPixelFormat(layout: .rgb, component: .uint16, options: try FormatOptionValues(["bit-depth": "8"]).resolved(by: AVIFCodec.encodeOptions)),
      .rgb8)
    XCTAssertThrowsError(try FormatOptionValues(["effort": 10]).resolved(by: AVIFCodec.encodeOptions))
  }

  /// An encoder libheif does not have is named in the error (with those it has); the settings
  /// that make libheif 1.15 with libaom abort are refused with a sentence instead.
  func testMissingEncodersAndRefusedSettingsAreErrors() throws {
    let photo = try PNGDecoder.decode(CodecTest.data("heif/upright.png"))
    XCTAssertThrowsError(try encode(photo, HEIFEncodeSettings(compression: .av1, encoderName: "svt"))) {
      let error = $0 as? CodecError
      XCTAssertEqual(error?.kind, .unsupported)
      XCTAssertTrue(error?.message.contains("'svt'") == true, "\(String(describing: error))")
      XCTAssertTrue(error?.message.contains("aom") == true, "\(String(describing: error))")
    }
    XCTAssertThrowsError(try encode(photo, HEIFEncodeSettings(compression: .hevc, encoderName: "kvazaar"))) {
      XCTAssertEqual(($0 as? CodecError)?.kind, .unsupported)
    }
    XCTAssertEqual(HEIFEncodeSettings.encoderNames(for: .av1), ["aom"])
    XCTAssertEqual(HEIFEncodeSettings.encoderNames(for: .hevc), ["x265"])
    let deep = try PNGDecoder.decode(CodecTest.data("heif/deep.png"))
    XCTAssertThrowsError(try encode(deep, HEIFEncodeSettings(compression: .av1, effort: 9, chroma: 420, bitDepth: 10))) {
      XCTAssertEqual(($0 as? CodecError)?.kind, .unsupported)
      XCTAssertTrue(($0 as? CodecError)?.message.contains("4:2:2") == true)
    }
    XCTAssertThrowsError(try HEIFStreamEncoder(size: Size(width: 0, height: 2), format: .rgb8, settings: HEIFEncodeSettings(compression: .av1)))
  }

  /// fuzz-heif's finding: a strict decode libheif fails gives libheif's message (the shim formats
  /// it before freeing the context that owns it; under AddressSanitizer the old order crashed).
  func testFuzzFindingDecodeErrorKeepsLibheifsMessage() throws {
    let data = try CodecTest.data("heif/fuzz-decode-error.heic")
    XCTAssertThrowsError(try HEICCodec.makeDecoder(data, request: DecodeRequest(isStrict: true)).decodeAll()) {
      let error = $0 as? CodecError
      XCTAssertNotNil(error)
      XCTAssertTrue(error?.message.hasPrefix("The HEIF image cannot be decoded: ") == true, "\(String(describing: error))")
      XCTAssertTrue(error?.message.hasSuffix("(libheif).") == true, "\(String(describing: error))")
    }
  }

  /// fuzz-heif's second finding: an nclx box libheif rejects after allocating the profile (the
  /// shim frees it either way; a leak only the sanitizer runs see). The file still decodes or
  /// fails with a CodecError, read as HEIC or AVIF.
  func testFuzzFindingRejectedNclxIsNotLeaked() throws {
    let data = try CodecTest.data("heif/fuzz-nclx-leak.avif")
    for codec in [AVIFCodec.self, HEICCodec.self] as [any ImageCodec.Type] {
      do {
        _ = try codec.readHeader(data, request: DecodeRequest())
        _ = try codec.makeDecoder(data, request: DecodeRequest()).decodeAll()
      } catch let error as CodecError {
        XCTAssertFalse(error.message.isEmpty)
      }
    }
  }

  /// Truncations, corrupt boxes and absurd sizes give CodecErrors, never a crash.
  func testBadInputIsRejected() throws {
    for name in ["photo.avif", "photo.heic"] {
      let good = try CodecTest.data("heif/\(name)")
      for cut in [16, 40, 100, 300, good.count / 2, good.count - 1] {
        CodecTest.assertRejected(good.prefix(cut), [.truncated, .corrupt], "\(name) cut at \(cut)")
      }
      // The image-spatial-extent property claims 100000 × 100000 pixels.
      var huge = [UInt8](good)
      let ispe = try XCTUnwrap(huge.firstRange(of: Array("ispe".utf8)))
      huge.replaceSubrange(ispe.upperBound + 4..<ispe.upperBound + 12, with: [0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0])
      CodecTest.assertRejected(Data(huge), [.tooLarge, .corrupt], "\(name) with a huge ispe")
      XCTAssertThrowsError(try HEIFFile(good, limits: DecodeLimits(maxPixels: 100))) {
        XCTAssertEqual(($0 as? CodecError)?.kind, .tooLarge)
      }
      // Damaged image data: an error, or garbage pixels, but never a crash.
      var body = [UInt8](good)
      for i in stride(from: good.count - 200, to: good.count, by: 3) { body[i] ^= 0x5A }
      do {
        _ = try CodecTest.decode(Data(body))
      } catch let error as CodecError {
        XCTAssertFalse(error.message.isEmpty)
      }
    }
    var box = [UInt8](try CodecTest.data("heif/photo.avif"))
    box[0...3] = [0xFF, 0xFF, 0xFF, 0xF0]  // an ftyp box longer than the file
    CodecTest.assertRejected(Data(box), [.truncated, .corrupt], "ftyp length")
  }

  /// An AVIF image sequence (libavif 0.11's, `avis` with a `moov` track): libheif 1.15 reads its
  /// still primary image (frame 1, within 30 dB of what was encoded) and the decoder warns once
  /// that the sequence's frames are not read and why; asked for a page, or for a still AVIF, no
  /// warning.
  func testSequenceIsReadAsItsPrimaryImageWithAWarning() throws {
    let data = try CodecTest.data("heif/sequence.avif")
    let decoder = try AVIFCodec.makeDecoder(data, request: DecodeRequest())
    let first = try decoder.decodeAll()
    XCTAssertEqual(first.size, Size(width: 16, height: 8))
    var expected: [UInt8] = []
    for y in 0..<8 { for x in 0..<16 { expected += [UInt8(x * 16 % 256), UInt8(y * 30), 0, 255] } }
    XCTAssertGreaterThan(CodecTest.psnr(CodecTest.samples(first.converted(to: .rgba8)), expected), 30)
    XCTAssertEqual(decoder.warnings.count, 1)
    XCTAssertTrue(decoder.warnings.first?.contains("is an image sequence; libheif 1.15") ?? false, "\(decoder.warnings)")
    XCTAssertEqual(try AVIFCodec.makeDecoder(data, request: DecodeRequest(options: ["page": .integer(0)])).warnings, [])
    XCTAssertEqual(try AVIFCodec.makeDecoder(try CodecTest.data("heif/alpha.avif"), request: DecodeRequest()).warnings, [])
  }
}
