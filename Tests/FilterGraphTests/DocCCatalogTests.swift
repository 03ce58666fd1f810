// DocCCatalogTests.swift — the module pages of the ImageCodecs and PixelBufferModule catalogs list
// every public type of their module under Topics, and every ``symbol`` they link names a public
// declaration there, so a type added, renamed or removed shows in the test rather than as a
// missing or dead entry in the generated documentation.

import Foundation
import TestSupport
import XCTest

final class DocCCatalogTests: XCTestCase {
  /// Module page, and the folder of the module's sources.
  private static let catalogs = [
    ("Sources/ImageCodecs/ImageCodecs.docc/ImageCodecs.md", "Sources/ImageCodecs"),
    ("Sources/PixelBuffer/PixelBufferModule.docc/PixelBufferModule.md", "Sources/PixelBuffer"),
  ]

  /// The names of the public top-level types declared in the Swift files under `folder`, and every
  /// public member name (for `Type/member` links).
  static func publicNames(in folder: String) throws -> (types: Set<String>, members: Set<String>) {
    let root = Repository.url(folder)
    let files = try XCTUnwrap(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
      .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    let type = try NSRegularExpression(pattern: #"^public (?:final class|class|struct|enum|protocol|actor) ([A-Za-z0-9_]+)"#, options: .anchorsMatchLines)
    let member = try NSRegularExpression(
      pattern: #"^\s+public (?:static |mutating |nonisolated |final |override )*(?:func|var|let|init|case|subscript)\s*([A-Za-z0-9_]*)"#,
      options: .anchorsMatchLines)
    var types: Set<String> = [], members: Set<String> = []
    for file in files {
      let text = try String(contentsOf: file, encoding: .utf8)
      let range = NSRange(text.startIndex..., in: text)
      for match in type.matches(in: text, range: range) { types.insert((text as NSString).substring(with: match.range(at: 1))) }
      for match in member.matches(in: text, range: range) {
        let name = (text as NSString).substring(with: match.range(at: 1))
        members.insert(name.isEmpty ? "init" : name)
      }
    }
    return (types, members)
  }

  /// The ``…`` links of a page, without the page's own title link.
  static func links(_ page: String) -> [String] {
    let parts = page.components(separatedBy: "``")
    return stride(from: 1, to: parts.count, by: 2).map { parts[$0] }.filter { !$0.contains(" ") }.dropFirst().map { $0 }
  }

  func testEveryPublicTypeIsListedAndEveryLinkResolves() throws {
    for (pagePath, folder) in Self.catalogs {
      let page = try String(contentsOf: Repository.url(pagePath), encoding: .utf8)
      let (types, members) = try Self.publicNames(in: folder)
      XCTAssertGreaterThan(types.count, 10, folder)
      let topics = try XCTUnwrap(page.components(separatedBy: "## Topics").last)
      let listed = Set(topics.components(separatedBy: "\n").compactMap { line -> String? in
        guard line.hasPrefix("- ``"), line.hasSuffix("``") else { return nil }
        return String(line.dropFirst(4).dropLast(2))
      })
      for name in types.sorted() where !listed.contains(name) {
        XCTFail("\(pagePath): the public type \(name) is not listed under Topics")
      }
      for link in Self.links(page) {
        let path = link.components(separatedBy: "/")
        // `OtherModule/Type` links another catalog; `Type/member(…)` a member of a listed type.
        if path.count == 2, path[0].hasSuffix("Module") { continue }
        XCTAssertTrue(types.contains(path[0]), "\(pagePath): ``\(link)`` names no public type of \(folder)")
        if path.count == 2 {
          let member = String(path[1].prefix { $0 != "(" })
          XCTAssertTrue(members.contains(member), "\(pagePath): ``\(link)`` names no public member of \(folder)")
        }
      }
    }
  }
}
