// TextCommandTests.swift — fgrun's `text` source end to end: a caption on a photo, and a
// machine without fonts, which gets exit 65 and the package to install, not a crash.

import Foundation
import TestSupport
import XCTest

final class TextCommandTests: XCTestCase {
  var folder: URL!

  override func setUpWithError() throws {
    folder = FileManager.default.temporaryDirectory.appendingPathComponent("fgrun-text-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try """
      caption = text string="© 2026 A. Photographer" font="DejaVu Sans" size=8% of=input color=white
      output = composite caption over=input gravity=southeast margin=4
      """.write(to: folder.appendingPathComponent("credit.txt"), atomically: true, encoding: .utf8)
  }

  override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

  /// fgrun with `environment` set (through env(1)).
  func fgrun(_ environment: [String], _ arguments: [String]) throws -> ChildProcess.Outcome {
    let binary = try XCTUnwrap(FGRunTests.binary?.path)
    return try ChildProcess.run("/usr/bin/env", environment + [binary] + arguments, in: folder)
  }

  func testACaptionIsWrittenOnThePhoto() throws {
    let run = try fgrun([], ["credit.txt", Fixtures.url("jpeg/testorig.jpg").path, "out.png"])
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.png").path))
  }

  func testNoFontsIsExit65NamingThePackageAndWritesNothing() throws {
    // A fontconfig configuration with no font folders: the machine "has no fonts".
    let config = folder.appendingPathComponent("fonts.conf")
    try """
      <?xml version="1.0"?>
      <!DOCTYPE fontconfig SYSTEM "fonts.dtd">
      <fontconfig><cachedir>\(folder.appendingPathComponent("cache").path)</cachedir></fontconfig>
      """.write(to: config, atomically: true, encoding: .utf8)
    let run = try fgrun(["FONTCONFIG_FILE=\(config.path)"], ["credit.txt", Fixtures.url("jpeg/testorig.jpg").path, "out.png"])
    XCTAssertEqual(run.status, 65, run.stderr)
    XCTAssertTrue(run.stderr.contains("no fonts are installed"), run.stderr)
    XCTAssertTrue(run.stderr.contains("fonts-dejavu-core"), run.stderr)
    XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.png").path))
  }

  func testAFamilyThatIsNotInstalledIsAWarningNamingTheReplacement() throws {
    try "text string=x font=\"No Such Family\" size=12".write(to: folder.appendingPathComponent("w.txt"), atomically: true, encoding: .utf8)
    let run = try fgrun([], ["w.txt", Fixtures.url("jpeg/testorig.jpg").path, "out.png"])
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertTrue(run.stderr.contains("warning: text: font family 'No Such Family' is not installed"), run.stderr)
    XCTAssertTrue(run.stderr.contains("; using '"), run.stderr)
  }

  func testAGarbageFontFileIsExit65() throws {
    try Data(repeating: 0x5A, count: 1000).write(to: folder.appendingPathComponent("bad.ttf"))
    try "text string=x font=bad.ttf size=12".write(to: folder.appendingPathComponent("bad.txt"), atomically: true, encoding: .utf8)
    let run = try fgrun([], ["bad.txt", Fixtures.url("jpeg/testorig.jpg").path, "out.png"])
    XCTAssertEqual(run.status, 65, run.stderr)
    XCTAssertTrue(run.stderr.contains("is not a font FreeType can read"), run.stderr)
  }
}
