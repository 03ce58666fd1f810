// OptionTests.swift — every URL option against the same operation done through the library:
// the server's PNG and the library's PNG of the expected graph decode to identical pixels.

import FilterGraph
import Foundation
import ImageCodecs
import TestSupport
import XCTest

@testable import ImageServer

final class OptionTests: XCTestCase {
  private var folder: ServedFolder!
  private var running: RunningServer!
  private var recipes: URL!

  override func setUp() async throws {
    folder = try ServedFolder()
    // A source with a flat white border, for trim.
    let photo = try Image(contentsOf: folder.url("photo.jpg"))
    let bordered = photo.extended(by: EdgeInsets(top: 7, right: 11, bottom: 5, left: 3), mode: .color(.white))
    try await Renderer().write(bordered, to: folder.url("bordered.png"))
    recipes = folder.root.deletingLastPathComponent().appendingPathComponent("recipes")
    try FileManager.default.createDirectory(at: recipes, withIntermediateDirectories: true)
    try "scale fit=64x64\nsharpen sigma=0.5\n".write(to: recipes.appendingPathComponent("thumb.txt"), atomically: true, encoding: .utf8)
    running = try await RunningServer.start(root: folder.root) { c in
      c.recipesDirectory = self.recipes
      c.watermarkFile = Fixtures.url("pngsuite/basn6a08.png")
    }
  }

  override func tearDown() async throws {
    try await running.stop()
  }

  /// The server's answer to `options` on `file` (as PNG) equals `expected` encoded by the library.
  private func assertOption(
    _ options: String, file name: String = "photo.jpg", expectedSize: Size? = nil, file: StaticString = #filePath, line: UInt = #line,
    _ expected: (Image) throws -> Image
  ) async throws {
    let response = try await running.get("/_/\(options)/plain/local:///\(name)@png")
    XCTAssertEqual(response.status, 200, "\(options): \(response.text)", file: file, line: line)
    guard response.status == 200 else { return }
    var write = WriteOptions(format: .png)
    write.keptMetadata = .icc
    let reference = try await Renderer().encode(try expected(try Image(contentsOf: folder.url(name))), format: .png, options: write)
    let (gotSize, got) = try decodedPixels(response.body)
    let (wantSize, want) = try decodedPixels(reference)
    XCTAssertEqual(gotSize, wantSize, "\(options): size", file: file, line: line)
    if let expectedSize { XCTAssertEqual(gotSize, expectedSize, "\(options): size", file: file, line: line) }
    XCTAssertTrue(got == want, "\(options): pixels differ from the library's", file: file, line: line)
  }

  func testResizeFit() async throws {
    try await assertOption("rs:fit:100:80", expectedSize: Size(width: 100, height: 66)) { $0.scaled(toFit: Size(width: 100, height: 80)) }
    try await assertOption("resize:fit:100:80") { $0.scaled(toFit: Size(width: 100, height: 80)) }
    try await assertOption("w:100") { $0.scaled(toWidth: 100) }
    try await assertOption("h:40") { $0.scaled(toHeight: 40) }
    try await assertOption("width:100/height:40") { $0.scaled(toFit: Size(width: 100, height: 40)) }
  }

  func testResizeFillAndGravity() async throws {
    try await assertOption("rs:fill:60:60", expectedSize: Size(width: 60, height: 60)) { $0.scaled(toFill: Size(width: 60, height: 60)) }
    // 227×149 covering 60×60 is 91×60; north-west keeps the left edge.
    try await assertOption("rs:fill:60:60/g:nowe") {
      $0.scaled(to: Size(width: 91, height: 60)).cropped(to: Size(width: 60, height: 60), gravity: .northWest)
    }
    try await assertOption("rt:fill/s:60:60/gravity:ea") {
      $0.scaled(to: Size(width: 91, height: 60)).cropped(to: Size(width: 60, height: 60), gravity: .east)
    }
    try await assertOption("rs:fill:50:50/g:sm") { $0.scaled(to: Size(width: 76, height: 50)).smartCropped(to: Size(width: 50, height: 50)) }
    try await assertOption("rs:auto:100:50") { $0.scaled(toFill: Size(width: 100, height: 50)) }
    try await assertOption("rs:auto:50:100") { $0.scaled(toFit: Size(width: 50, height: 100)) }
  }

  func testFillDownAndForceAndEnlarge() async throws {
    // A 227×149 source asked for 400×400 without enlarging: the largest square it holds.
    try await assertOption("rs:fill-down:400:400", expectedSize: Size(width: 149, height: 149)) {
      $0.cropped(to: Size(width: 149, height: 149), gravity: .center)
    }
    try await assertOption("rs:force:50:70", expectedSize: Size(width: 50, height: 70)) { $0.scaled(to: Size(width: 50, height: 70)) }
    try await assertOption("s:500:500", expectedSize: Size(width: 227, height: 149)) { $0 }
    try await assertOption("s:500:500:1") { $0.scaled(toFit: Size(width: 500, height: 500)) }
    try await assertOption("rs:fit:454:0/el:1", expectedSize: Size(width: 454, height: 298)) { $0.scaled(toWidth: 454) }
  }

  func testDevicePixelRatio() async throws {
    try await assertOption("w:50/dpr:2", expectedSize: Size(width: 100, height: 66)) { $0.scaled(toWidth: 100) }
  }

  func testExtend() async throws {
    try await assertOption("s:300:200:0:1", expectedSize: Size(width: 300, height: 200)) {
      $0.padded(to: Size(width: 300, height: 200), gravity: .center, color: .clear)
    }
    try await assertOption("s:300:200/ex:1:so/bg:00ff00") {
      $0.padded(to: Size(width: 300, height: 200), gravity: .south, color: Color(red: 0, green: 1, blue: 0)).flattened(onto: Color(red: 0, green: 1, blue: 0))
    }
  }

  func testCrop() async throws {
    try await assertOption("c:100:80:soea", expectedSize: Size(width: 100, height: 80)) { $0.cropped(to: Size(width: 100, height: 80), gravity: .southEast) }
    try await assertOption("crop:0.5:0.5") { $0.cropped(to: Size(width: 114, height: 75), gravity: .center) }
    try await assertOption("c:100:80/g:no:5:3") { $0.cropped(to: Size(width: 100, height: 80), gravity: .north, x: 5, y: 3) }
    try await assertOption("c:60:60:sm") { $0.smartCropped(to: Size(width: 60, height: 60)) }
    try await assertOption("c:100:100:fp:0:0") { $0.cropped(to: Rect(x: 0, y: 0, width: 100, height: 100)) }
  }

  func testTrim() async throws {
    try await assertOption("t:10:ffffff", file: "bordered.png") { $0.trimmed(threshold: 10.0 / 255, background: .white) }
    let trimmed = try await running.get("/_/t:10:ffffff/plain/local:///bordered.png@png")
    XCTAssertEqual(try decodedPixels(trimmed.body).0, Size(width: 227, height: 149), "the border is gone")
  }

  func testRotate() async throws {
    try await assertOption("rot:90", expectedSize: Size(width: 149, height: 227)) { $0.oriented(.right) }
    try await assertOption("rotate:180") { $0.oriented(.down) }
    try await assertOption("rot:-90") { $0.oriented(.left) }
  }

  func testBlurAndSharpen() async throws {
    try await assertOption("bl:2") { $0.blurred(sigma: 2) }
    try await assertOption("sh:1.5") { $0.sharpened(sigma: 1.5) }
    try await assertOption("w:100/blur:1/sharpen:0.7") { $0.scaled(toWidth: 100).blurred(sigma: 1).sharpened(sigma: 0.7) }
  }

  func testBackgroundAndPadding() async throws {
    try await assertOption("bg:ff0000", file: "alpha.png") { $0.flattened(onto: Color(red: 1, green: 0, blue: 0)) }
    try await assertOption("bg:0:0:255", file: "alpha.png") { $0.flattened(onto: Color(red: 0, green: 0, blue: 1)) }
    try await assertOption("pd:5:10", expectedSize: Size(width: 247, height: 159)) {
      $0.extended(by: EdgeInsets(top: 5, right: 10, bottom: 5, left: 10), mode: .color(.clear))
    }
    try await assertOption("padding:1:2:3:4/dpr:2") { $0.extended(by: EdgeInsets(top: 2, right: 4, bottom: 6, left: 8), mode: .color(.clear)) }
  }

  func testWatermark() async throws {
    let mark = try Image(contentsOf: Fixtures.url("pngsuite/basn6a08.png"))
    try await assertOption("wm:0.5:soea:10:10") { $0.overlaid(with: mark, gravity: .southEast, offset: Point(x: 10, y: 10), opacity: 0.5) }
    try await assertOption("wm:1:ce:0:0:0.5") { $0.overlaid(with: mark.scaled(toWidth: 114), gravity: .center, opacity: 1) }
  }

  func testRecipe() async throws {
    try await assertOption("recipe:thumb") { $0.scaled(toFit: Size(width: 64, height: 64)).sharpened(sigma: 0.5) }
  }

  func testQualityAndFormat() async throws {
    let jpeg = try await running.get("/_/q:50/plain/local:///photo.jpg@jpg")
    XCTAssertEqual(jpeg.headers["content-type"], "image/jpeg")
    var write = WriteOptions(format: .jpeg, options: ["quality": .integer(50)])
    write.keptMetadata = .icc
    let reference = try await Renderer().encode(try Image(contentsOf: folder.url("photo.jpg")), format: .jpeg, options: write)
    XCTAssertEqual(jpeg.body, reference, "q:50 gives the library's quality-50 JPEG byte for byte")
    let webp = try await running.get("/_/f:webp/plain/local:///photo.jpg")
    XCTAssertEqual(webp.headers["content-type"], "image/webp")
    XCTAssertEqual(ImageFileFormat.sniff(Array(webp.body)), .webp)
  }

  func testStripMetadata() async throws {
    let stripped = try await running.get("/_/w:20/plain/local:///exif.jpg@jpg")
    XCTAssertNil(FileStructure.jpegEXIF(stripped.body), "metadata is stripped by default, as imgproxy does")
    let kept = try await running.get("/_/w:20/sm:0/plain/local:///exif.jpg@jpg")
    XCTAssertNotNil(FileStructure.jpegEXIF(kept.body), "strip_metadata:0 keeps EXIF")
  }

  func testBadOptionsAreNamed() async throws {
    let cases: [(String, String)] = [
      ("frobnicate:1", "'frobnicate'"), ("bl:abc", "Option 'bl'"), ("rs:squash:10:10", "resizing type 'squash'"),
      ("rot:45", "multiples of 90"), ("g:up", "gravity 'up'"), ("wm:0.5:re", "position 're'"), ("recipe:missing", "no recipe 'missing'"),
      ("t:10:fff:1", "equal_hor"), ("q:101", "Option 'q'"),
    ]
    for (options, needle) in cases {
      let response = try await running.get("/_/\(options)/plain/local:///photo.jpg@png")
      XCTAssertEqual(response.status, 400, options)
      XCTAssertTrue(response.text.contains(needle), "\(options): \(response.text)")
      XCTAssertFalse(response.text.contains("Swift") || response.text.contains(".swift"), "no trace in \(response.text)")
    }
    XCTAssertEqual(running.server.renderCount, 0, "a bad URL renders nothing")
  }
}
