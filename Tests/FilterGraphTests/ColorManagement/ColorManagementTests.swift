// ColorManagementTests.swift — ICC sources into the working space and outputs into profiles,
// against lcms2's own conversions made by Pillow (scripts/colour-references.py).
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class ColorManagementTests: XCTestCase {
  let renderer = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 64, height: 32)))

  /// The differences of two buffers' colour channels (the first three of each pixel), in 8-bit
  /// codes, pixel by pixel; empty (after a failed assertion) when their sizes differ.
  func codeDifferences(_ a: PixelBuffer, _ b: PixelBuffer) -> [Double] {
    codeDifferences(Samples(a), Samples(b))
  }

  /// A buffer's size, channel count and nominal values, converted once for several comparisons.
  struct Samples {
    let size: Size, channels: Int, values: [Float]
    init(_ buffer: PixelBuffer) { (size, channels, values) = (buffer.size, buffer.format.channelCount, buffer.nominalValues()) }
  }

  func codeDifferences(_ a: Samples, _ b: Samples) -> [Double] {
    XCTAssertEqual(a.size, b.size)
    guard a.size == b.size else { return [] }
    let u = a.values, v = b.values
    let m = a.channels, n = b.channels
    var differences: [Double] = []
    differences.reserveCapacity(a.size.width * a.size.height * 3)
    for p in 0..<a.size.width * a.size.height { for c in 0..<3 { differences.append(Double(u[p * m + c] - v[p * n + c]) * 255) } }
    return differences
  }

  /// PSNR of two 8-bit RGB buffers of one size, over the colour channels.
  func psnr(_ a: PixelBuffer, _ b: PixelBuffer) -> Double { psnr(Samples(a), Samples(b)) }

  func psnr(_ a: Samples, _ b: Samples) -> Double {
    let differences = codeDifferences(a, b)
    guard !differences.isEmpty else { return 0 }
    let mse = differences.reduce(0) { $0 + $1 * $1 } / Double(differences.count)
    return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
  }

  /// The largest difference between two buffers' colour channels, in 8-bit codes.
  func maxCodeDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
    let differences = codeDifferences(a, b)
    guard !differences.isEmpty else { return .infinity }
    return differences.reduce(0) { max($0, abs($1)) }
  }

  /// `image` written as a PNG with `options` and read back (pixels as stored, profile as written).
  func writtenAndRead(_ image: Image, _ options: WriteOptions = WriteOptions()) throws -> (PixelBuffer, Data?) {
    let png = try renderer.encode(image, format: .png, options: options)
    let decoded = try PNGDecoder.decode(png)
    return (decoded, decoded.metadata.iccProfile)
  }

  func fixture(_ name: String) throws -> Image { try Image(contentsOf: Fixtures.url("colour/" + name)) }

  func reference(_ name: String) throws -> PixelBuffer { try PNGDecoder.decode(Fixtures.data("colour/" + name)) }

  /// Public wide-gamut and CMYK files converted to sRGB are within 40 dB of lcms2's own conversion
  /// (Pillow's ImageCms, scripts/colour-references.py) for every intent; their stored numbers read
  /// as sRGB are not (so the test can fail). Prints the PSNR table docs/Colour.md quotes.
  func testConversionToSRGBMatchesLcms2() throws {
    let crop = Rect(x: 200, y: 100, width: 192, height: 192)
    let sources: [(file: String, crop: Rect?, what: String)] = [
      ("rocket-adobergb.jpg", crop, "Adobe RGB (1998) photo (JPEG)"),
      ("chart-p3.png", nil, "synthetic chart, Display P3 (PNG)"),
      ("ring-p3.png", nil, "libjxl wide-gamut ring, P3 D65 γ2.2 (PNG)"),
      ("ring-rec2020.png", nil, "libjxl wide-gamut ring, Rec. 2020 γ2.2 (PNG)"),
    ]
    for source in sources {
      let name = source.file.split(separator: ".")[0]
      var line = "| \(source.what) |"
      for intent in [RenderingIntent.relative, .perceptual, .saturation, .absolute] {
        var options = WriteOptions()
        options.intent = intent
        let image = try fixture(source.file)
        let (out, profile) = try writtenAndRead(source.crop.map { image.cropped(to: $0) } ?? image, options)
        XCTAssertNil(profile, "sRGB output carries no profile")
        let value = psnr(out, try reference("\(name)-srgb-\(intent.rawValue).png"))
        XCTAssertGreaterThan(value, 40, "\(source.file), \(intent)")
        line += String(format: " %.1f |", value)
      }
      let data = try Fixtures.data("colour/" + source.file)
      let stored = try source.file.hasSuffix(".jpg") ? JPEGDecoder.decode(data) : PNGDecoder.decode(data)
      let naive = try renderer.render(Image(buffer: stored.reinterpreted(colorSpace: .sRGB)).cropped(to: source.crop ?? Rect(x: 0, y: 0, width: stored.width, height: stored.height)))
      let naiveValue = psnr(naive, try reference("\(name)-srgb-relative.png"))
      XCTAssertLessThan(naiveValue, 35, "\(source.file) read as sRGB")
      print(line + String(format: " %.1f |", naiveValue))
    }
    // The SWOP-like profile has one table: lcms2 gives every intent the same picture.
    let (cmyk, _) = try writtenAndRead(try fixture("cmyk-swop.jpg"))
    let cmykValue = psnr(cmyk, try reference("cmyk-swop-srgb-relative.png"))
    XCTAssertGreaterThan(cmykValue, 40)
    print(String(format: "| CMYK photo, SWOP-like profile (Adobe JPEG) | %.1f (one table: every intent) |", cmykValue))
  }

  /// A CMYK JPEG is converted by its decoder with the render's intent and black-point
  /// compensation: on a profile whose intents all differ (`cmyk-intents.jpg`), each output is
  /// within 40 dB of lcms2's conversion with that intent and below 40 dB of every other one that
  /// differs from it (relative with black-point compensation lands on perceptual: the profile's
  /// perceptual table is its relative one with a zero black), with one renderer (its decode cache
  /// keyed by the rendering), decoded whole and streamed.
  func testCMYKSourceTakesTheRequestedIntent() throws {
    let conversions: [(intent: RenderingIntent, bpc: Bool)] = [
      (.relative, false), (.perceptual, false), (.saturation, false), (.absolute, false), (.relative, true),
    ]
    let references = try conversions.map { Samples(try reference("cmyk-intents-srgb-\($0.intent.rawValue)\($0.bpc ? "-bpc" : "").png")) }
    let differs = references.map { a in references.map { b in psnr(a, b) < 40 } }
    let streaming = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 64, height: 32), streamingMinimumBytes: 0))
    for renderer in [renderer, streaming] {
      var line = "| CMYK photo, test profile whose intents differ |"
      for (i, conversion) in conversions.enumerated() {
        var options = WriteOptions()
        options.intent = conversion.intent
        options.blackPointCompensation = conversion.bpc
        let out = Samples(try PNGDecoder.decode(renderer.encode(try fixture("cmyk-intents.jpg"), format: .png, options: options)))
        for (j, reference) in references.enumerated() {
          let value = psnr(out, reference)
          if i == j {
            XCTAssertGreaterThan(value, 40, "\(conversion)")
            line += String(format: " %.1f |", value)
          } else if differs[i][j] {
            XCTAssertLessThan(value, 40, "\(conversion) against \(conversions[j])")
          }
        }
      }
      print(line)
    }
  }

  /// `p3` output of a P3 input gives its numbers back within one code, with the P3 profile embedded.
  func testP3RoundTrip() throws {
    var options = WriteOptions()
    options.profile = .displayP3
    let (out, profile) = try writtenAndRead(try fixture("chart-p3.png"), options)
    XCTAssertEqual(profile, OutputProfile.displayP3Data)
    XCTAssertLessThanOrEqual(maxCodeDifference(out, try PNGDecoder.decode(Fixtures.data("colour/chart-p3.png"))), 1)
  }

  /// sRGB colours written as (16-bit) P3 and converted back to sRGB come back within one code.
  /// (Through 8-bit P3 they come back within 8: a P3 code step, mixed by the matrix, is several sRGB
  /// codes near black, as with lcms2.)
  func testSRGBThenP3KeepsInGamutColors() throws {
    let original = randomRGBA8(width: 64, height: 40).reinterpreted(colorSpace: .sRGB)
    var rgb = PixelBuffer(width: 64, height: 40, format: .rgb8)
    rgb.withUnsafeMutablePixels(as: UInt8.self) { d in
      original.withUnsafePixels(as: UInt8.self) { s in
        for y in 0..<40 { for x in 0..<64 { for c in 0..<3 { d[row: y][3 * x + c] = s[row: y][4 * x + c] } } }
      }
    }
    var options = WriteOptions()
    options.profile = .displayP3
    options.formatOptions = ["bit-depth": "16"]
    let p3 = try renderer.encode(Image(buffer: rgb), format: .png, options: options)
    let (back, profile) = try writtenAndRead(try Image(data: p3))
    XCTAssertNil(profile)
    XCTAssertLessThanOrEqual(maxCodeDifference(back, rgb), 1)
    XCTAssertGreaterThan(maxCodeDifference(try PNGDecoder.decode(p3), rgb), 10, "the P3 file holds other numbers")
  }

  /// A saturated Rec. 2020 red stays outside sRGB through blur and scale (float tiles keep it), and
  /// only the 8-bit output clips it.
  func testRec2020RedSurvivesExtendedRangeChain() throws {
    var red = PixelBuffer(width: 32, height: 32, format: .rgb8, colorSpace: .icc(ICCProfile.rec2020Data))
    red.withUnsafeMutablePixels(as: UInt8.self) { p in
      for y in 0..<32 { for x in 0..<32 { p[row: y][3 * x] = 255; p[row: y][3 * x + 1] = 0; p[row: y][3 * x + 2] = 0 } }
    }
    let chain = Image(buffer: red).blurred(sigma: 1.5).scaled(by: 0.5)
    let float = try renderer.render(chain, format: PixelFormat(layout: .rgb, component: .float32))
    let centre = (float.value(x: 8, y: 8, channel: 0), float.value(x: 8, y: 8, channel: 1), float.value(x: 8, y: 8, channel: 2))
    XCTAssertGreaterThan(centre.0, 1.05, "red beyond sRGB's")
    XCTAssertLessThan(centre.1, -0.05, "negative green: outside sRGB")
    let (clipped, _) = try writtenAndRead(chain)
    XCTAssertEqual(clipped.value(x: 8, y: 8, channel: 0), 1)
    XCTAssertEqual(clipped.value(x: 8, y: 8, channel: 1), 0)
  }

  /// A tint given in sRGB gives the same result on an Adobe RGB photo as on that photo converted
  /// to sRGB first, wherever the photo's colours lie inside sRGB (outside it, the extended working
  /// space keeps the colour the 8-bit sRGB file had to clip, so the results differ there by design).
  func testTintIsInSRGBWhateverTheSourceProfile() throws {
    let orange = Color(hex: "#FF8000")!
    let photo = try fixture("rocket-adobergb.jpg")
    let direct = try renderer.render(photo.tinted(orange, amount: 0.4))
    let (converted, _) = try writtenAndRead(photo)
    let viaSRGB = try renderer.render(Image(buffer: converted).tinted(orange, amount: 0.4))
    let differences = codeDifferences(direct, viaSRGB)
    let stored = converted.nominalValues(), n = converted.format.channelCount
    guard differences.count == converted.width * converted.height * 3 else { return XCTFail("the two renders differ in size") }
    var compared = 0, worst = 0.0
    for p in 0..<converted.width * converted.height {
      guard (0..<3).allSatisfy({ stored[p * n + $0] > 0 && stored[p * n + $0] < 1 }) else { continue }
      compared += 1
      for ch in 0..<3 { worst = max(worst, abs(differences[p * 3 + ch])) }
    }
    XCTAssertGreaterThan(compared, converted.width * converted.height / 2)
    XCTAssertLessThanOrEqual(worst, 1.01)
  }

  /// `keep` on a graph that is only its source copies the stored pixels and embeds the profile.
  func testKeepIsThePassThroughCopy() throws {
    var options = WriteOptions()
    options.profile = .keep
    let (kept, profile) = try writtenAndRead(try fixture("rocket-adobergb.jpg"), options)
    let stored = try JPEGDecoder.decode(Fixtures.data("colour/rocket-adobergb.jpg"))
    XCTAssertEqual(profile, stored.metadata.iccProfile)
    XCTAssertEqual(maxCodeDifference(kept, stored), 0)
    // Through a filter, the pixels go to sRGB and back: still within a code of the stored ones.
    let (filtered, _) = try writtenAndRead(try fixture("rocket-adobergb.jpg").blurred(sigma: 0.01), options)
    XCTAssertLessThanOrEqual(maxCodeDifference(filtered, stored), 1)
  }

  /// Unusable profiles give a warning and sRGB, or an error under strict loading; never a crash:
  /// truncated, corrupt (tag offsets past the end), 4.5 MB of garbage, a CMYK profile on an RGB
  /// image, 500 kB (a corrupt profile repeated) in 9 APP2 segments, and APP2 segments that do not
  /// make one profile: one missing, a good profile's 9 segments twice over, counts that disagree,
  /// a segment numbered 0. `Image.sourceWarnings` says the same before any render.
  func testBadProfilesWarnAndFallBackToSRGB() throws {
    let adobe = try BrokenProfiles.adobeRGB()
    let broken = Dictionary(uniqueKeysWithValues: try BrokenProfiles.all())
    let cmyk = broken["CMYK on RGB"]!, corrupt = broken["corrupt"]!
    let pixels = randomRGBA8(width: 16, height: 16)
    var rgb = PixelBuffer(width: 16, height: 16, format: .rgb8)
    rgb.withUnsafeMutablePixels(as: UInt8.self) { d in
      pixels.withUnsafePixels(as: UInt8.self) { s in
        for y in 0..<16 { for x in 0..<16 { for c in 0..<3 { d[row: y][3 * x + c] = s[row: y][4 * x + c] } } }
      }
    }
    let plainJPEG = try JPEGEncoder.encode(rgb, options: JPEGEncodeOptions(quality: 95))
    func tagged(_ profile: Data) throws -> Data {
      var buffer = rgb
      buffer.metadata.iccProfile = profile
      return try JPEGEncoder.encode(buffer, options: JPEGEncodeOptions(quality: 95))
    }
    /// `profile` cut into `count` APP2 payloads (sequence number, count, bytes).
    func chunks(_ profile: Data, _ count: Int) -> [(Int, Int, Data)] {
      let size = (profile.count + count - 1) / count
      return (0..<count).map { i in (i + 1, count, profile[(i * size)..<min((i + 1) * size, profile.count)]) }
    }
    /// `plainJPEG` with these ICC_PROFILE APP2 segments.
    func segments(_ list: [(Int, Int, Data)]) -> Data {
      var out = Data(plainJPEG.prefix(2))
      for (sequence, count, chunk) in list {
        let payload = Data("ICC_PROFILE".utf8) + [0, UInt8(sequence), UInt8(count)] + chunk
        out += Data([0xFF, 0xE2, UInt8((payload.count + 2) >> 8), UInt8(truncatingIfNeeded: payload.count + 2)]) + payload
      }
      return out + plainJPEG.dropFirst(2)
    }
    func split(_ profile: Data, into count: Int) -> Data { segments(chunks(profile, count)) }
    let three = chunks(adobe, 3)
    var repeated = Data()
    while repeated.count < 500_000 { repeated += corrupt }
    let cases: [(String, Data)] = [
      ("truncated", try tagged(adobe.prefix(300))), ("corrupt", try tagged(corrupt)),
      ("garbage", try tagged(Data(repeating: 0x41, count: 4_500_000))), ("CMYK on RGB", try tagged(cmyk)),
      ("500 kB in 9 segments", split(repeated.prefix(500_000), into: 9)),
      ("segment missing", segments([three[0], three[2]])), ("9 segments twice", segments(chunks(adobe, 9) + chunks(adobe, 9))),
      ("counts disagree", segments([three[0], (2, 4, three[1].2), three[2]])), ("segment 0", segments([(0, 3, three[0].2)] + three)),
    ]
    for (name, jpeg) in cases {
      let warnings = WarningLog()
      let lenient = Renderer(options: RendererOptions(threads: 2)) { warnings.append($0) }
      let plain = try lenient.render(Image(data: plainJPEG))
      let out = try lenient.render(Image(data: jpeg))
      XCTAssertEqual(maxCodeDifference(out, plain), 0, name)
      XCTAssertEqual(warnings.messages.count, 1, name)
      XCTAssertTrue(warnings.messages.first?.contains("read as sRGB") ?? false, name)
      XCTAssertEqual(try Image(data: jpeg).sourceWarnings, warnings.messages, name)
      XCTAssertThrowsError(try lenient.render(Image(data: jpeg, options: LoadOptions(strict: true))), name)
    }
  }

  /// An ICC profile over 1 MiB — the limit for descriptive metadata, which a profile is not: it
  /// says what the pixels' numbers mean — is honoured whatever its size up to what the file can
  /// hold: the Adobe RGB profile with a 1.25 MB private tag, split by libjpeg over 20 APP2
  /// segments (ICC.1 Annex B.4) and also stored in reverse order, converts exactly as the bare
  /// profile does (far from the same numbers read as sRGB), without a warning, and is embedded
  /// byte for byte by `--profile keep` in JPEG, PNG, WebP and TIFF outputs.
  func testAProfileOverOneMiBInManyAPP2SegmentsIsHonoured() throws {
    let adobe = try BrokenProfiles.adobeRGB()
    let large = Self.padded(adobe, by: 1_250_000)
    XCTAssertGreaterThan(large.count, MetadataLimits.maxBlockBytes)
    XCTAssertEqual(try ICCProfile(large).name, try ICCProfile(adobe).name)
    let rgb = PixelBuffer.random(width: 16, height: 16, format: .rgb8, seed: 7)
    func tagged(_ profile: Data?) throws -> Data {
      var buffer = rgb
      buffer.metadata.iccProfile = profile
      return try JPEGEncoder.encode(buffer, options: JPEGEncodeOptions(quality: 95))
    }
    let jpeg = try tagged(large)
    let segments = FileStructure.jpegSegments(jpeg).filter { $0.marker == 0xE2 }
    XCTAssertEqual(segments.count, 20)
    XCTAssertEqual(segments.map { Int($0.payload[12]) }, Array(1...20))
    // The same segments stored last to first (their sequence numbers say the order).
    let first = try XCTUnwrap(jpeg.range(of: Data([0xFF, 0xE2]))).lowerBound
    let last = segments.reduce(first) { at, segment in at + 4 + segment.payload.count }
    var reversed = Data(jpeg[..<first])
    for segment in segments.reversed() {
      reversed += Data([0xFF, 0xE2, UInt8((segment.payload.count + 2) >> 8), UInt8(truncatingIfNeeded: segment.payload.count + 2)]) + segment.payload
    }
    reversed += jpeg[last...]
    let warnings = WarningLog()
    let renderer = Renderer(options: RendererOptions(threads: 2)) { warnings.append($0) }
    let throughAdobe = try renderer.render(Image(data: try tagged(adobe)))
    let asSRGB = try renderer.render(Image(data: try tagged(nil)))
    for file in [jpeg, reversed] {
      XCTAssertEqual(try JPEGCodec.readHeader(file, request: DecodeRequest()).metadata.iccProfile, large)
      let through = try renderer.render(Image(data: file, options: LoadOptions(strict: true)))
      XCTAssertEqual(maxCodeDifference(through, throughAdobe), 0)
      XCTAssertGreaterThan(maxCodeDifference(through, asSRGB), 20)
    }
    XCTAssertEqual(warnings.messages, [])
    var keep = WriteOptions()
    keep.profile = .keep
    for format in [ImageFileFormat.jpeg, .png, .webp, .tiff] {
      let written = try renderer.encode(Image(data: jpeg), format: format, options: keep)
      let codec = try XCTUnwrap(CodecRegistry.sniff(written))
      XCTAssertEqual(try codec.readHeader(written, request: DecodeRequest()).metadata.iccProfile, large, "\(format)")
    }
    XCTAssertEqual(warnings.messages, [])
  }

  /// `profile` with a private tag ('fgPd', of type 'data': binary) holding `padding` zero bytes
  /// (ICC.1:2010 7.3: the tag table grows by one 12-byte entry, so every tag's data moves 12 bytes
  /// on; tag data starts on a 4-byte boundary; the header's size is the new size and its profile
  /// ID is zeroed, "not computed").
  static func padded(_ profile: Data, by padding: Int) -> Data {
    var p = [UInt8](profile)
    func get(_ at: Int) -> Int { p[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
    func put(_ value: Int, _ at: Int) { p.replaceSubrange(at..<at + 4, with: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }) }
    let count = get(128)
    for i in 0..<count { put(get(132 + 12 * i + 4) + 12, 132 + 12 * i + 4) }
    p.insert(contentsOf: [UInt8](repeating: 0, count: 12), at: 132 + 12 * count)
    while p.count % 4 != 0 { p.append(0) }
    let tag = Array("fgPd".utf8), offset = p.count
    p.replaceSubrange(132 + 12 * count..<144 + 12 * count, with: tag + [0, 0, 0, 0] + [0, 0, 0, 0])
    put(offset, 132 + 12 * count + 4)
    put(12 + padding, 132 + 12 * count + 8)
    p += Array("data".utf8) + [0, 0, 0, 0] + [0, 0, 0, 1] + [UInt8](repeating: 0, count: padding)
    put(count + 1, 128)
    put(p.count, 0)
    p.replaceSubrange(84..<100, with: [UInt8](repeating: 0, count: 16))
    return Data(p)
  }

  /// A CMYK JPEG whose profile lcms2 cannot use (its colour space patched to RGB) is converted
  /// naively, with a warning, or refused under strict loading; with its profile it converts
  /// without a warning.
  func testCMYKJPEGWithUnusableProfileWarns() throws {
    let good = try Fixtures.data("colour/cmyk-swop.jpg")
    var bad = good
    let at = bad.range(of: Data("CMYKLab ".utf8))!.lowerBound
    bad.replaceSubrange(at..<at + 4, with: Data("RGB ".utf8))
    let warnings = WarningLog()
    let lenient = Renderer(options: RendererOptions(threads: 2)) { warnings.append($0) }
    _ = try lenient.render(Image(data: good))
    XCTAssertEqual(warnings.messages, [])
    let naive = try lenient.render(Image(data: bad))
    XCTAssertEqual(warnings.messages.count, 1)
    XCTAssertTrue(warnings.messages.first?.contains("cannot be used for its CMYK pixels") ?? false, warnings.messages.first ?? "")
    XCTAssertEqual(maxCodeDifference(naive, try JPEGDecoder.decode(bad)), 0, "the decoder's naive conversion, read as sRGB")
    XCTAssertThrowsError(try lenient.render(Image(data: bad, options: LoadOptions(strict: true))))
  }

  /// The engine's own table + matrix path is used for matrix/shaper profiles and agrees with lcms2
  /// within half an 8-bit code (after the sRGB curve) on random pixels, 8- and 16-bit.
  func testMatrixShaperPathAgreesWithLcms2() throws {
    let adobe = try JPEGDecoder.decode(Fixtures.data("colour/rocket-adobergb.jpg")).metadata.iccProfile!
    for data in [adobe, ICCProfile.displayP3Data, ICCProfile.rec2020Data] {
      let profile = try ICCProfile(data)
      for component in [ComponentType.uint8, .uint16] {
        let transform = try TransformCache.transform(
          profile, .toWorking, format: PixelFormat(layout: .rgb, component: component), intent: .relative, bpc: false)
        XCTAssertNotNil(transform.fast, "\(profile.name) \(component)")
        let count = 20_000, bytes = component == .uint16 ? 2 : 1
        var generator = SystemRandomNumberGenerator()
        let input = (0..<(count * 3 * bytes)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var a = [SIMD4<Float>](repeating: .zero, count: count), b = a
        input.withUnsafeBytes { i in
          a.withUnsafeMutableBytes { transform.run(i.baseAddress!, $0.baseAddress!, count: count) }
          b.withUnsafeMutableBytes { transform.runLcms2(i.baseAddress!, $0.baseAddress!, count: count) }
        }
        func code(_ l: Float) -> Double { Double(l < 0 ? -SRGBCurve.encode(-l) : SRGBCurve.encode(l)) * 255 }
        var worst = 0.0
        for (x, y) in zip(a, b) { for c in 0..<3 { worst = max(worst, abs(code(x[c]) - code(y[c]))) } }
        XCTAssertLessThanOrEqual(worst, 0.5, "\(profile.name) \(component)")
      }
    }
  }

  /// `convert profile=PATH intent=…` (and `converted(toProfile:)`): the written file stores the
  /// profile's numbers and embeds it, exactly as `--profile PATH` with that intent would; read back
  /// through its profile it is the original within a code; `render` gives sRGB. Bad profiles are
  /// recipe errors with the line and column.
  func testConvertToProfileInRecipeAndSwift() throws {
    let adobe = try JPEGDecoder.decode(Fixtures.data("colour/rocket-adobergb.jpg")).metadata.iccProfile!
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("convert-profile-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try adobe.write(to: folder.appendingPathComponent("adobe.icc"))
    let photo = try Image(contentsOf: Fixtures.url("colour/ring-p3.png"))
    let context = FilterContext(baseDirectory: folder)
    for intent in [RenderingIntent.relative, .perceptual] {
      let converted = try Recipe.parse("convert profile=adobe.icc intent=\(intent.rawValue)", file: "r.txt").compile(input: photo, context: context)
      let (written, profile) = try writtenAndRead(converted)
      XCTAssertEqual(profile, adobe)
      var options = WriteOptions()
      options.profile = .icc(adobe)
      options.intent = intent
      let (viaOption, _) = try writtenAndRead(photo, options)
      XCTAssertEqual(maxCodeDifference(written, viaOption), 0, "\(intent)")
      let swift = try photo.converted(toProfile: adobe, intent: intent)
      XCTAssertEqual(maxCodeDifference(try writtenAndRead(swift).0, written), 0)
      let stored = try PNGDecoder.decode(Fixtures.data("colour/ring-p3.png"))
      XCTAssertGreaterThan(maxCodeDifference(written, stored), 10, "Adobe RGB numbers, not P3's")
      // Read back through the embedded profile: the P3 ring's colours, clipped to Adobe RGB's
      // gamut, in sRGB — the same as the ring converted to sRGB wherever both gamuts hold it.
      let back = try renderer.render(try Image(data: renderer.encode(converted, format: .png)))
      XCTAssertGreaterThan(psnr(back, try renderer.render(photo)), 30)
      let inMemory = try renderer.render(converted)
      XCTAssertEqual(maxCodeDifference(inMemory, try renderer.render(photo)), 0, "render gives sRGB")
    }
    let explained = try renderer.explain(Recipe.parse("convert profile=adobe.icc intent=perceptual", file: "r.txt").compile(input: photo, context: context))
    XCTAssertTrue(explained.contains("stored through lcms2 into 'Adobe RGB (1998)' (perceptual)"), explained)

    var cmyk = adobe
    cmyk.replaceSubrange(16..<20, with: Array("CMYK".utf8))
    try cmyk.write(to: folder.appendingPathComponent("cmyk.icc"))
    try Data(repeating: 7, count: 300).write(to: folder.appendingPathComponent("junk.icc"))
    for (text, expected) in [
      ("blur sigma=1\nconvert profile=missing.icc", "2:17: error: convert: The ICC profile"),
      ("convert profile=junk.icc", "1:17: error: convert: The ICC profile 'junk.icc' cannot be used"),
      ("convert profile=cmyk.icc", "1:17: error: convert: The ICC profile 'cmyk.icc' is CMYK"),
      ("convert profile=adobe.icc intent=vivid", "1:34: error: 'vivid' is not a valid value for intent"),
      ("convert to=p3 profile=adobe.icc", "convert takes to= or profile=, not both"),
      ("convert", "convert needs to="),
    ] {
      XCTAssertThrowsError(try Recipe.parse(text, file: "r.txt").compile(input: photo, context: context), text) { error in
        XCTAssertTrue("\(error)".contains(expected), "\(text): \(error)")
      }
    }
  }

  /// One transform per (profile, direction, format, intent, compensation), shared by renders.
  func testTransformsAreBuiltOnce() throws {
    let photo = try fixture("rocket-adobergb.jpg").scaled(by: 0.25)
    var options = WriteOptions()
    options.profile = .keep
    options.intent = .saturation
    _ = try renderer.encode(photo, format: .png, options: options)
    let built = ColorStatistics.transformsBuilt
    _ = try renderer.encode(photo, format: .png, options: options)
    _ = try Renderer(options: RendererOptions(threads: 1)).encode(photo, format: .png, options: options)
    XCTAssertEqual(ColorStatistics.transformsBuilt, built)
  }
}

/// Collects a renderer's warnings.
final class WarningLog: @unchecked Sendable {
  private let lock = NSLock()
  private var list: [String] = []
  func append(_ message: String) { lock.withLock { list.append(message) } }
  var messages: [String] { lock.withLock { list } }
}
