// PNGSuiteTests.swift — the PNG decoder against PngSuite: every valid file decodes to its
// reference pixels (computed by an independent decoder in Python and checked against Pillow: see
// Fixtures/pngsuite-reference/make_reference.py), every broken `x*` file and every libpng crasher
// gives a clear CodecError, and nothing crashes.

import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class PNGSuiteTests: XCTestCase {
  struct Reference: Decodable {
    let width: Int
    let height: Int
    let layout: String
    let bitDepth: Int
    let sha256: String
  }

  func testEveryValidFileDecodesToItsReferencePixels() throws {
    let references = try JSONDecoder().decode(
      [String: Reference].self, from: Fixtures.data("pngsuite-reference/reference.json"))
    XCTAssertEqual(references.count, 162)
    for (name, expected) in references.sorted(by: { $0.key < $1.key }) {
      let pixels: PixelBuffer
      do {
        pixels = try PNGDecoder.decode(Fixtures.data("pngsuite/\(name)"))
      } catch {
        XCTFail("\(name): \(error)")
        continue
      }
      XCTAssertEqual(pixels.size, Size(width: expected.width, height: expected.height), name)
      XCTAssertEqual("\(pixels.format.layout)", expected.layout, name)
      XCTAssertEqual(pixels.format.component == .uint16 ? 16 : 8, expected.bitDepth, name)
      XCTAssertEqual(sha256Hex(packedBytes(pixels)), expected.sha256, "\(name): pixels differ from the reference decode")
    }
  }

  func testEveryBrokenSuiteFileIsAClearError() throws {
    let folder = Fixtures.url("pngsuite")
    let broken = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("x") }.sorted()
    XCTAssertEqual(broken.count, 14)
    for name in broken {
      assertClearError(try Data(contentsOf: folder.appendingPathComponent(name)), name)
    }
  }

  /// libpng's crasher collection: each file is refused with a sentence or, where the damage is in
  /// an ancillary chunk the decoder may skip, decoded; never a crash.
  func testTheLibpngCrashersAreRefusedOrDecodedNeverACrash() throws {
    let folder = Fixtures.url("pngsuite/libpng-crashers")
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".png") }.sorted()
    XCTAssertEqual(files.count, 23)
    var refused = 0
    for name in files {
      let data = try Data(contentsOf: folder.appendingPathComponent(name))
      do {
        let pixels = try PNGDecoder.decode(data)
        XCTAssertGreaterThan(pixels.width * pixels.height, 0, name)
      } catch let error as CodecError {
        refused += 1
        XCTAssertGreaterThan(error.message.count, 10, "\(name): \(error.message)")
      } catch {
        XCTFail("\(name): not a CodecError: \(error)")
      }
    }
    // The files with a damaged IDAT or a huge critical chunk cannot give pixels.
    XCTAssertGreaterThanOrEqual(refused, 3)
  }

  private func assertClearError(_ data: Data, _ name: String, line: UInt = #line) {
    do {
      _ = try PNGDecoder.decode(data)
      XCTFail("\(name) decoded; it is broken", line: line)
    } catch let error as CodecError {
      XCTAssertTrue([.corrupt, .truncated, .unsupported].contains(error.kind), "\(name): \(error)", line: line)
      XCTAssertGreaterThan(error.message.count, 10, "\(name): \(error.message)", line: line)
    } catch {
      XCTFail("\(name): not a CodecError: \(error)", line: line)
    }
  }

  /// The pixel bytes row after row, without the rows' padding.
  private func packedBytes(_ pixels: PixelBuffer) -> [UInt8] {
    let rowLength = pixels.width * pixels.format.bytesPerPixel
    var bytes: [UInt8] = []
    bytes.reserveCapacity(rowLength * pixels.height)
    pixels.withUnsafeBaseAddress { base, rowBytes in
      for y in 0..<pixels.height {
        bytes.append(contentsOf: UnsafeRawBufferPointer(start: base + y * rowBytes, count: rowLength))
      }
    }
    return bytes
  }
}
