// RecipeParserTests.swift — the recipe language: grammar, values, names, and error reports.
//
// Filters other branches provide (scale, blur, tint, blend, composite, convert) are played here
// by stand-ins with the parameter shapes those filters publish; their `apply` wraps the inputs in
// a `StandInOperation` so the tests can read back exactly which inputs and arguments each
// statement was applied with.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class RecipeParserTests: XCTestCase {
  let input = Image(color: Color(white: 0.5), size: Size(width: 40, height: 30))
  var context: FilterContext { FilterContext(baseDirectory: URL(fileURLWithPath: NSTemporaryDirectory())) }

  private func compile(_ text: String, file: String? = "test.txt", context: FilterContext? = nil) throws -> Image {
    try Recipe.parse(text, file: file).compile(input: input, context: context ?? self.context, filters: RecipeStandIns.filters)
  }

  private func graph(_ text: String) throws -> String { RecipeStandIns.signature(try compile(text).node) }

  /// The full diagnostic a recipe produces (parse or compile), or a failure.
  private func diagnostic(_ text: String, file: String? = "test.txt", context: FilterContext? = nil, line: UInt = #line) -> String {
    do {
      _ = try compile(text, file: file, context: context)
      XCTFail("expected an error for:\n\(text)", line: line)
      return ""
    } catch let error as RecipeError {
      return error.description
    } catch {
      XCTFail("expected a RecipeError, got \(error)", line: line)
      return ""
    }
  }

  // MARK: - Grammar

  func testChainAppliesEachLineToThePreviousResult() throws {
    let text = """
      # thumbnail.txt — fit in 800×800, warm it a little, soften
      scale fit=800x800
      tint color=#FF8000 amount=0.3

      blur sigma=2
      convert to=gray
      """
    XCTAssertEqual(
      try graph(text),
      "convert(to=gray dither=false levels=256)[blur(sigma=2)[tint(color=#FF8000 amount=0.3)"
        + "[scale(fit=800x800 kernel=lanczos3)[solid(color=#808080 size=40x30)]]]]")
  }

  func testNamedNodesWithOfPositionalNamesAndImageParameters() throws {
    let folder = try temporaryFolder()
    try FileManager.default.copyItem(at: Fixtures.url("pngsuite/basn2c08.png"), to: folder.appendingPathComponent("logo.png"))
    let text = """
      base = input
      soft = blur sigma=3 of=base
      glow = blend mode=screen soft base opacity=0.4
      logo = load path=logo.png
      output = composite logo over=glow gravity=southeast margin=24
      """
    let image = try compile(text, context: FilterContext(baseDirectory: folder))
    let solid = "solid(color=#808080 size=40x30)"
    XCTAssertEqual(
      RecipeStandIns.signature(image.node),
      "composite(over=glow gravity=southeast margin=24)[load(path=logo.png), "
        + "blend(mode=screen opacity=0.4)[blur(sigma=3)[\(solid)], \(solid)]]")
    // `base` and `input` are one node: the graph shares it rather than copying it.
    let blend = image.node.inputs[1]
    XCTAssertTrue(blend.inputs[1] === input.node)
    XCTAssertTrue(blend.inputs[0].inputs[0] === input.node)
  }

  func testOutputNodeIsTheResultEvenWhenNotLast() throws {
    XCTAssertEqual(try graph("output = blur sigma=2\nother = rotate 90 of=output"), "blur(sigma=2)[solid(color=#808080 size=40x30)]")
    XCTAssertTrue(try compile("output = input").node === input.node)
  }

  func testAnAliasIsTheSameNode() throws {
    let image = try compile("a = blur sigma=4\nb = a")
    XCTAssertEqual(image.node.operation.descriptor.name, "blur")
  }

  func testSemicolonsSeparateStatementsAndPositionalValuesFillTheFirstParameter() throws {
    XCTAssertEqual(
      try graph("scale 0.5; blur 2 ; rotate 90"),
      try graph("scale factor=0.5\nblur sigma=2\nrotate angle=90"))
    XCTAssertEqual(try graph("flip vertical"), try graph("flip axis=vertical"))
  }

  func testRecipeBuildsTheSameGraphAsTheSwiftAPI() throws {
    let recipe = try compile("rotate 90\nflip vertical\norient 6")
    let swift = input.rotated(byDegrees: 90).flippedVertically().oriented(.right)
    XCTAssertEqual(RecipeStandIns.signature(recipe.node), RecipeStandIns.signature(swift.node))
    XCTAssertEqual(recipe.size, swift.size)
  }

  func testAMultiInputFilterInAChainTakesThePreviousResultFirst() throws {
    XCTAssertEqual(
      try graph("base = input\nblur sigma=2\nblend mode=multiply base"),
      "blend(mode=multiply opacity=1)[blur(sigma=2)[solid(color=#808080 size=40x30)], solid(color=#808080 size=40x30)]")
  }

  func testCommentsBlankLinesCRLFAndColorsStartingWithHash() throws {
    let text = "# header\r\n\r\n   # indented comment\r\ntint #F80 amount=30% # warm it\r\nblur sigma=2 #soften\r\n"
    XCTAssertEqual(
      try graph(text), "blur(sigma=2)[tint(color=#FF8800 amount=0.3)[solid(color=#808080 size=40x30)]]")
  }

  func testNameEqualsWithoutSpaces() throws {
    XCTAssertEqual(try graph("soft=blur sigma=3\noutput=rotate 180 of=soft"), try graph("soft = blur sigma = 3\noutput = rotate 180 of = soft"))
  }

  // MARK: - Values

  func testValueKinds() throws {
    XCTAssertEqual(try graph("scale fit=800×600"), try graph("scale fit=800x600"))
    XCTAssertEqual(try graph("scale fit=800X600"), try graph("scale fit=800x600"))
    XCTAssertEqual(try graph("tint color=#FF800080"), "tint(color=#FF800080 amount=0.5)[solid(color=#808080 size=40x30)]")
    XCTAssertEqual(try graph("tint orange"), "tint(color=#FFA500 amount=0.5)[solid(color=#808080 size=40x30)]")
    XCTAssertEqual(try graph("tint #fff amount=1"), "tint(color=#FFFFFF amount=1)[solid(color=#808080 size=40x30)]")
    XCTAssertEqual(try graph("convert gray dither=yes levels=16"), "convert(to=gray dither=true levels=16)[solid(color=#808080 size=40x30)]")
    XCTAssertEqual(try graph("convert GRAY dither=off"), "convert(to=gray dither=false levels=256)[solid(color=#808080 size=40x30)]")
    XCTAssertEqual(try graph("scale 2.5e-1"), "scale(factor=0.25 kernel=lanczos3)[solid(color=#808080 size=40x30)]")
    XCTAssertEqual(try compile("convert gray weights=0.2,0.7,0.1").node.operation.arguments["weights"], .numbers([0.2, 0.7, 0.1]))
    XCTAssertTrue(diagnostic("convert gray weights=1,2").contains("weights has 2 numbers; expected exactly 3"))
    XCTAssertTrue(diagnostic("convert gray weights=1,x,2").contains("'1,x,2' is not a list of numbers"))
    let composite = try compile("b = input\ncomposite over=b offset=12,-4").node
    XCTAssertEqual(composite.operation.arguments["offset"], .point(Point(x: 12, y: -4)))
    XCTAssertEqual(try graph("solid size=3x2 color=\"#00FF00\""), "solid(color=#00FF00 size=3x2)")
  }

  func testQuotedPathsResolveAgainstTheRecipeFolder() throws {
    let folder = try temporaryFolder()
    try FileManager.default.copyItem(
      at: Fixtures.url("pngsuite/basn2c08.png"), to: folder.appendingPathComponent("my logo.png"))
    let image = try compile("load \"my logo.png\"", context: FilterContext(baseDirectory: folder))
    XCTAssertEqual(image.size, Size(width: 32, height: 32))
    let source = try XCTUnwrap(image.node.operation as? EncodedSourceOperation)
    XCTAssertEqual(source.source.url?.path, folder.appendingPathComponent("my logo.png").path)
  }

  func testParametersWithoutDefaultArePassedOnlyWhenGiven() throws {
    let scale = try compile("scale fit=10x10").node
    XCTAssertNil(scale.operation.arguments["factor"])
    XCTAssertEqual(scale.operation.arguments["kernel"], .choice("lanczos3"))
    let composite = try compile("b = input\ncomposite over=b").node
    XCTAssertNil(composite.operation.arguments["offset"])
    XCTAssertEqual(composite.operation.arguments["margin"], .number(0))
  }

  // MARK: - Errors

  func testUnknownFilterMatchesTheDocumentedReport() {
    let text = "# thumbnail.txt\nscale fit=800x800\nblurr sigma=2\n"
    XCTAssertEqual(diagnostic(text, file: "thumbnail.txt"), """
      thumbnail.txt:3:1: error: unknown filter 'blurr'; did you mean 'blur'?
          blurr sigma=2
          ^~~~~
      """)
  }

  func testUnknownParameterSuggestsTheNearestOne() {
    XCTAssertEqual(diagnostic("blur sgima=2"), """
      test.txt:1:6: error: unknown parameter 'sgima' for blur; did you mean 'sigma'?
          blur sgima=2
               ^~~~~
      """)
    XCTAssertEqual(diagnostic("blur radius=2"), """
      test.txt:1:6: error: unknown parameter 'radius' for blur; blur takes sigma
          blur radius=2
               ^~~~~~
      """)
  }

  func testOutOfRangeAndWrongKindPointAtTheValue() {
    XCTAssertEqual(diagnostic("rotate 90\n  blur sigma=500"), """
      test.txt:2:14: error: sigma=500 is out of range; expected a number 0…100
            blur sigma=500
                       ^~~
      """)
    XCTAssertTrue(diagnostic("blur sigma=big").contains("test.txt:1:12: error: 'big' is not a number; sigma expects a number 0…100"))
    XCTAssertTrue(diagnostic("scale fit=800").contains("'800' is not a size; fit expects WIDTHxHEIGHT like 800x600"))
    XCTAssertTrue(diagnostic("scale fit=0x600").contains("fit=0x600 is out of range; each side must be 1…65535"))
    XCTAssertTrue(diagnostic("convert gray levels=2.5").contains("'2.5' is not a whole number; levels expects an integer 2…256"))
    XCTAssertTrue(diagnostic("convert gray levels=50%").contains("'50%' is not a whole number"))
    XCTAssertTrue(diagnostic("tint color=#12345").contains("'#12345' is not a colour; color expects #RGB, #RRGGBB, #RRGGBBAA or a name"))
    XCTAssertTrue(diagnostic("tint color=oragne").contains("'oragne' is not a colour (did you mean 'orange'?)"))
    XCTAssertTrue(diagnostic("convert gray dither=maybe").contains("'maybe' is not a boolean"))
    XCTAssertTrue(diagnostic("b = input\ncomposite over=b offset=3").contains("'3' is not a point"))
    XCTAssertTrue(diagnostic("blend mode=scren input").hasSuffix("""
      error: 'scren' is not a valid value for mode (expected one of normal, screen, multiply); did you mean 'screen'?
          blend mode=scren input
                     ^~~~~
      """))
  }

  func testRepeatedParameterAndExtraValues() {
    XCTAssertTrue(diagnostic("blur sigma=1 sigma=2").contains("1:14: error: 'sigma' is given twice"))
    XCTAssertTrue(diagnostic("blur sigma=1 3").contains("1:14: error: unexpected '3'; expected key=value (blur takes sigma)"))
    XCTAssertTrue(diagnostic("rotate 90 of=input of=input").contains("'of' is given twice"))
    XCTAssertTrue(diagnostic("solid size=2x2 of=input").contains("solid makes an image from nothing and takes no input; remove 'of='"))
  }

  func testNamesUndefinedDuplicateForwardSelfAndCycles() {
    XCTAssertEqual(diagnostic("base = input\nsoft = blur of=bsae"), """
      test.txt:2:16: error: undefined image name 'bsae'; did you mean 'base'?
          soft = blur of=bsae
                         ^~~~
      """)
    XCTAssertTrue(diagnostic("base = input\nblend mode=screen sfot base").contains("2:19: error: undefined image name 'sfot'"))
    XCTAssertTrue(diagnostic("a = blur\na = rotate 90").contains("2:1: error: 'a' is already defined on line 1"))
    let tooLong = Array(repeating: "flip", count: Recipe.maxStatements + 5).joined(separator: "\n")
    XCTAssertTrue(
      diagnostic(tooLong).contains("\(Recipe.maxStatements + 1):1: error: a recipe holds at most \(Recipe.maxStatements) statements"))
    XCTAssertTrue(diagnostic("a = blur of=b\nb = rotate 90").contains(
      "1:13: error: 'b' is used before it is defined on line 2; move its definition above this line"))
    XCTAssertTrue(diagnostic("a = blur of=a").contains("1:13: error: 'a' refers to itself"))
    XCTAssertTrue(diagnostic("a = blur of=b\nb = blur of=c\nc = blend a input").contains(
      "1:13: error: cycle: 'a' uses 'b' uses 'c' uses 'a'"))
    XCTAssertTrue(diagnostic("input = blur").contains("1:1: error: 'input' is the image the recipe is applied to and cannot be redefined"))
    XCTAssertTrue(diagnostic("blur = rotate 90").contains("'blur' is the name of a filter; choose another name"))
    XCTAssertTrue(diagnostic("a = blur\na sigma=2").contains("2:1: error: 'a' names an image, not a filter"))
  }

  func testImageCountErrors() {
    XCTAssertTrue(diagnostic("blend mode=screen").contains("1:1: error: blend takes 2 input images, 0 given"))
    XCTAssertTrue(diagnostic("a = input\nb = input\nrotate 90 a b").contains("3:13: error: rotate takes one input image; 'b' is one too many"))
  }

  func testSyntaxErrors() {
    XCTAssertTrue(diagnostic("load path=\"logo.png").contains("1:11: error: unterminated quoted string"))
    XCTAssertTrue(diagnostic("blur sigma=").contains("1:12: error: expected a value after 'sigma='"))
    XCTAssertTrue(diagnostic("blur = ").contains("expected a filter (or an image name) after '='"))
    XCTAssertTrue(diagnostic("blur sigma=2 =3").contains("1:14: error: unexpected '='; expected key=value"))
    XCTAssertTrue(diagnostic("x = 2 blur").contains("1:5: error: expected a filter name at the start of a statement, found '2'"))
    XCTAssertTrue(diagnostic("3d = blur").contains("1:1: error: '3d' cannot be a name"))
    XCTAssertTrue(diagnostic("\n# only a comment\n").contains("1:1: error: the recipe is empty"))
  }

  func testTabsKeepTheCaretUnderTheToken() {
    XCTAssertEqual(diagnostic("\tblur\tsigma=-1"), """
      test.txt:1:13: error: sigma=-1 is out of range; expected a number 0…100
          \tblur\tsigma=-1
          \t    \t      ^~
      """)
  }

  func testErrorsAtSecondStatementOfALineHaveItsColumn() {
    XCTAssertTrue(diagnostic("scale 0.5; blurr 2", file: "-e").hasPrefix("-e:1:12: error: unknown filter 'blurr'; did you mean 'blur'?"))
  }

  func testErrorsAFilterThrowsArePointedAtItsLine() {
    let text = "rotate 90\nscale kernel=linear"
    XCTAssertEqual(diagnostic(text), """
      test.txt:2:1: error: scale: scale needs exactly one of factor= and fit=.
          scale kernel=linear
          ^~~~~
      """)
  }

  func testAMissingLoadedFileIsReportedAtItsPathWithTheCodecError() throws {
    let text = "logo = load path=nothere.png\noutput = blur of=logo"
    let recipe = try Recipe.parse(text, file: "r.txt")
    XCTAssertNoThrow(try recipe.check(filters: RecipeStandIns.filters), "check opens no file")
    do {
      _ = try recipe.compile(input: input, context: context, filters: RecipeStandIns.filters)
      XCTFail("expected an error")
    } catch let error as RecipeError {
      XCTAssertTrue(error.description.hasPrefix("r.txt:1:18: error: load: The input file "), error.description)
      XCTAssertTrue(error.description.hasSuffix("nothere.png does not exist.\n    logo = load path=nothere.png\n                     ^~~~~~~~~~~"))
      XCTAssertTrue(error.underlying is CodecError)
    }
  }

  func testCheckReportsRecipeMistakesWithoutAnInput() throws {
    XCTAssertThrowsError(try Recipe.parse("blurr 2", file: nil).check(filters: RecipeStandIns.filters)) { error in
      XCTAssertTrue(String(describing: error).hasPrefix("<recipe>:1:1: error: unknown filter 'blurr'"))
    }
    XCTAssertNoThrow(try Recipe.parse("blur 2", file: nil).check(filters: RecipeStandIns.filters))
  }

  func testTheRegistryListsSourceAndGeometryVerbsWithUniqueNames() {
    let names = FilterRegistry.all.map(\.descriptor.name)
    XCTAssertEqual(Set(names).count, names.count)
    for verb in ["load", "solid", "scale", "blur", "boxblur", "sharpen", "tint", "convert", "rotate", "flip", "orient", "composite", "blend"] {
      XCTAssertNotNil(FilterRegistry.definition(named: verb), verb)
    }
    XCTAssertNil(FilterRegistry.definition(named: "blurr"))
  }

  func testImageParametersAreRequired() {
    XCTAssertTrue(diagnostic("composite input").contains("1:1: error: composite needs over=IMAGE (the background)"))
  }

  func testTheTwoDocumentedRecipesCompileWithTheRegisteredFilters() throws {
    let folder = try temporaryFolder()
    try FileManager.default.copyItem(at: Fixtures.url("pngsuite/basn6a08.png"), to: folder.appendingPathComponent("logo.png"))
    let photo = Image(color: Color(red: 0.2, green: 0.5, blue: 0.8), size: Size(width: 120, height: 90))
    let context = FilterContext(baseDirectory: folder)
    let chain = try Recipe.parse("""
      # thumbnail.txt — fit in 800×800, warm it a little, soften
      scale fit=80x80
      tint color=#FF8000 amount=0.3
      blur sigma=2
      convert to=gray
      """, file: "thumbnail.txt").compile(input: photo, context: context)
    XCTAssertEqual(chain.size, Size(width: 80, height: 60))
    XCTAssertEqual(chain.info.layout, .gray)
    let graph = try Recipe.parse("""
      base = input
      soft = blur sigma=3 of=base
      glow = blend mode=screen soft base opacity=0.4
      logo = load path=logo.png
      output = composite logo over=glow gravity=southeast margin=4
      """, file: "glow.txt").compile(input: photo, context: context)
    XCTAssertEqual(graph.size, photo.size, "composite keeps the base's size")
    XCTAssertEqual(
      try Recipe.parse("scale 0.5", file: nil).compile(input: photo, context: context).size, Size(width: 60, height: 45))
    // Rendering the graph recipe equals rendering the same graph built in Swift.
    let logo = try Image(contentsOf: folder.appendingPathComponent("logo.png"))
    let swift = logo.composited(
      over: photo.blurred(sigma: 3).composited(over: photo, mode: .screen, opacity: 0.4),
      gravity: .southEast, margin: 4)
    let renderer = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 64, height: 32)))
    XCTAssertTrue(try renderer.render(graph).hasSamePixels(as: try renderer.render(swift)))
  }

  func testSuggestionsUseEditDistance() {
    XCTAssertEqual(RecipeError.editDistance("blurr", "blur"), 1)
    XCTAssertEqual(RecipeError.editDistance("sgima", "sigma"), 1)  // a swap of neighbours
    XCTAssertEqual(RecipeError.editDistance("kitten", "sitting"), 3)
    XCTAssertEqual(RecipeError.suggestion(for: "shrapen", among: ["blur", "sharpen", "scale"]), "sharpen")
    XCTAssertNil(RecipeError.suggestion(for: "xyz", among: ["blur", "sharpen", "scale"]))
    XCTAssertEqual(RecipeError.suggestion(for: "Blur", among: ["blur"]), "blur")
  }

  // MARK: - Helpers

  private func temporaryFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("recipe-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
  }
}
