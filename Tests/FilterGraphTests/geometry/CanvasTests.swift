// Tests of extend, pad and roundcorners against their definitions (Extend.swift, RoundCorners.swift).

import FilterGraph
import Foundation
import PixelBufferModule
import XCTest

final class CanvasTests: XCTestCase {
  typealias T = ResampleTestSupport
  typealias G = GeometryTestSupport

  /// A seeded random 16-bit RGBA image.
  func random16(width: Int, height: Int, seed: UInt64) -> Image {
    var state = seed
    var buffer = PixelBuffer(width: width, height: height, format: .rgba16)
    buffer.withUnsafeMutablePixels(as: UInt16.self) { px in
      for y in 0..<height {
        for x in 0..<(4 * width) {
          state = state &* 6364136223846793005 &+ 1442695040888963407
          px[row: y][x] = UInt16(truncatingIfNeeded: state >> 33)
        }
      }
    }
    return Image(buffer: buffer)
  }

  let modes: [ExtendMode] = [.color(Color(hex: "#FF000080")!), .color(.white), .copy, .mirror]

  func testExtendThenCropIsTheIdentity() throws {
    let insets = EdgeInsets(top: 7, right: 50, bottom: 3, left: 41)
    for image in [T.randomImage(width: 37, height: 23, alpha: true, seed: 3), random16(width: 37, height: 23, seed: 8)] {
      let format: PixelFormat = image.info.component == .uint16 ? .rgba16 : .rgba8
      let original = try T.single.render(image, format: format)
      for mode in modes {
        let extended = image.extended(by: insets, mode: mode)
        XCTAssertEqual(extended.size, Size(width: 37 + 91, height: 23 + 10))
        let back = extended.cropped(to: Rect(x: 41, y: 7, width: 37, height: 23))
        XCTAssertTrue(try T.fine.render(back, format: format).hasSamePixels(as: original), "\(mode) \(format)")
      }
    }
  }

  func testBorderFollowsTheMode() throws {
    let image = T.randomImage(width: 9, height: 5, seed: 11)
    let src = try T.bytes(image, format: .rgba8)
    func pixel(_ rows: [[UInt8]], _ x: Int, _ y: Int) -> [UInt8] { Array(rows[y][4 * x..<4 * x + 4]) }
    // Mirror, by walking: step from the edge back and forth, repeating the edge pixel at each turn.
    func bounce(_ i: Int, _ n: Int) -> Int {
      var p = 0, dir = 1
      var steps = i >= 0 ? i : -i - 1
      if i < 0 { dir = 1 }  // −1 reflects to 0, −2 to 1, …
      while steps > 0 {
        let next = p + dir
        if next < 0 || next >= n { dir = -dir } else { p = next }
        steps -= 1
      }
      return p
    }
    let insets = EdgeInsets(top: 12, right: 20, bottom: 6, left: 19)
    let copy = try T.bytes(image.extended(by: insets, mode: .copy), format: .rgba8)
    let mirror = try T.bytes(image.extended(by: insets, mode: .mirror), format: .rgba8)
    let colour = try T.bytes(image.extended(by: insets, mode: .color(Color(hex: "#336699")!)), format: .rgba8)
    for y in 0..<(5 + 18) {
      for x in 0..<(9 + 39) {
        let ix = x - 19, iy = y - 12
        let inside = (0..<9).contains(ix) && (0..<5).contains(iy)
        XCTAssertEqual(pixel(copy, x, y), pixel(src, min(max(ix, 0), 8), min(max(iy, 0), 4)), "copy (\(x), \(y))")
        XCTAssertEqual(pixel(mirror, x, y), pixel(src, bounce(ix, 9), bounce(iy, 5)), "mirror (\(x), \(y))")
        XCTAssertEqual(pixel(colour, x, y), inside ? pixel(src, ix, iy) : [0x33, 0x66, 0x99, 255], "color (\(x), \(y))")
      }
    }
  }

  func testLayoutAndTiling() throws {
    let gray = Image(color: Color(white: 0.3), size: Size(width: 30, height: 20)).converted(to: .gray)
    XCTAssertEqual(gray.extended(by: EdgeInsets(all: 2), mode: .color(.white)).info.layout, .gray)
    XCTAssertEqual(gray.extended(by: EdgeInsets(all: 2), mode: .color(Color(hex: "#FF0000")!)).info.layout, .rgb)
    XCTAssertEqual(gray.extended(by: EdgeInsets(all: 2), mode: .color(.clear)).info.layout, .grayAlpha)
    XCTAssertTrue(gray.extended(by: EdgeInsets(), mode: .mirror).node === gray.node)
    let image = T.randomImage(width: 70, height: 45, alpha: true, seed: 6)
    for mode in modes {
      try G.assertTilingInvariant(image.extended(by: EdgeInsets(top: 100, right: 3, bottom: 40, left: 150), mode: mode).scaled(by: 0.7))
    }
  }

  func testPadPlacesTheImageByGravity() throws {
    let image = T.randomImage(width: 40, height: 30, seed: 12)
    let padded = image.padded(to: Size(width: 64, height: 50), gravity: .southEast, color: .white)
    XCTAssertEqual(padded.size, Size(width: 64, height: 50))
    try G.assertSamePixels(padded.cropped(to: Rect(x: 24, y: 20, width: 40, height: 30)), image)
    let px = try T.bytes(padded, format: .rgb8)
    XCTAssertEqual(Array(px[0][0..<3]), [255, 255, 255])
    XCTAssertEqual(Array(px[19][3 * 63..<3 * 64]), [255, 255, 255])
    // Centred, rounding down: (64 − 40)/2 = 12, (51 − 30)/2 = 10.
    try G.assertSamePixels(image.padded(to: Size(width: 64, height: 51)).cropped(to: Rect(x: 12, y: 10, width: 40, height: 30)), image)
    // Smaller than the image on one axis: that axis is cut like a centred crop.
    let square = image.padded(to: Size(width: 30, height: 30), color: .white)
    XCTAssertEqual(square.size, Size(width: 30, height: 30))
    try G.assertSamePixels(square, image.cropped(to: Rect(x: 5, y: 0, width: 30, height: 30)))
    // A square as wide as the longer side, the image centred on it.
    let squared = image.paddedToSquare(color: .white)
    XCTAssertEqual(squared.size, Size(width: 40, height: 40))
    try G.assertSamePixels(squared.cropped(to: Rect(x: 0, y: 5, width: 40, height: 30)), image)
    let band = try T.bytes(squared, format: .rgb8)
    XCTAssertEqual(Array(band[4][0..<3]), [255, 255, 255])
    XCTAssertEqual(Array(band[35][3 * 39..<3 * 40]), [255, 255, 255])
    try G.assertTilingInvariant(T.randomImage(width: 150, height: 60, alpha: true, seed: 5).paddedToSquare(gravity: .south, color: Color(hex: "#00FF0080")!))
    // The placement follows the input it is given, not the size seen when the node was built.
    let op = try XCTUnwrap(squared.node.operation as? PadOperation)
    let info = ImageInfo(size: Size(width: 10, height: 50), layout: .rgb, component: .uint8, colorSpace: .sRGB)
    XCTAssertEqual(op.outputInfo(inputs: [info]).size, Size(width: 50, height: 50))
    XCTAssertEqual(op.origin(for: info.size), Point(x: 20, y: 0))
  }

  func testRoundCornersCoverage() throws {
    let image = Image(color: Color(hex: "#4080C0")!, size: Size(width: 40, height: 30))
    let radius = 9.5
    let rounded = image.roundingCorners(radius: radius)
    XCTAssertEqual(rounded.info.layout, .rgba)
    let px = try T.bytes(rounded, format: .rgba8)
    for y in 0..<30 {
      for x in 0..<40 {
        // The nearest point of the inner rectangle [r, w − r] × [r, h − r] to the pixel's centre.
        let cx = min(max(Double(x) + 0.5, radius), 40 - radius), cy = min(max(Double(y) + 0.5, radius), 30 - radius)
        let d = hypot(Double(x) + 0.5 - cx, Double(y) + 0.5 - cy)
        let coverage = min(max(radius + 0.5 - d, 0), 1)
        XCTAssertEqual(Double(px[y][4 * x + 3]), (coverage * 255).rounded(), accuracy: 1, "(\(x), \(y))")
        if coverage > 0.2 { XCTAssertEqual(Array(px[y][4 * x..<4 * x + 3]), [0x40, 0x80, 0xC0], "(\(x), \(y))") }
      }
    }
    XCTAssertEqual(px[0][3], 0)
    XCTAssertEqual(px[15][3], 255)
    // A radius larger than half the shorter side is clamped: a stadium, still opaque in the middle.
    let stadium = try T.bytes(image.roundingCorners(radius: 1000), format: .rgba8)
    XCTAssertEqual(stadium[15][4 * 20 + 3], 255)
    XCTAssertEqual(stadium[0][4 * 20 + 3], 255)
    XCTAssertEqual(stadium[0][3], 0)
    try G.assertTilingInvariant(T.randomImage(width: 150, height: 90, alpha: true, seed: 4).roundingCorners(radius: 33.3))
  }

  func testVerbsBuildTheSwiftGraph() throws {
    let image = T.randomImage(width: 30, height: 20)
    func same(_ recipe: String, _ swift: Image, line: UInt = #line) throws {
      XCTAssertEqual(G.signature(try G.compile(recipe, input: image).node), G.signature(swift.node), line: line)
    }
    try same("extend top=1 right=2 bottom=3 left=4 color=white", image.extended(by: EdgeInsets(top: 1, right: 2, bottom: 3, left: 4), mode: .color(.white)))
    try same("extend left=4 mode=mirror", image.extended(by: EdgeInsets(left: 4), mode: .mirror))
    try same("extend top=9 mode=copy", image.extended(by: EdgeInsets(top: 9), mode: .copy))
    try same("pad size=50x50 gravity=north color=#FFFFFF", image.padded(to: Size(width: 50, height: 50), gravity: .north, color: .white))
    try same("roundcorners 6", image.roundingCorners(radius: 6))
    try same("pad square=true gravity=west color=white", image.paddedToSquare(gravity: .west, color: .white))
    XCTAssertThrowsError(try G.compile("pad color=white", input: image))
    XCTAssertThrowsError(try G.compile("pad size=10x10 square=true", input: image))
  }
}
