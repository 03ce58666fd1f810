// BackgroundOptionTests.swift — fgrun flattens alpha onto --background (default white) for an
// output format without alpha, and `explain` shows the step.
import FilterGraph
import Foundation
import PixelBufferModule
import TestSupport
import XCTest

extension FGRunTests {
  func testAlphaIsFlattenedOntoTheBackgroundForJPEG() throws {
    // Left half opaque blue; right half red at alpha 0 (hidden) and, below, red at alpha 128.
    var rgba = try PixelBuffer.allocate(width: 32, height: 16, format: .rgba8, colorSpace: .sRGB)
    rgba.withUnsafeMutablePixels(as: UInt8.self) { px in
      for y in 0..<16 {
        for x in 0..<32 {
          let pixel: [UInt8] = x < 16 ? [0, 0, 255, 255] : (y < 8 ? [255, 0, 0, 0] : [255, 0, 0, 128])
          for c in 0..<4 { px[row: y][4 * x + c] = pixel[c] }
        }
      }
    }
    try Renderer().write(Image(buffer: rgba), to: file("rgba.png"))
    func pixel(_ name: String, _ x: Int, _ y: Int) throws -> [UInt8] {
      let out = try Renderer().render(try Image(contentsOf: file(name)), format: .rgb8)
      return out.withUnsafePixels(as: UInt8.self) { px in (0..<3).map { px[row: y][3 * x + $0] } }
    }
    func close(_ a: [UInt8], _ b: [Int], _ what: String) {
      for k in 0..<3 { XCTAssertEqual(Double(a[k]), Double(b[k]), accuracy: 4, "\(what): \(a) vs \(b)") }
    }
    XCTAssertEqual(try fgrun(["-e", "orient", "rgba.png", "white.jpg"]).status, 0)
    close(try pixel("white.jpg", 24, 3), [255, 255, 255], "hidden red over the default white")
    // Half red over white in linear light: red 1, green and blue 1 − 128/255 (linear), encoded.
    let half = 1.055 * pow(1 - 128.0 / 255, 1 / 2.4) - 0.055
    close(try pixel("white.jpg", 24, 12), [255, Int((half * 255).rounded()), Int((half * 255).rounded())], "half red over white")
    close(try pixel("white.jpg", 4, 4), [0, 0, 255], "opaque blue")
    XCTAssertEqual(try fgrun(["-e", "orient", "rgba.png", "black.jpg", "--background", "black"]).status, 0)
    close(try pixel("black.jpg", 24, 3), [0, 0, 0], "hidden red over black")
    XCTAssertEqual(try fgrun(["-e", "orient", "rgba.png", "x.jpg", "--background", "notacolour"]).status, 64)
    // PNG keeps alpha: nothing is flattened.
    XCTAssertEqual(try fgrun(["-e", "orient", "rgba.png", "kept.png"]).status, 0)
    XCTAssertEqual(try Image(contentsOf: file("kept.png")).info.layout, .rgba)

    let explained = try fgrun(["explain", "-e", "orient", "rgba.png", "--format", "jpeg", "--background", "#102030"])
    XCTAssertEqual(explained.status, 0, explained.stderr)
    XCTAssertTrue(explained.text.contains("flatten color=#102030"), explained.text)
    XCTAssertTrue(explained.text.contains("output alpha: jpeg stores none"), explained.text)
    XCTAssertFalse(try fgrun(["explain", "-e", "orient", "rgba.png"]).text.contains("flatten"))
  }
}
