// FGRunTests.swift — end-to-end: the built `fgrun` binary run as a subprocess on small PNGs.
//
// The binary is found next to the test bundle (the build products folder, which holds `fgrun`
// after `swift build --build-tests`), or at $FGRUN. Each test works in its own temporary folder.

import FilterGraph
import Foundation
import PixelBufferModule
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// The set-up and helpers of every test that runs the `fgrun` binary: a temporary folder with two
/// PngSuite pictures, and `fgrun(…)`. Subclasses hold the tests (FGRunTests: one file at a time;
/// BatchTests: batches, which `make test-tsan` runs under ThreadSanitizer with the library suites).
class FGRunTestCase: XCTestCase {
  /// What one run of the binary did.
  struct Outcome {
    var status: Int32
    var stdout: Data
    var stderr: String
    var text: String { String(decoding: stdout, as: UTF8.self) }
  }

  var folder: URL!

  override func setUpWithError() throws {
    folder = FileManager.default.temporaryDirectory.appendingPathComponent("fgrun-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    // 32×32 RGB 8-bit and 16-bit pictures from PngSuite.
    try copyFixture("pngsuite/basn2c08.png", as: "in.png")
    try copyFixture("pngsuite/basn2c16.png", as: "deep.png")
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: folder)
  }


  // MARK: - Helpers

  func file(_ name: String) -> URL { folder.appendingPathComponent(name) }
  func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: file(name).path) }
  func listing() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() }
  func write(_ text: String, to name: String) throws { try Data(text.utf8).write(to: file(name)) }
  func copyFixture(_ path: String, as name: String) throws {
    try FileManager.default.copyItem(at: Fixtures.url(path), to: file(name))
  }
  func render(_ image: Image) throws -> PixelBuffer {
    try Renderer(options: RendererOptions(threads: 1)).render(image)
  }

  /// The built `fgrun`: $FGRUN, or beside the test bundle.
  static let binary: URL? = {
    if let path = ProcessInfo.processInfo.environment["FGRUN"] { return URL(fileURLWithPath: path) }
    var folders = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
    folders.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
    for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
      folders.append(bundle.bundleURL.deletingLastPathComponent())
    }
    return folders.map { $0.appendingPathComponent("fgrun") }.first {
      FileManager.default.isExecutableFile(atPath: $0.path)
    }
  }()

  /// Runs fgrun in the test's folder and waits for it. Standard input, output and error are
  /// files (posix_spawn + waitpid: no pipes to drain, no Foundation.Process child monitoring).
  func fgrun(_ arguments: [String], stdin: Data? = nil) throws -> Outcome {
    guard let binary = Self.binary else {
      XCTFail("fgrun was not found next to the tests; run `swift build --build-tests` first (or set FGRUN).")
      throw CocoaError(.fileNoSuchFile)
    }
    let io = FileManager.default.temporaryDirectory.appendingPathComponent("fgrun-io-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: io, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: io) }
    let inPath = io.appendingPathComponent("stdin").path
    let outPath = io.appendingPathComponent("stdout").path
    let errPath = io.appendingPathComponent("stderr").path
    try (stdin ?? Data()).write(to: URL(fileURLWithPath: inPath))

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, inPath, O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    // The child starts in the test's folder through coreutils' `env -C` (glibc's
    // posix_spawn_file_actions_addchdir_np is not visible to Swift).
    let launcher = "/usr/bin/env"
    let argv: [UnsafeMutablePointer<CChar>?] =
      (["env", "-C", folder.path, binary.path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, launcher, &actions, nil, argv, environ)
    guard spawned == 0 else {
      XCTFail("cannot start \(binary.path): \(String(cString: strerror(spawned)))")
      throw CocoaError(.executableLoad)
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    // Exited normally: the exit code; killed by a signal: 128 + the signal, as shells report it.
    let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    return Outcome(
      status: code, stdout: try Data(contentsOf: URL(fileURLWithPath: outPath)),
      stderr: String(decoding: try Data(contentsOf: URL(fileURLWithPath: errPath)), as: UTF8.self))
  }
}

final class FGRunTests: FGRunTestCase {
  // MARK: - One file

  func testRunsARecipeFileAndWritesWhatTheSwiftAPIRenders() throws {
    try write("rotate 90\n# mirror it\nflip vertical\n", to: "r.txt")
    let run = try fgrun(["r.txt", "in.png", "out.png"])
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertEqual(run.stderr, "")
    let written = try render(try Image(contentsOf: file("out.png")))
    let expected = try render(try Image(contentsOf: file("in.png")).rotated(byDegrees: 90).flippedVertically())
    XCTAssertTrue(written.hasSamePixels(as: expected))
  }

  func testInlineRecipeToStandardOutputAndFromStandardInput() throws {
    let toStdout = try fgrun(["-e", "rotate 90; flip axis=vertical", "in.png", "-"])
    XCTAssertEqual(toStdout.status, 0, toStdout.stderr)
    XCTAssertEqual(Array(toStdout.stdout.prefix(4)), [0x89, 0x50, 0x4E, 0x47], "a PNG, as the input is one")
    let fromStdin = try fgrun(["-e", "rotate 90\nflip vertical", "-", "piped.png"], stdin: try Data(contentsOf: file("in.png")))
    XCTAssertEqual(fromStdin.status, 0, fromStdin.stderr)
    let a = try render(try Image(data: toStdout.stdout))
    let b = try render(try Image(contentsOf: file("piped.png")))
    XCTAssertTrue(a.hasSamePixels(as: b))
    let expected = try render(try Image(contentsOf: file("in.png")).rotated(byDegrees: 90).flippedVertically())
    XCTAssertTrue(a.hasSamePixels(as: expected))
  }

  /// JPEG to standard output streams through the encoder; it must equal the file written.
  func testJPEGToStandardOutputEqualsTheFile() throws {
    XCTAssertEqual(try fgrun(["-e", "flip", "in.png", "in.jpg"]).status, 0)
    let written = try fgrun(["-e", "rotate 90", "--quality", "80", "in.jpg", "out.jpg"])
    XCTAssertEqual(written.status, 0, written.stderr)
    let piped = try fgrun(["-e", "rotate 90", "--quality", "80", "in.jpg", "-"])
    XCTAssertEqual(piped.status, 0, piped.stderr)
    XCTAssertEqual(Array(piped.stdout.prefix(2)), [0xFF, 0xD8], "a JPEG, as the input is one")
    XCTAssertEqual(piped.stdout, try Data(contentsOf: self.file("out.jpg")))
  }

  func testSixteenBitInputsStaySixteenBitUnlessDepthSaysOtherwise() throws {
    XCTAssertEqual(try fgrun(["-e", "rotate 180", "deep.png", "keep.png"]).status, 0)
    XCTAssertEqual(try Image(contentsOf: file("keep.png")).info.component, .uint16)
    XCTAssertEqual(try fgrun(["-e", "rotate 180", "--depth", "8", "deep.png", "eight.png"]).status, 0)
    XCTAssertEqual(try Image(contentsOf: file("eight.png")).info.component, .uint8)
  }

  func testJPEGOutputFollowsTheExtensionAndQuality() throws {
    XCTAssertEqual(try fgrun(["-e", "flip", "--quality", "95", "in.png", "high.jpg"]).status, 0)
    XCTAssertEqual(try fgrun(["-e", "flip", "--quality", "20", "in.png", "low.jpeg"]).status, 0)
    let high = try Data(contentsOf: file("high.jpg")), low = try Data(contentsOf: file("low.jpeg"))
    XCTAssertEqual(Array(high.prefix(3)), [0xFF, 0xD8, 0xFF])
    XCTAssertGreaterThan(high.count, low.count, "quality 95 keeps more than quality 20")
    let batch = try fgrun(["-e", "rotate 90", "in.png", "deep.png", "-o", "jpegs", "--format", "jpg"])
    XCTAssertEqual(batch.status, 0, batch.stderr)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: file("jpegs").path).sorted(), ["deep.jpg", "in.jpg"])
    XCTAssertEqual(try Image(contentsOf: file("jpegs/deep.jpg")).info.component, .uint8)
  }

  func testAnExistingOutputIsReplaced() throws {
    try write("not a picture", to: "out.png")
    let run = try fgrun(["-e", "flip", "in.png", "out.png"])
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertEqual(try Image(contentsOf: file("out.png")).size, Size(width: 32, height: 32))
  }

  // MARK: - Errors and exit codes

  func testRecipeErrorsExit64WithTheLineAndCaretAndWriteNothing() throws {
    try write("rotate 90\nblurr sigma=2\n", to: "thumb.txt")
    let run = try fgrun(["thumb.txt", "in.png", "out.png"])
    XCTAssertEqual(run.status, 64)
    XCTAssertTrue(run.stderr.contains("thumb.txt:2:1: error: unknown filter 'blurr'"), run.stderr)
    XCTAssertTrue(run.stderr.contains("    blurr sigma=2\n    ^~~~~"), run.stderr)
    XCTAssertEqual(try listing(), ["deep.png", "in.png", "thumb.txt"], "no output, no temporary file")

    let inline = try fgrun(["-e", "flip axs=vertical", "in.png", "out.png"])
    XCTAssertEqual(inline.status, 64)
    XCTAssertTrue(inline.stderr.hasPrefix("-e:1:6: error: unknown parameter 'axs' for flip; did you mean 'axis'?"), inline.stderr)
  }

  func testATruncatedJPEGWarnsAndStrictMakesItAnError() throws {
    // The first 40 % of a JPEG: libjpeg patches up the rest (gray) and says so.
    let whole = try Data(contentsOf: Fixtures.url("jpeg/testorig.jpg"))
    try whole.prefix(whole.count * 2 / 5).write(to: file("cut.jpg"))
    let patched = try fgrun(["-e", "input", "cut.jpg", "out.jpg"])
    XCTAssertEqual(patched.status, 0, patched.stderr)
    XCTAssertTrue(patched.stderr.contains("fgrun: warning: cut.jpg: Premature end of JPEG file"), patched.stderr)
    XCTAssertEqual(try Image(contentsOf: file("out.jpg")).size, Size(width: 227, height: 149))

    let strict = try fgrun(["--strict", "-e", "blur 1", "cut.jpg", "strict.jpg"])
    XCTAssertEqual(strict.status, 65, strict.stderr)
    XCTAssertTrue(strict.stderr.contains("truncated"), strict.stderr)
    XCTAssertFalse(FileManager.default.fileExists(atPath: file("strict.jpg").path), "nothing written")

    let clean = try fgrun(["--strict", "-e", "input", "in.png", "clean.png"])
    XCTAssertEqual(clean.status, 0, clean.stderr)
    XCTAssertEqual(clean.stderr, "", "an intact file gives no warning")
  }

  func testInputErrorsExit65() throws {
    let missing = try fgrun(["-e", "flip", "nothere.png", "out.png"])
    XCTAssertEqual(missing.status, 65)
    XCTAssertTrue(missing.stderr.contains("nothere.png does not exist"), missing.stderr)

    try write("this is text", to: "text.png")
    let unsupported = try fgrun(["-e", "flip", "text.png", "out.png"])
    XCTAssertEqual(unsupported.status, 65)
    XCTAssertTrue(unsupported.stderr.contains("is not an image file FilterGraph reads"), unsupported.stderr)

    // A PNG whose pixel data is cut off: the header reads, the decode fails during the render.
    let whole = try Data(contentsOf: file("in.png"))
    try whole.prefix(whole.count - 40).write(to: file("cut.png"))
    let truncated = try fgrun(["-e", "flip", "cut.png", "out.png"])
    XCTAssertEqual(truncated.status, 65, truncated.stderr)
    XCTAssertFalse(exists("out.png"), "a failed run leaves no output")

    let tooLarge = try fgrun(["-e", "flip", "--max-pixels", "100", "in.png", "out.png"])
    XCTAssertEqual(tooLarge.status, 65)
    XCTAssertTrue(tooLarge.stderr.contains("more than the limit of 100 pixels"), tooLarge.stderr)

    try write("logo = load path=missing-logo.png\noutput = logo\n", to: "logo.txt")
    let load = try fgrun(["logo.txt", "in.png", "out.png"])
    XCTAssertEqual(load.status, 65)
    XCTAssertTrue(load.stderr.hasPrefix("logo.txt:1:18: error: load: The input file"), load.stderr)
    XCTAssertTrue(load.stderr.contains("                     ^~~~~~~~~~~~~~~~"), load.stderr)
    XCTAssertFalse(exists("out.png"))
  }

  /// What a new user meets first: an empty file is called empty, a truncated TIFF gets a
  /// sentence (not libtiff's "scanline 4294967295"), and libpng's note about the HP sRGB profile
  /// many files embed is not a warning.
  func testEverydayInputMessages() throws {
    try Data().write(to: file("empty.jpg"))
    let empty = try fgrun(["-e", "flip", "empty.jpg", "out.png"])
    XCTAssertEqual(empty.status, 65)
    XCTAssertTrue(empty.stderr.hasSuffix("empty.jpg is empty (0 bytes).\n"), empty.stderr)

    let tiff = try Fixtures.data("tiff/gray8.tif")
    try tiff.prefix(tiff.count / 2).write(to: file("cut.tif"))
    let cut = try fgrun(["-e", "flip", "cut.tif", "out.png"])
    XCTAssertEqual(cut.status, 65)
    XCTAssertTrue(cut.stderr.contains("The TIFF file is truncated: a strip of its pixel data ends early ("), cut.stderr)
    XCTAssertFalse(cut.stderr.contains("scanline"), cut.stderr)

    try copyFixture("colour/hp-srgb-profile.png", as: "hp.png")
    let hp = try fgrun(["-e", "flip", "hp.png", "out.png"])
    XCTAssertEqual(hp.status, 0)
    XCTAssertEqual(hp.stderr, "")
  }

  func testOutputErrorsExit73AndTheInputIsNeverOverwritten() throws {
    let before = try Data(contentsOf: file("in.png"))
    let overwrite = try fgrun(["-e", "flip", "in.png", "in.png"])
    XCTAssertEqual(overwrite.status, 73)
    XCTAssertTrue(overwrite.stderr.contains("Refusing to write the output in.png over the input in.png"), overwrite.stderr)
    XCTAssertEqual(try Data(contentsOf: file("in.png")), before)

    let sneaky = try fgrun(["-e", "flip", "in.png", "./sub/../in.png"])
    XCTAssertEqual(sneaky.status, 73)
    XCTAssertEqual(try Data(contentsOf: file("in.png")), before)

    // A symbolic link to the input and a hard link of it are the input (one device and inode):
    // both are refused.
    try FileManager.default.createSymbolicLink(atPath: file("symlink.png").path, withDestinationPath: "in.png")
    XCTAssertEqual(try fgrun(["-e", "flip", "in.png", "symlink.png"]).status, 73)
    try FileManager.default.linkItem(at: file("in.png"), to: file("hardlink.png"))
    XCTAssertEqual(try fgrun(["-e", "flip", "in.png", "hardlink.png"]).status, 73)
    XCTAssertEqual(try Data(contentsOf: file("in.png")), before)
    XCTAssertEqual(try Data(contentsOf: file("hardlink.png")), before)

    let noFolder = try fgrun(["-e", "flip", "in.png", "no/such/folder/out.png"])
    XCTAssertEqual(noFolder.status, 73, noFolder.stderr)
  }

  func testUsageErrorsExit64() throws {
    XCTAssertEqual(try fgrun(["-e", "flip", "in.png"]).status, 64)
    XCTAssertEqual(try fgrun(["-e", "flip", "in.png", "out.xyz"]).status, 64)  // no format writes .xyz
    XCTAssertEqual(try fgrun(["-e", "flip", "--quality", "0", "in.png", "out.jpg"]).status, 64)
    XCTAssertEqual(try fgrun(["-e", "flip", "--compression", "10", "in.png", "out.png"]).status, 64)
    XCTAssertEqual(try fgrun(["-e", "flip", "--depth", "12", "in.png", "out.png"]).status, 64)
    XCTAssertEqual(try fgrun(["nothere.txt", "in.png", "out.png"]).status, 64)
    XCTAssertEqual(try fgrun(["-e", "", "in.png", "out.png"]).status, 64)
    XCTAssertFalse(exists("out.png"))
  }

  func testVersionAndHelp() throws {
    let version = try fgrun(["--version"])
    XCTAssertEqual(version.status, 0)
    XCTAssertTrue(version.text.hasPrefix("fgrun "), version.text)
    let help = try fgrun(["--help"])
    XCTAssertEqual(help.status, 0)
    for line in ["64  usage or recipe error", "65  input error", "73  output error", "explain", "filters"] {
      XCTAssertTrue(help.text.contains(line), line)
    }
  }

  // MARK: - explain, filters

  func testExplainShowsBothGraphs() throws {
    try write("rotate 90\nflip vertical\n", to: "r.txt")
    let withInput = try fgrun(["explain", "r.txt", "in.png"])
    XCTAssertEqual(withInput.status, 0, withInput.stderr)
    XCTAssertTrue(withInput.text.contains("as written:"), withInput.text)
    XCTAssertTrue(withInput.text.contains("as optimized:"), withInput.text)
    XCTAssertTrue(withInput.text.contains("input: in.png, 32x32"), withInput.text)
    let placeholder = try fgrun(["explain", "-e", "rotate 90"])
    XCTAssertEqual(placeholder.status, 0, placeholder.stderr)
    XCTAssertTrue(placeholder.text.contains("6000x4000 solid colour stands in"), placeholder.text)
    XCTAssertTrue(placeholder.text.contains("output: 4000x6000"), placeholder.text)
    XCTAssertEqual(try fgrun(["explain", "-e", "rotat 90"]).status, 64)
  }

  /// A smartcrop window larger than the image (32×32 here) is clamped: the run says so on
  /// stderr, and explain shows the step as written with the same warning.
  func testClampedSmartcropWarnsWhereTheUserReads() throws {
    let run = try fgrun(["-e", "scale width=32; smartcrop size=32x48", "in.png", "out.png"])
    XCTAssertEqual(run.status, 0, run.stderr)
    let message = "smartcrop size=32x48 gives 32x32: the image is smaller than the window asked for, which is clamped to it"
    XCTAssertEqual(run.stderr, "fgrun: warning: \(message)\n")
    let explain = try fgrun(["explain", "-e", "smartcrop size=32x48", "in.png"])
    XCTAssertTrue(explain.text.contains("as written:\n#1 smartcrop size=32x48 strategy=attention  → 32x32"), explain.text)
    XCTAssertTrue(explain.text.contains("[warning: \(message)]"), explain.text)
  }

  /// docs/Filters.md holds exactly what `fgrun filters` prints (scripts/gen-filter-docs.sh writes it).
  func testFiltersPageIsTheCurrentFiltersOutput() throws {
    let all = try fgrun(["filters"])
    XCTAssertEqual(all.status, 0)
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let page = try String(contentsOf: root.appendingPathComponent("docs/Filters.md"), encoding: .utf8)
    XCTAssertTrue(
      page.contains("```\n" + all.text.trimmingCharacters(in: .newlines) + "\n```"),
      "docs/Filters.md is stale: run scripts/gen-filter-docs.sh")
  }

  func testFiltersListsEveryFilterWithItsTable() throws {
    let all = try fgrun(["filters"])
    XCTAssertEqual(all.status, 0)
    for definition in FilterRegistry.all {
      XCTAssertTrue(all.text.contains("\(definition.descriptor.name) — \(definition.descriptor.summary)"), definition.descriptor.name)
    }
    XCTAssertTrue(all.text.contains("geometry:"))
    XCTAssertTrue(all.text.contains("source:"))
    let flip = try fgrun(["filters", "flip"])
    XCTAssertEqual(flip.status, 0)
    XCTAssertTrue(flip.text.contains("axis  horizontal|vertical  default horizontal  Which way to mirror."), flip.text)
    XCTAssertTrue(flip.text.contains("example: flip axis=vertical"))
    XCTAssertFalse(flip.text.contains("rotate"))
    let typo = try fgrun(["filters", "flp"])
    XCTAssertEqual(typo.status, 64)
    XCTAssertTrue(typo.stderr.contains("unknown filter 'flp'; did you mean 'flip'?"), typo.stderr)
  }
}
