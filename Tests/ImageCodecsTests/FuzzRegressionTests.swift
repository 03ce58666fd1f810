// FuzzRegressionTests.swift — replays every input the fuzzers reported (make fuzz), committed under
// Fixtures/fuzz-regressions/TARGET/ with the target's selector byte first, through the code that
// target drives: every decode path of the format (header, whole and in strips, at each reduced
// scale, strict and not), every frame of an animation, the gain-map container, or the metadata
// parsers (the text and server URL targets are replayed in FilterGraphTests and ImageServerTests). Each must end in pixels or a CodecError, never a
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
        case "fuzz-animation":
          replayAnimation(input[input.startIndex], data, what)
        case "fuzz-gainmap":
          replayGainMap(input[input.startIndex], data, what)
        case "fuzz-text", "fuzz-server-url":
          continue  // replayed where the text layout and the server are (FilterGraphTests, ImageServerTests)
        default:
          XCTFail("\(what): no replay for the target \(target)")
        }
        replayed += 1
      }
    }
    XCTAssertGreaterThan(replayed, 0, "the committed inputs were found")
  }

  /// Every frame of a GIF (selector bit 0 clear) or WebP animation, read or skipped (bit 1).
  private func replayAnimation(_ selector: UInt8, _ data: Data, _ what: String) {
    let codec: any AnimationDecoding.Type = selector & 1 == 0 ? GIFCodec.self : WebPCodec.self
    let limits = DecodeLimits(maxPixels: 4 << 20, maxFrames: 16)
    do {
      let info = try codec.readAnimation(data, limits: limits)
      let reader = try codec.makeFrameReader(data, limits: limits)
      for _ in 0..<info.frameCount {
        if selector & 2 != 0 { try reader.skip(1) }
        guard let frame = try reader.nextFrame() else { break }
        XCTAssertEqual(Size(width: frame.width, height: frame.height), info.canvasSize, "\(what): a frame is the canvas")
      }
    } catch {
      XCTAssertTrue(error is CodecError, "\(what): \(type(of: error)) \(error)")
    }
  }

  /// The gain-map container: a whole JPEG (selector 0: the map found, cut out, decoded and
  /// applied), an XMP packet (1), an ISO 21496-1 block (2), an MPF payload (3).
  private func replayGainMap(_ selector: UInt8, _ data: Data, _ what: String) {
    let limits = DecodeLimits(maxPixels: 1 << 20)
    do {
      switch selector & 3 {
      case 0:
        let baseSize = (try? JPEGDecoder.readHeader(data, limits: limits))?.size ?? Size(width: 1024, height: 1024)
        guard let map = try UltraHDR.gainMap(in: data, baseSize: baseSize, limits: limits) else { return }
        _ = UltraHDR.plainMapJPEG(map, in: data)
        let pixels = try UltraHDR.decodeMap(map, in: data, limits: limits)
        _ = try GainMapRendition.render(base: pixels, map: pixels, metadata: map.metadata, displayHeadroom: 1)
      case 1:
        _ = GainMapXMP.version(data)
        _ = GainMapXMP.gainMapItemLength(data)
        _ = GainMapXMP.removingGainMapDescriptions(String(decoding: data, as: UTF8.self))
        _ = GainMapXMP.primaryPacket(gainMapLength: data.count + 1, merging: data)
        _ = try GainMapXMP.metadata(data)
      case 2:
        guard let metadata = try GainMapISO.metadata(Array(data)[...]), metadata.problem == nil else { return }
        _ = try GainMapISO.metadata(GainMapISO.block(metadata)[...])
        _ = GainMapXMP.gainMapPacket(metadata)
      default:
        _ = try MultiPictureIndex(payload: Array(data), tiffStart: 0, fileLength: 2 * data.count)
      }
    } catch {
      XCTAssertTrue(error is CodecError, "\(what): \(type(of: error)) \(error)")
    }
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
