// RecipeExamplesTests.swift — every recipe shipped in recipes/ runs end to end and keeps its promise.
//
// The recipe files are read where they live in the repository (located from this file's path),
// compiled with `Recipe.load(contentsOf:)` + `compile(input:context:)` on real images, rendered,
// and checked for what each file's comments promise: output sizes, gray output, alpha kept
// exactly, sepia ordering, pixels outside the watermark kept bit for bit, contrast raised.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

/// The repository's folders, found from this source file (Tests/FilterGraphTests/Recipe/…).
enum Repository {
  static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static let recipes = root.appendingPathComponent("recipes")
  static func url(_ relativePath: String) -> URL { root.appendingPathComponent(relativePath) }
}

final class RecipeExamplesTests: XCTestCase {
  /// Two threads and small tiles, so tile seams are exercised. (Lives as long as the process.)
  static let renderer = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 128, height: 32)))
  var renderer: Renderer { Self.renderer }

  /// The JPEG photo most recipes are run on: 227×149, 4:2:0 (IJG test image).
  var photo: Image { get throws { try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg")) } }

  /// Loads and compiles `recipes/NAME.txt` on `input`, as fgrun does (paths relative to the recipe).
  func run(_ name: String, on input: Image) throws -> Image {
    let url = Repository.recipes.appendingPathComponent(name + ".txt")
    let recipe = try Recipe.load(contentsOf: url)
    return try recipe.compile(input: input, context: FilterContext(baseDirectory: url.deletingLastPathComponent()))
  }

  /// The rendered bytes, rows packed, in `format`.
  func pixels(_ image: Image, _ format: PixelFormat) throws -> (bytes: [UInt8], size: Size) {
    let buffer = try renderer.render(image, format: format)
    return (Self.packed(buffer), buffer.size)
  }

  static func packed(_ buffer: PixelBuffer) -> [UInt8] {
    let rowLength = buffer.width * buffer.format.bytesPerPixel
    var out = [UInt8](repeating: 0, count: rowLength * buffer.height)
    buffer.withUnsafeBaseAddress { base, rowBytes in
      out.withUnsafeMutableBytes { dst in
        for y in 0..<buffer.height {
          dst.baseAddress!.advanced(by: y * rowLength).copyMemory(from: base + y * rowBytes, byteCount: rowLength)
        }
      }
    }
    return out
  }

  /// Population standard deviation of 8-bit values.
  static func standardDeviation(_ values: [UInt8]) -> Double {
    let n = Double(values.count)
    let mean = values.reduce(0.0) { $0 + Double($1) } / n
    return (values.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) } / n).squareRoot()
  }

  /// Checks `size` fits `box` with one side touching it and the aspect ratio of `original` kept
  /// (to the rounding of one pixel).
  func assertFits(_ size: Size, in box: Size, aspectOf original: Size, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertLessThanOrEqual(size.width, box.width, file: file, line: line)
    XCTAssertLessThanOrEqual(size.height, box.height, file: file, line: line)
    XCTAssertTrue(size.width == box.width || size.height == box.height, "\(size) does not touch \(box)", file: file, line: line)
    // w/h equals W/H within what rounding one side to whole pixels allows.
    let expectedHeight = Double(size.width) * Double(original.height) / Double(original.width)
    let expectedWidth = Double(size.height) * Double(original.width) / Double(original.height)
    XCTAssertTrue(
      abs(Double(size.height) - expectedHeight) <= 0.5 || abs(Double(size.width) - expectedWidth) <= 0.5,
      "\(size) does not keep the aspect ratio of \(original)", file: file, line: line)
  }

  // MARK: - The set of recipes

  /// A recipe added to recipes/ without a test here fails, so every shipped recipe is exercised.
  func testEveryShippedRecipeHasATest() throws {
    let names = try FileManager.default.contentsOfDirectory(atPath: Repository.recipes.path)
      .filter { $0.hasSuffix(".txt") }.map { String($0.dropLast(4)) }.sorted()
    XCTAssertEqual(
      names,
      [
        "credit", "document-cleanup", "glow", "icon-tint", "product-photo", "sepia-vintage", "social-card", "social-preview",
        "thumbnail", "warm-soft-gray", "watermark", "web-ready",
      ])
    for name in names {
      // Each checks completely (filters, parameters, values, names) before any pixel.
      XCTAssertNoThrow(try Recipe.load(contentsOf: Repository.recipes.appendingPathComponent(name + ".txt")).check(), name)
    }
  }

  // MARK: - One test per recipe

  func testThumbnailFitsIn800AndIsSharperThanPlainScaling() throws {
    // A thumbnail is a reduction: run it on the 2268×1512 demo photo (samples/flower.jpg).
    let input = try Image(contentsOf: Repository.url("samples/flower.jpg"))
    let output = try run("thumbnail", on: input)
    let (bytes, size) = try pixels(output, .rgb8)
    assertFits(size, in: Size(width: 800, height: 800), aspectOf: input.size)
    XCTAssertEqual(size, Size(width: 800, height: 533))
    // The sharpen adds edge contrast: more total horizontal gradient than scaling alone.
    let (plain, _) = try pixels(input.scaled(toFit: Size(width: 800, height: 800)), .rgb8)
    func gradient(_ b: [UInt8]) -> Int {
      var sum = 0
      for y in 0..<size.height {
        for i in 3..<(size.width * 3) { sum += abs(Int(b[y * size.width * 3 + i]) - Int(b[y * size.width * 3 + i - 3])) }
      }
      return sum
    }
    XCTAssertGreaterThan(Double(gradient(bytes)), 1.05 * Double(gradient(plain)))
    // … but lightly: on average the pixels move by less than 3 levels.
    let meanChange = zip(bytes, plain).reduce(0.0) { $0 + abs(Double($1.0) - Double($1.1)) } / Double(bytes.count)
    XCTAssertLessThan(meanChange, 3)
  }

  func testWarmSoftGrayIsGrayAndFits() throws {
    let input = try photo
    let output = try run("warm-soft-gray", on: input)
    XCTAssertEqual(output.info.layout, .gray)
    assertFits(output.size, in: Size(width: 800, height: 800), aspectOf: input.size)
    let (bytes, size) = try pixels(output, .rgb8)
    XCTAssertEqual(size, Size(width: 800, height: 525))
    for i in stride(from: 0, to: bytes.count, by: 3) where bytes[i] != bytes[i + 1] || bytes[i] != bytes[i + 2] {
      return XCTFail("pixel \(i / 3) is not gray: \(bytes[i..<i + 3])")
    }
    // Soft: the blur removes at least a tenth of the fine detail of the same recipe without its
    // blur line (this input is enlarged 3.5×, so it has little fine detail to start with: sigma 2
    // removes 17 %, sigma 1 only 7 %, sigma 0.1 none).
    // The output's gray levels are its RGB render's red bytes (all three are equal, checked above).
    let url = Repository.recipes.appendingPathComponent("warm-soft-gray.txt")
    let unblurredText = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
      .filter { !$0.hasPrefix("blur ") }.joined(separator: "\n")
    let unblurred = try Recipe.parse(unblurredText, file: "warm-soft-gray without its blur")
      .compile(input: input, context: FilterContext(baseDirectory: url.deletingLastPathComponent()))
    let sharp = try pixels(unblurred, .gray8).bytes
    XCTAssertEqual(sharp.count, bytes.count / 3)
    let soft = stride(from: 0, to: bytes.count, by: 3).map { bytes[$0] }
    func detail(_ b: [UInt8]) -> Int { (1..<b.count).reduce(0) { $0 + abs(Int(b[$1]) - Int(b[$1 - 1])) } }
    XCTAssertLessThan(detail(soft) * 10, detail(sharp) * 9)
  }

  func testWebReadyIs1600WideAndEncodesAsJPEGQuality82() throws {
    let input = try Image(contentsOf: Repository.url("samples/flower.jpg"))
    let output = try run("web-ready", on: input)
    XCTAssertEqual(output.size, Size(width: 1600, height: 1067))  // 1512 · 1600 / 2268 = 1066.7
    let jpeg = try renderer.encode(output, format: .jpeg, options: WriteOptions(options: ["quality": 82]))
    let header = try JPEGDecoder.readHeader(jpeg)
    XCTAssertEqual(header.size, Size(width: 1600, height: 1067))
  }

  /// thumbnail and web-ready never enlarge: a 227×149 photo keeps its size (and its pixels,
  /// apart from the sharpen), where `scale width=1600` alone would blow it up 7×.
  func testThumbnailAndWebReadyNeverEnlarge() throws {
    let input = try photo
    for name in ["thumbnail", "web-ready"] {
      let output = try run(name, on: input)
      XCTAssertEqual(output.size, input.size, name)
      XCTAssertFalse(GraphPrinter.describe(renderer.optimized(output)).contains("scale size="), name)
    }
  }

  func testSepiaVintageHasRedAtLeastGreenAtLeastBlueEverywhere() throws {
    let input = try photo
    let output = try run("sepia-vintage", on: input)
    let (bytes, size) = try pixels(output, .rgb8)
    XCTAssertEqual(size, input.size)
    var strictlyWarm = 0
    for i in stride(from: 0, to: bytes.count, by: 3) {
      let (r, g, b) = (bytes[i], bytes[i + 1], bytes[i + 2])
      if !(r >= g && g >= b) { return XCTFail("pixel \(i / 3) is \(r),\(g),\(b): not r ≥ g ≥ b") }
      if r > b { strictlyWarm += 1 }
    }
    XCTAssertGreaterThan(strictlyWarm, bytes.count / 3 * 9 / 10, "nearly every pixel is brown, not gray")
    // Faded: less contrast than plain sepia.
    let plain = try pixels(input.applyingColorMatrix(.sepia(intensity: 1), in: .encoded), .rgb8).bytes
    XCTAssertLessThan(Self.standardDeviation(bytes), Self.standardDeviation(plain))
  }

  func testIconTintKeepsTheAlphaChannelExactly() throws {
    let url = Repository.url("recipes/assets/icon.png")
    let icon = try Image(contentsOf: url)
    XCTAssertEqual(icon.size, Size(width: 64, height: 64))
    let output = try run("icon-tint", on: icon)
    let (before, size) = try pixels(icon, .rgba8)
    let (after, outSize) = try pixels(output, .rgba8)
    XCTAssertEqual(outSize, size)
    var painted = 0, partial = 0
    for i in stride(from: 0, to: after.count, by: 4) {
      XCTAssertEqual(after[i + 3], before[i + 3], "alpha of pixel \(i / 4)")
      if before[i + 3] == 0 { continue }
      if before[i + 3] < 255 { partial += 1 }
      // Every visible pixel is the tint #1E88E5 (rounding of un-premultiplying faint pixels aside).
      let tolerance = before[i + 3] >= 64 ? 1 : 4
      for (c, t) in zip(after[i..<i + 3], [0x1E, 0x88, 0xE5] as [Int]) { XCTAssertLessThanOrEqual(abs(Int(c) - t), tolerance) }
      painted += 1
    }
    XCTAssertGreaterThan(painted, 500)
    XCTAssertGreaterThan(partial, 50, "the icon's anti-aliased edges must be tested too")
  }

  func testIconTintOnAnIconThatIsScaledKeepsTheScaledAlpha() throws {
    // A 32×32 RGBA PNG is enlarged to 64×64: the tint changes no alpha value of the scaled image.
    let icon = try Image(contentsOf: Fixtures.url("pngsuite/basn6a08.png"))
    let output = try run("icon-tint", on: icon)
    XCTAssertEqual(output.size, Size(width: 64, height: 64))
    let scaled = try pixels(icon.scaled(toFit: Size(width: 64, height: 64)), .rgba8).bytes
    let tinted = try pixels(output, .rgba8).bytes
    for i in stride(from: 3, to: tinted.count, by: 4) where tinted[i] != scaled[i] {
      return XCTFail("alpha of pixel \(i / 4): \(tinted[i]) after the tint, \(scaled[i]) scaled only")
    }
  }

  func testWatermarkChangesOnlyTheSoutheastCorner() throws {
    let input = try photo
    let output = try run("watermark", on: input)
    XCTAssertEqual(output.size, input.size)
    let logo = try Image(contentsOf: Repository.url("recipes/assets/logo.png"))
    // width=15% of=input: the logo 15 % as wide as the photo, its shape kept; gravity=southeast
    // margin=2%: its bottom-right corner 2 % of the photo's shorter side in from the photo's.
    let width = Int((Double(input.size.width) * 0.15).rounded())
    let height = Int((Double(logo.size.height * width) / Double(logo.size.width)).rounded())
    let margin = Int((Double(min(input.size.width, input.size.height)) * 0.02).rounded())
    let region = Rect(
      x: input.size.width - margin - width, y: input.size.height - margin - height, width: width, height: height)
    let (marked, size) = try pixels(output, .rgb8)
    let (original, _) = try pixels(input, .rgb8)
    var changedInside = 0
    for y in 0..<size.height {
      for x in 0..<size.width {
        let i = (y * size.width + x) * 3
        let same = marked[i..<i + 3] == original[i..<i + 3]
        if region.contains(Rect(x: x, y: y, width: 1, height: 1)) {
          if !same { changedInside += 1 }
        } else if !same {
          return XCTFail("pixel (\(x), \(y)) outside the logo changed: \(original[i..<i + 3]) -> \(marked[i..<i + 3])")
        }
      }
    }
    XCTAssertGreaterThan(changedInside, region.width * region.height / 2, "the logo must be visible")
  }

  func testDocumentCleanupIsGrayWithMoreContrast() throws {
    let input = try photo
    let output = try run("document-cleanup", on: input)
    XCTAssertEqual(output.info.layout, .gray)
    XCTAssertEqual(output.size, input.size)
    let cleaned = try pixels(output, .gray8).bytes
    let gray = try pixels(input.converted(to: .gray), .gray8).bytes
    XCTAssertGreaterThan(Self.standardDeviation(cleaned), 1.3 * Self.standardDeviation(gray))
  }

  func testProductPhotoIsTheStretchedPhotoCentredOnAWhiteSquare() throws {
    let input = try photo  // 227×149
    let image = try run("product-photo", on: input)
    XCTAssertEqual(image.size, Size(width: 227, height: 227))
    let (bytes, _) = try pixels(image, .rgb8)
    // (227 − 149) / 2 = 39 white rows above, 39 below, the photo in between.
    func row(_ y: Int) -> ArraySlice<UInt8> { bytes[(3 * 227 * y)..<(3 * 227 * (y + 1))] }
    for y in Array(0..<39) + Array(188..<227) { XCTAssertTrue(row(y).allSatisfy { $0 == 255 }, "row \(y)") }
    let photoValues = Array(bytes[(3 * 227 * 39)..<(3 * 227 * 188)]).sorted()
    // The photo's 1st and 99th percentiles of its values are stretched to black and white.
    let low = photoValues[photoValues.count / 100], high = photoValues[photoValues.count * 99 / 100]
    XCTAssertLessThanOrEqual(low, 3)
    XCTAssertGreaterThanOrEqual(high, 252)
    let original = try pixels(input, .rgb8).bytes.sorted()
    XCTAssertGreaterThan(Int(original[original.count / 100]), 3, "the fixture should not already be stretched")
    // The same shot on a plain light-grey backdrop: trimmed back to the shot, the same listing.
    let shot = Image(buffer: try renderer.render(input, format: .rgb8))
    let backdrop = Color(white: 0.94)
    let staged = Image(buffer: try renderer.render(shot.extended(by: EdgeInsets(top: 40, right: 25, bottom: 90, left: 60), mode: .color(backdrop)), format: .rgb8))
    let listing = try run("product-photo", on: staged)
    let (staged8, stagedSize) = try pixels(listing, .rgb8)
    XCTAssertEqual(stagedSize, Size(width: 227, height: 227))
    XCTAssertEqual(staged8, try pixels(run("product-photo", on: shot), .rgb8).bytes)
  }

  func testSocialPreviewIsAVividCardOfTheMostInterestingBand() throws {
    let input = try Image(contentsOf: Repository.url("samples/flower.jpg"))  // 2268×1512
    let card = try run("social-preview", on: input)
    let expected = input.scaled(toWidth: 1200).smartCropped(to: Size(width: 1200, height: 630)).modulated(saturation: 1.15, lightness: 0.02)
    XCTAssertEqual(card.node.structuralKey, expected.node.structuralKey)
    let (bytes, size) = try pixels(card, .rgb8)
    XCTAssertEqual(size, Size(width: 1200, height: 630))
    // More vivid than the same window unmodulated: a larger mean spread between the channels.
    let plain = try pixels(input.scaled(toWidth: 1200).smartCropped(to: Size(width: 1200, height: 630)), .rgb8).bytes
    func spread(_ b: [UInt8]) -> Double {
      stride(from: 0, to: b.count, by: 3).reduce(0.0) { $0 + Double(max(b[$1], b[$1 + 1], b[$1 + 2]) - min(b[$1], b[$1 + 1], b[$1 + 2])) }
    }
    XCTAssertGreaterThan(spread(bytes), 1.05 * spread(plain))
  }

  func testGlowOnlyBrightens() throws {
    let input = try photo
    let output = try run("glow", on: input)
    XCTAssertEqual(output.size, input.size)
    let (glow, _) = try pixels(output, .rgb8)
    let (base, _) = try pixels(input, .rgb8)
    for i in glow.indices where Int(glow[i]) < Int(base[i]) - 1 {
      return XCTFail("value \(i) darkened from \(base[i]) to \(glow[i]); screen only brightens")
    }
    let gain = zip(glow, base).reduce(0.0) { $0 + Double($1.0) - Double($1.1) } / Double(glow.count)
    XCTAssertGreaterThan(gain, 5, "the glow must be visible")
  }
}
