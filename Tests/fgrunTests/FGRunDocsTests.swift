// FGRunDocsTests.swift — docs/fgrun.md's reference section is fgrun's current help.

import Foundation
import XCTest

extension FGRunTests {
  /// The section scripts/gen-fgrun-docs.sh writes holds `fgrun --help` and `fgrun help NAME`
  /// for every subcommand, exactly as fgrun prints them now (at 80 columns, as the script does).
  func testFGRunPageHasTheCurrentHelpOfEveryCommand() throws {
    setenv("COLUMNS", "80", 1)
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let page = try String(contentsOf: root.appendingPathComponent("docs/fgrun.md"), encoding: .utf8)
    let stale = "docs/fgrun.md is stale: run scripts/gen-fgrun-docs.sh"
    let top = try fgrun(["--help"])
    XCTAssertEqual(top.status, 0, top.stderr)
    XCTAssertTrue(page.contains("### fgrun --help\n\n```\n" + top.text + "```\n"), "fgrun --help: " + stale)
    let listed = top.text.components(separatedBy: "SUBCOMMANDS:\n").last?.components(separatedBy: "\n\n").first ?? ""
    let names = listed.split(separator: "\n").compactMap { line -> String? in
      guard line.hasPrefix("  "), !line.hasPrefix("   "), let word = line.split(separator: " ").first, word.first?.isLetter == true else { return nil }
      return String(word)
    }
    XCTAssertTrue(names.contains("run") && names.contains("serve"), "no subcommands found in: \(listed)")
    for name in names {
      let help = try fgrun(["help", name])
      XCTAssertEqual(help.status, 0, help.stderr)
      XCTAssertTrue(page.contains("### fgrun \(name) --help\n\n```\n" + help.text + "```\n"), "fgrun \(name): " + stale)
    }
    XCTAssertEqual(page.components(separatedBy: "### fgrun ").count - 1, names.count + 1, "docs/fgrun.md lists a command fgrun no longer has: " + stale)
  }
}
