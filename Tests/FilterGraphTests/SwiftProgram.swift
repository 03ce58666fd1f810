// SwiftProgram.swift — compiles a documentation example exactly as printed, as the main.swift of
// a program of its own, against the modules this test build made: the imports must be the
// page's, and any warning (an `await` Swift resolves to a synchronous overload, say) shows.

import Foundation
import TestSupport
import XCTest

enum SwiftProgram {
  /// The build products folder (it holds Modules/ and the C targets' module maps).
  static var buildFolder: URL? {
    var folders = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
    folders.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
    for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
      folders.append(bundle.bundleURL.deletingLastPathComponent())
    }
    folders.append(Repository.root.appendingPathComponent(".build/debug"))
    return folders.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("Modules/FilterGraph.swiftmodule").path) }
  }

  /// swiftc's type-check of `source` as main.swift: its exit status and diagnostics.
  static func typecheck(_ source: String) throws -> ChildProcess.Outcome {
    let build = try XCTUnwrap(buildFolder, "no test bundle folder")
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("example-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try Data(source.utf8).write(to: folder.appendingPathComponent("main.swift"))
    let maps = try FileManager.default.contentsOfDirectory(atPath: build.path)
      .filter { $0.hasSuffix(".build") }
      .map { build.appendingPathComponent($0).appendingPathComponent("module.modulemap") }
      .filter { FileManager.default.fileExists(atPath: $0.path) }
    let arguments = ["-typecheck", "-module-name", "Example", "-I", build.appendingPathComponent("Modules").path]
      + maps.flatMap { ["-Xcc", "-fmodule-map-file=\($0.path)"] } + ["main.swift"]
    return try ChildProcess("swiftc", arguments, in: folder).wait()
  }
}
