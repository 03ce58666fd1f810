// FilterDefaultsTests.swift — every registered filter's table defaults are its Swift API's defaults.
//
// For each definition in `FilterRegistry.all`, a recipe line giving only what the verb requires
// is compiled on a real photo (the IJG test image, 227×149), and the public Swift method the
// verb stands for is called on the same photo with only its required arguments. Both must build
// the same graph: the same structural key (the cache key), which spells every operation and
// every argument value. So a default that differs between a table row and a Swift default
// argument (or a verb that builds its graph some other way than its Swift method) fails here,
// named, with both keys. A filter registered without an entry below fails too: a new filter
// states its Swift counterpart here.

import Foundation
import TestSupport
import XCTest

@testable import FilterGraph

final class FilterDefaultsTests: XCTestCase {
  /// The second image a verb may need (`load`), in the context's folder.
  static let secondImage = "basn6a08.png"

  /// Per filter: the recipe line with only its required parameters, and the Swift call with only
  /// its required arguments, on the photo. Where a Swift method requires what the verb makes
  /// optional (`orient`'s orientation, `extend`'s margins), the call passes the table's default
  /// and the line names it in `because`. A line that sets a parameter the verb does not require
  /// does so only so that the other defaults show in the graph (`extend top=5`: with no margins
  /// the image is returned as it is, and the fill's default would not be compared).
  static let entries: [String: (line: String, swift: @Sendable (Image) throws -> Image)] = [
    "load": ("load path=\(secondImage)", { _ in try Image(contentsOf: Fixtures.url("pngsuite/\(secondImage)")) }),
    "solid": ("solid size=32x16", { _ in Image(size: Size(width: 32, height: 16)) }),
    "text": ("text string=Hi size=12", { _ in try Image(text: "Hi", size: 12) }),
    "scale": ("scale fit=100x100", { $0.scaled(toFit: Size(width: 100, height: 100)) }),
    "blur": ("blur sigma=2", { $0.blurred(sigma: 2) }),
    "boxblur": ("boxblur radius=3", { $0.boxBlurred(radius: 3) }),
    "sharpen": ("sharpen", { $0.sharpened() }),
    "median": ("median", { $0.median() }),
    "convolve": (
      "convolve size=3x3 values=0,-1,0,-1,5,-1,0,-1,0",
      { $0.convolved(with: try ConvolutionKernel(size: Size(width: 3, height: 3), values: [0, -1, 0, -1, 5, -1, 0, -1, 0])) }
    ),
    "tint": ("tint color=#FF8000", { $0.tinted(try Color(string: "#FF8000")) }),
    "convert": ("convert to=gray", { $0.converted(to: .gray) }),
    "matrix": (
      "matrix values=1,0,0,0,0,0,1,0,0,0,0,0,1,0,0,0,0,0,1,0",
      { $0.applyingColorMatrix(try XCTUnwrap(ColorMatrix(values: [1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0]))) }
    ),
    "sepia": ("sepia", { $0.sepiaToned() }),
    "saturate": ("saturate", { $0.adjustingSaturation() }),
    "brightness": ("brightness", { $0.adjustingBrightness() }),
    "contrast": ("contrast", { $0.adjustingContrast() }),
    "exposure": ("exposure", { $0.adjustingExposure() }),
    "gamma": ("gamma", { $0.adjustingGamma() }),
    "invert": ("invert", { $0.inverted() }),
    "modulate": ("modulate", { $0.modulated() }),
    "levels": ("levels", { $0.leveled() }),
    "curves": (
      "curves points=0:0,0.5:0.6,1:1", { $0.applyingCurve([CurvePoint(0, 0), CurvePoint(0.5, 0.6), CurvePoint(1, 1)]) }
    ),
    "normalize": ("normalize", { $0.normalized() }),
    "vignette": ("vignette", { $0.vignetted() }),
    "grain": ("grain", { $0.grained() }),
    "crop": ("crop size=100x50", { $0.cropped(to: Size(width: 100, height: 50)) }),
    "rotate": ("rotate angle=12.5", { $0.rotated(byDegrees: 12.5) }),
    "affine": ("affine matrix=1,0.3,0,1", { try $0.transformed(by: AffineMatrix(a: 1, b: 0.3, c: 0, d: 1)) }),
    "extend": ("extend top=5", { $0.extended(by: EdgeInsets(top: 5)) }),
    "pad": ("pad size=300x200", { $0.padded(to: Size(width: 300, height: 200)) }),
    "roundcorners": ("roundcorners radius=24", { $0.roundingCorners(radius: 24) }),
    "trim": ("trim", { $0.trimmed() }),
    "smartcrop": ("smartcrop size=100x100", { $0.smartCropped(to: Size(width: 100, height: 100)) }),
    "flip": ("flip", { $0.flippedHorizontally() }),
    "orient": ("orient", { $0.oriented(.up) }),
    "composite": ("composite over=input", { $0.composited(over: $0) }),
    "blend": ("blend input", { $0.composited(over: $0) }),
    "flatten": ("flatten", { $0.flattened() }),
    "mask": ("mask with=input", { $0.masked(by: $0) }),
    "shadow": ("shadow", { $0.shadowed() }),
  ]

  /// Where a Swift call passes a value the verb has as a default, with why.
  static let because: [String: String] = [
    "orient": "oriented(_:) has no default orientation; .up is the table's orientation=1",
    "extend": "extended(by:) takes its margins as one EdgeInsets; EdgeInsets(top: 5) is top=5 with the table's 0 elsewhere",
  ]

  func testEveryRegisteredFilterHasTheSwiftAPIsDefaults() throws {
    let photo = try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg"))
    let context = FilterContext(baseDirectory: Fixtures.url("pngsuite"))
    let registered = Set(FilterRegistry.all.map(\.descriptor.name))
    let missing = registered.subtracting(Self.entries.keys).sorted()
    XCTAssertEqual(missing, [], "registered filters without an entry in FilterDefaultsTests.entries: \(missing)")
    let stale = Set(Self.entries.keys).subtracting(registered).sorted()
    XCTAssertEqual(stale, [], "entries for filters that are not registered: \(stale)")
    XCTAssertEqual(Set(Self.because.keys).subtracting(Self.entries.keys), [])

    var compared = 0
    for definition in FilterRegistry.all {
      let name = definition.descriptor.name
      guard let entry = Self.entries[name] else { continue }
      let recipe = try Recipe.parse(entry.line, file: name).compile(input: photo, context: context)
      let swift = try entry.swift(photo)
      XCTAssertEqual(
        recipe.node.structuralKey, swift.node.structuralKey,
        "\(name): '\(entry.line)' builds a different graph from its Swift call with defaults")
      compared += 1
    }
    XCTAssertEqual(compared, FilterRegistry.all.count)
  }

  /// The check is not vacuous: filters with different arguments give different keys.
  func testADifferentArgumentGivesADifferentKey() throws {
    let photo = try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg"))
    let context = FilterContext(baseDirectory: Fixtures.url("pngsuite"))
    let recipe = try Recipe.parse("saturate", file: "saturate").compile(input: photo, context: context)
    XCTAssertNotEqual(recipe.node.structuralKey, photo.adjustingSaturation(1.3).node.structuralKey)
    XCTAssertNotEqual(recipe.node.structuralKey, photo.adjustingSaturation(in: .linear).node.structuralKey)
  }
}
