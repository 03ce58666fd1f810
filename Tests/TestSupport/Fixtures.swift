// Fixtures.swift — locating test fixture files shipped in Tests/TestSupport/Fixtures.
import Foundation

/// Test fixture files, addressed by their path below `Tests/TestSupport/Fixtures`.
public enum Fixtures {
  /// The URL of a fixture, for example `Fixtures.url("jpeg/testorig.jpg")`.
  public static func url(_ relativePath: String) -> URL {
    guard let root = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
      fatalError("The Fixtures folder is missing from the TestSupport bundle.")
    }
    return root.appendingPathComponent(relativePath)
  }

  /// The bytes of a fixture.
  public static func data(_ relativePath: String) throws -> Data {
    try Data(contentsOf: url(relativePath))
  }
}
