// FuzzRegressionTests.swift — replays every input the fuzzers reported (make fuzz), committed under
// Fixtures/fuzz-regressions/TARGET/ with the target's selector byte first, through the code that
// target drives: every decode path of the format (header, whole and in strips, at each reduced
// scale, strict and not) or the metadata parsers. Each must end in pixels or a CodecError, never a
// crash; under `make test-asan` never a memory error either.
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class FuzzRegressionTests: XCTestCase {
  func testEveryCommittedFuzzInputDecodesOrFailsWithACodecError() throws {
    let root = Fixtures.url("fuzz-regressions")
    let files = FileManager.default
    var replayed = 0
    for target in try files.contentsOfDirectory(atPath: root.path).sorted() {
      let folder = root.appendingPathComponent(target)
      for name in try files.contentsOfDirectory(atPath: folder.path).sorted() {
        let input = try Data(contentsOf: folder.appendingPathComponent(name))
        guard input.count > 1 else { continue }
        let data = Data(input.dropFirst())
        let what = "\(target)/\(name)"
        switch target {
        case "fuzz-jpeg", "fuzz-png", "fuzz-webp", "fuzz-gif", "fuzz-tiff", "fuzz-heif":
          let codec = try XCTUnwrap(CodecRegistry.sniff(data), "\(what): no codec recognises it")
          replayEveryPath(codec, data, what)
        case "fuzz-exif", "fuzz-metadata":
          let bytes = Array(data)
          _ = EXIF.fields(tiff: bytes)
          _ = EXIF.orientation(app1: bytes)
          _ = EXIF.upright(tiff: bytes, pixelSize: Size(width: 70_000, height: 3))
          for marker in [0xE1, 0xED, 0xFE] {
            var metadata = ImageMetadata()
            JPEGMetadata.read([JPEGSegment(marker: marker, payload: bytes)], into: &metadata)
          }
        case "fuzz-text":
          continue  // replayed where the text layout is (FilterGraphTests' TextFuzzRegressionTests)
        default:
          XCTFail("\(what): no replay for the target \(target)")
        }
        replayed += 1
      }
    }
    XCTAssertGreaterThan(replayed, 0, "the committed inputs were found")
  }

  /// Header, whole and strip decodes at every scale the header offers, strict and not.
  private func replayEveryPath(_ codec: any ImageCodec.Type, _ data: Data, _ what: String) {
    func expectCodecError(_ body: () throws -> Void) {
      do { try body() } catch { XCTAssertTrue(error is CodecError, "\(what): \(type(of: error)) \(error)") }
    }
    for strict in [false, true] {
      var request = DecodeRequest(isStrict: strict, limits: DecodeLimits(maxPixels: 4 << 20))
      var header: ImageHeader?
      expectCodecError { header = try codec.readHeader(data, request: request) }
      guard let header else { continue }
      for scale in [1] + codec.reducedScaleDenominators(for: header) {
        request.scaleDenominator = scale
        expectCodecError { _ = try codec.makeDecoder(data, request: request).decodeAll() }
        expectCodecError {
          let decoder = try codec.makeDecoder(data, request: request)
          var strip = try decoder.makeBuffer(rows: 7)
          var row = 0
          while row < decoder.outputSize.height {
            let n = try decoder.readRows(7, into: &strip, at: 0)
            guard n > 0 else { break }
            row += n
          }
        }
      }
    }
  }
}
