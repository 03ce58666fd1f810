// MetadataOptionTests.swift — fgrun's --keep and --strip, checked with the tests' own scan of the
// written files (TestSupport/FileStructure.swift).
import Foundation
import TestSupport
import XCTest

extension FGRunTests {
  func testKeepAndStripOptions() throws {
    try copyFixture("metadata/orient-6.jpg", as: "photo.jpg")
    func markers(_ name: String) throws -> [UInt8] {
      FileStructure.jpegSegments(try Data(contentsOf: folder.appendingPathComponent(name))).map(\.marker)
        .filter { ($0 >= 0xE1 && $0 <= 0xEF) || $0 == 0xFE }
    }
    XCTAssertEqual(try fgrun(["-e", "scale 0.5", "photo.jpg", "all.jpg"]).status, 0)
    XCTAssertEqual(try markers("all.jpg"), [0xE1, 0xE1, 0xED, 0xFE])
    let tiff = try XCTUnwrap(FileStructure.jpegEXIF(Data(contentsOf: folder.appendingPathComponent("all.jpg"))))
    XCTAssertEqual(FileStructure.ifd0(tiff)?.entries[0x0112]?.value, 1)
    XCTAssertEqual(try fgrun(["-e", "scale 0.5", "photo.jpg", "none.jpg", "--strip"]).status, 0)
    XCTAssertEqual(try markers("none.jpg"), [])
    XCTAssertEqual(try fgrun(["-e", "scale 0.5", "photo.jpg", "some.jpg", "--keep", "xmp,comment"]).status, 0)
    XCTAssertEqual(try markers("some.jpg"), [0xE1, 0xFE])
    XCTAssertEqual(try fgrun(["-e", "scale 0.5", "photo.jpg", "x.jpg", "--keep", "gps"]).status, 64)
    XCTAssertEqual(try fgrun(["-e", "scale 0.5", "photo.jpg", "x.jpg", "--keep", "exif", "--strip"]).status, 64)
    XCTAssertEqual(try fgrun(["-e", "scale 0.5", "photo.jpg", "none.png", "--keep", "none"]).status, 0)
    let chunks = FileStructure.pngChunks(try Data(contentsOf: folder.appendingPathComponent("none.png"))).map(\.type)
    XCTAssertEqual(chunks.filter { $0 != "IDAT" }, ["IHDR", "sRGB", "IEND"])
  }
}
