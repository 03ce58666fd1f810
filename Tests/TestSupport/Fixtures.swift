// Fixtures.swift — access to the files under Tests/TestSupport/Fixtures (copied as a resource folder).
import Foundation

/// Test fixture files shipped with the TestSupport target.
public enum Fixtures {
  /// The URL of `relativePath` inside the Fixtures folder (for example `"pngsuite/basn0g01.png"`).
  public static func url(_ relativePath: String) -> URL {
    Bundle.module.resourceURL!.appendingPathComponent("Fixtures").appendingPathComponent(relativePath)
  }

  /// The bytes of `relativePath` inside the Fixtures folder.
  public static func data(_ relativePath: String) throws -> Data {
    try Data(contentsOf: url(relativePath))
  }
}
