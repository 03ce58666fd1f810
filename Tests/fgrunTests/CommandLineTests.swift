// CommandLineTests.swift — the single-file command line: a mistyped option gets its did-you-mean,
// boolean format flags read true/false as the formats table writes them, recipes that make their
// image need no INPUT, and values FilterGraph leaves out say why.

import FilterGraph
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

extension FGRunTests {
  func testMistypedOptionInSingleFileModeSuggestsTheRealOne() throws {
    let typo = try fgrun(["-e", "flip", "--qualty", "80", "in.png", "out.jpg"])
    XCTAssertEqual(typo.status, 64)
    XCTAssertTrue(typo.stderr.contains("Did you mean '--quality'?"), typo.stderr)
    XCTAssertFalse(typo.stderr.contains("Too many arguments"), typo.stderr)
    try write("flip\n", to: "r.txt")
    let withFile = try fgrun(["r.txt", "--qualty", "80", "in.png", "out.jpg"])
    XCTAssertTrue(withFile.stderr.contains("Did you mean '--quality'?"), withFile.stderr)
    XCTAssertFalse(FileManager.default.fileExists(atPath: file("out.jpg").path))
    // -q is --quality's short name (as in cwebp, avifenc, heif-enc): -q 10 writes a smaller JPEG than -q 95.
    XCTAssertEqual(try fgrun(["-e", "flip", "-q", "10", "in.png", "low.jpg"]).status, 0)
    XCTAssertEqual(try fgrun(["-e", "flip", "-q", "95", "in.png", "high.jpg"]).status, 0)
    let low = try Data(contentsOf: file("low.jpg")).count, high = try Data(contentsOf: file("high.jpg")).count
    XCTAssertLessThan(low, high)
    // Too many arguments without any option is still said so.
    let extra = try fgrun(["-e", "flip", "in.png", "in.png", "out.png"])
    XCTAssertEqual(extra.status, 64)
    XCTAssertTrue(extra.stderr.contains("Too many arguments"), extra.stderr)
  }

  /// With --manifest (how the cluster driver runs each chunk) a typo's value is not mistaken for
  /// an input given beside the manifest: the typo is named.
  func testMistypedOptionBesideAManifestSuggestsTheRealOne() throws {
    try write("flip\n", to: "r.txt")
    try write("in.png\n", to: "list.txt")
    let typo = try fgrun(["r.txt", "--manifest", "list.txt", "-o", "out", "--qualty", "80"])
    XCTAssertEqual(typo.status, 64)
    XCTAssertTrue(typo.stderr.contains("Did you mean '--quality'?"), typo.stderr)
    let stray = try fgrun(["r.txt", "--manifest", "list.txt", "-o", "out", "in.png"])
    XCTAssertEqual(stray.status, 64)
    XCTAssertTrue(stray.stderr.contains("either in --manifest or on the command line, not both"), stray.stderr)
  }

  func testBooleanFormatFlagsTakeTrueOrFalseAsTheFormatsTableWrites() throws {
    for (arguments, progressive) in [
      (["--progressive", "true"], true), (["--progressive=true"], true), (["--progressive"], true),
      (["--progressive", "false"], false), (["--progressive=no"], false), ([], false),
    ] {
      let run = try fgrun(["-e", "flip"] + arguments + ["in.png", "p.jpg"])
      XCTAssertEqual(run.status, 0, "\(arguments): \(run.stderr)")
      let bytes = try Data(contentsOf: file("p.jpg"))
      XCTAssertEqual(bytes.range(of: Data([0xFF, 0xC2])) != nil, progressive, "SOF2 (progressive) marker with \(arguments)")
    }
    let bad = try fgrun(["-e", "flip", "--lossless=maybe", "in.png", "l.webp"])
    XCTAssertEqual(bad.status, 64, bad.stderr)
    let formats = try fgrun(["formats"])
    XCTAssertTrue(formats.text.contains("--progressive      true|false"), formats.text)
  }

  /// Format flags are rewritten before parsing (FormatFlags.rewritten): a flag followed by another
  /// flag has no value, and a command without format options names the flag as it was typed.
  func testFormatFlagsWithoutAValueOrOnTheWrongCommandAreNamed() throws {
    let missing = try fgrun(["-e", "flip", "--quality", "--lossless", "in.png", "x.webp"])
    XCTAssertEqual(missing.status, 64)
    XCTAssertTrue(missing.stderr.contains("--quality needs a value."), missing.stderr)
    XCTAssertFalse(FileManager.default.fileExists(atPath: file("x.webp").path))
    let info = try fgrun(["info", "--quality", "5", "in.png"])
    XCTAssertEqual(info.status, 64)
    XCTAssertTrue(info.stderr.contains("Unknown option '--quality': this command takes no format options"), info.stderr)
    let direct = try fgrun(["-e", "flip", "--format-option", "qualty=5", "in.png", "y.jpg"])
    XCTAssertEqual(direct.status, 64)
    XCTAssertTrue(direct.stderr.contains("no format has this option; did you mean '--quality'?"), direct.stderr)
  }

  func testRecipeThatMakesItsImageNeedsNoInput() throws {
    try write("solid color=#FF8000 size=40x30\nblur sigma=1\n", to: "card.txt")
    let run = try fgrun(["card.txt", "card.png"])
    XCTAssertEqual(run.status, 0, run.stderr)
    let card = try Renderer(options: RendererOptions(threads: 1)).render(try Image(contentsOf: file("card.png")), format: .rgb8)
    XCTAssertEqual(card.size, Size(width: 40, height: 30))
    card.withUnsafePixels(as: UInt8.self) { p in XCTAssertEqual([p[row: 15][60], p[row: 15][61], p[row: 15][62]], [255, 128, 0]) }
    // -e, a loaded file, and text in pixels; standard output with --format.
    XCTAssertEqual(try fgrun(["-e", "load path=in.png; rotate 90", "turned.png"]).status, 0)
    XCTAssertEqual(try Image(contentsOf: file("turned.png")).size, Size(width: 32, height: 32))
    let label = try fgrun(["-e", "text string=Hi size=30", "-", "--format", "png"])
    XCTAssertEqual(label.status, 0, label.stderr)
    XCTAssertEqual(Array(label.stdout.prefix(4)), [0x89, 0x50, 0x4E, 0x47])
    // A recipe that uses its input still needs one, and says how to do without.
    let needs = try fgrun(["-e", "blur sigma=1", "out.png"])
    XCTAssertEqual(needs.status, 64)
    XCTAssertTrue(needs.stderr.contains("only a recipe that makes its image"), needs.stderr)
    // Text sized as a percentage of a missing image is an error, not a guess.
    let percent = try fgrun(["-e", "text string=Hi size=5% of=input", "t.png"])
    XCTAssertEqual(percent.status, 64, percent.stderr)
    XCTAssertTrue(percent.stderr.contains("no input image"), percent.stderr)
    XCTAssertFalse(FileManager.default.fileExists(atPath: file("t.png").path))
    // Without of=, the percentage is refused at its column, whatever the input.
    let unnamed = try fgrun(["-e", "text string=Hi size=5%", "t.png"])
    XCTAssertEqual(unnamed.status, 64, unnamed.stderr)
    XCTAssertTrue(unnamed.stderr.contains("-e:1:21: error: size=5% is a percentage of another image"), unnamed.stderr)
    // Standard output of a recipe with no input needs a format.
    let noFormat = try fgrun(["-e", "solid color=red size=4x4", "-"])
    XCTAssertEqual(noFormat.status, 64)
    XCTAssertTrue(noFormat.stderr.contains("give --format"), noFormat.stderr)
  }

  func testFaceFocusSaysWhyItIsLeftOut() throws {
    let run = try fgrun(["-e", "scale fill=16x16 focus=face", "in.png", "out.png"])
    XCTAssertEqual(run.status, 64)
    XCTAssertTrue(run.stderr.contains("focus=face is not available: FilterGraph has no face detector"), run.stderr)
    XCTAssertTrue(try fgrun(["filters", "scale"]).text.contains("no face"))
  }
}
