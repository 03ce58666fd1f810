// CodecRegistryTests.swift — recognising formats by content and extension, and option tables.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class CodecRegistryTests: XCTestCase {
  /// Formats come from the first bytes; a PNG named .jpg is a PNG.
  func testSniffingUsesContentNotNames() throws {
    let png = try Data(contentsOf: Fixtures.url("pngsuite/basn2c08.png"))
    let jpeg = try Data(contentsOf: Fixtures.url("jpeg/testorig.jpg"))
    XCTAssertEqual(ImageFileFormat.sniff(png), .png)
    XCTAssertEqual(ImageFileFormat.sniff(jpeg), .jpeg)
    XCTAssertNil(ImageFileFormat.sniff(Data("GIF87 is not quite".utf8).prefix(3)))
    XCTAssertNil(ImageFileFormat.sniff(Data()))
    XCTAssertNil(ImageFileFormat.sniff(png.prefix(7)), "a 7-byte prefix is not a PNG signature")
  }

  /// Every codec has a unique name and extensions that lead back to it.
  func testNamesAndExtensionsAreUnique() {
    var names: Set<String> = [], extensions: Set<String> = []
    for codec in CodecRegistry.codecs {
      XCTAssertTrue(names.insert(codec.format.rawValue).inserted, "duplicate format \(codec.format)")
      XCTAssertFalse(codec.fileExtensions.isEmpty)
      for ext in codec.fileExtensions {
        XCTAssertTrue(extensions.insert(ext).inserted, "extension .\(ext) claimed twice")
        XCTAssertEqual(ImageFileFormat(pathExtension: ext.uppercased()), codec.format)
      }
      XCTAssertEqual(CodecRegistry.codec(named: codec.format.rawValue)?.format, codec.format)
    }
    XCTAssertEqual(ImageFileFormat(pathExtension: "JPG"), .jpeg)
    XCTAssertNil(ImageFileFormat(pathExtension: "bmp"))
  }

  /// Options with the same name in several codecs have the same kind of value, so one flag
  /// serves them all — except where a table says otherwise by design (TIFF's compression is a
  /// word, PNG's a level), which fgrun parses per codec.
  func testOptionTablesAreWellFormed() throws {
    for codec in CodecRegistry.codecs {
      let table = codec.decodeOptions + codec.encodeOptions
      XCTAssertEqual(Set(table.map(\.name)).count, table.count, "\(codec.format) declares an option twice")
      for option in table {
        XCTAssertFalse(option.help.isEmpty, "\(codec.format) --\(option.name) has no help")
        if let fallback = option.defaultValue {
          XCTAssertEqual(try option.validated(fallback), fallback, "\(codec.format) --\(option.name) default out of range")
        }
      }
    }
  }

  /// Values are parsed and range-checked against the table; resolving fills defaults.
  func testOptionValuesAreCheckedAndDefaulted() throws {
    let quality = FormatOption("quality", .integer(1...100), default: 90, help: "q")
    XCTAssertEqual(try quality.parse("85"), .integer(85))
    XCTAssertThrowsError(try quality.parse("0")) { XCTAssertTrue("\($0)".contains("quality must be integer 1…100")) }
    XCTAssertThrowsError(try quality.parse("high"))
    let lossless = FormatOption("lossless", .boolean, default: false, help: "l")
    XCTAssertEqual(try lossless.parse("yes"), .boolean(true))
    let level = FormatOption("level", .number(0...1), help: "n")
    XCTAssertEqual(try level.validated(.integer(1)), .number(1))
    let resolved = try FormatOptionValues(["quality": 70, "other": "ignored"]).resolved(by: [quality, lossless, level])
    XCTAssertEqual(resolved.integer("quality"), 70)
    XCTAssertFalse(resolved.boolean("lossless"))
    XCTAssertNil(resolved.number("level"))
    XCTAssertNil(resolved.values["other"])
    XCTAssertThrowsError(try FormatOptionValues(["quality": true]).resolved(by: [quality]))
  }

  /// Every codec's decoder reads a file the same whole or in uneven strips (the renderer's
  /// streamed reads), here for the JPEG and PNG fixtures.
  func testDecodersGiveTheSameRowsInStrips() throws {
    for path in ["jpeg/testorig.jpg", "pngsuite/basn6a16.png", "pngsuite/basi2c08.png"] {
      let data = try Data(contentsOf: Fixtures.url(path))
      let codec = try XCTUnwrap(CodecRegistry.sniff(data))
      let whole = try codec.makeDecoder(data, request: DecodeRequest()).decodeAll()
      let decoder = try codec.makeDecoder(data, request: DecodeRequest())
      var ring = try decoder.makeBuffer(rows: 5)
      var y = 0
      while y < decoder.outputSize.height {
        let n = try decoder.readRows(3, into: &ring, at: 2)
        XCTAssertGreaterThan(n, 0)
        let expected = whole.cropped(to: Rect(x: 0, y: y, width: whole.width, height: n))
        let got = ring.cropped(to: Rect(x: 0, y: 2, width: ring.width, height: n))
        XCTAssertTrue(expected.hasSamePixels(as: got), "\(path) rows \(y)..<\(y + n)")
        y += n
      }
    }
  }

  /// A scale the codec cannot decode at is refused with a sentence, not a crash.
  func testUnsupportedScaleIsAnError() throws {
    let png = try Data(contentsOf: Fixtures.url("pngsuite/basn2c08.png"))
    XCTAssertThrowsError(try PNGCodec.makeDecoder(png, request: DecodeRequest(scaleDenominator: 3))) {
      XCTAssertEqual(($0 as? CodecError)?.kind, .invalidArgument)
    }
  }
}
