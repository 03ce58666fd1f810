// HEIFItemPropertiesTests.swift — the clli/mdcv of the right item: a HEIF whose thumbnail declares
// other light than its primary image, in every ipma layout (versions 0 and 1, 7- and 15-bit
// indices), and truncated or garbled boxes read without a crash.

import Foundation
import XCTest

@testable import ImageCodecs

final class HEIFItemPropertiesTests: XCTestCase {
  private func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
  private func be32(_ v: Int) -> [UInt8] { be16(v >> 16) + be16(v) }
  private func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { be32(8 + payload.count) + Array(type.utf8) + payload }
  private func fullBox(_ type: String, version: Int, flags: Int, _ payload: [UInt8]) -> [UInt8] {
    box(type, [UInt8(version)] + be32(flags).suffix(3) + payload)
  }
  private func clli(_ maxCLL: Int) -> [UInt8] { box("clli", be16(maxCLL) + be16(100)) }
  private func mdcv(_ maxLuminance: Int) -> [UInt8] {
    box("mdcv", [UInt8](repeating: 0x30, count: 16) + be32(maxLuminance * 10000) + be32(50))
  }

  /// A HEIF's boxes without image data: ftyp, then meta with hdlr, pitm (`primary`), and iprp
  /// holding `properties` and one ipma of `version` and `flags` with `associations` (item, indices;
  /// index | 0x80 (0x8000 wide) marks a property essential).
  private func heif(
    primary: Int, version: Int, flags: Int, properties: [[UInt8]], associations: [(item: Int, indices: [Int])]
  ) -> Data {
    let wide = flags & 1 == 1
    var entries = be32(associations.count)
    for (item, indices) in associations {
      entries += (version == 0 ? be16(item) : be32(item)) + [UInt8(indices.count)]
      entries += indices.flatMap { wide ? be16($0) : [UInt8($0)] }
    }
    let meta = fullBox(
      "meta", version: 0, flags: 0,
      fullBox("hdlr", version: 0, flags: 0, be32(0) + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
        + fullBox("pitm", version: version, flags: 0, version == 0 ? be16(primary) : be32(primary))
        + box("iprp", box("ipco", properties.flatMap { $0 }) + fullBox("ipma", version: version, flags: flags, entries)))
    return Data(box("ftyp", Array("avifmif1avif".utf8)) + meta)
  }

  /// Thumbnail item 1 declares 4000 cd/m² (clli) and 5000 (mdcv) first; the primary item 2 has
  /// 600 and 1000, after an unrelated property.
  private func thumbnailFirst(version: Int, flags: Int, primary: Int = 2) -> Data {
    let essential = flags & 1 == 1 ? 0x8000 : 0x80
    return heif(
      primary: primary, version: version, flags: flags,
      properties: [clli(4000), mdcv(5000), box("ispe", [0, 0, 0, 0] + be32(64) + be32(48)), clli(600), mdcv(1000)],
      associations: [(1, [1, 2, 3]), (primary, [3 | essential, 4, 5])])
  }

  func testThePrimaryItemsLightIsReadNotTheFirstProperties() {
    for (version, flags) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
      let file = thumbnailFirst(version: version, flags: flags, primary: version == 1 ? 70_000 : 2)
      let primary = HEIFItemProperties.lightLevels(file)
      XCTAssertEqual(primary.maxCLL, 600, "ipma version \(version), flags \(flags)")
      XCTAssertEqual(primary.masteringMax, 1000, "ipma version \(version), flags \(flags)")
      let thumbnail = HEIFItemProperties.lightLevels(file, item: 1)
      XCTAssertEqual(thumbnail.maxCLL, 4000)
      XCTAssertEqual(thumbnail.masteringMax, 5000)
      let unlisted = HEIFItemProperties.lightLevels(file, item: 9)
      XCTAssertNil(unlisted.maxCLL)
      XCTAssertNil(unlisted.masteringMax)
    }
  }

  func testTruncatedAndGarbledBoxesReadWithoutACrash() {
    let file = thumbnailFirst(version: 0, flags: 1)
    // Any prefix cuts the meta box short: nothing is declared.
    for length in 0..<file.count {
      let cut = HEIFItemProperties.lightLevels(file.prefix(length))
      XCTAssertTrue(cut.maxCLL == nil && cut.masteringMax == nil, "prefix of \(length) bytes: \(cut)")
    }
    // Every byte replaced by values that make sizes, counts and indices lie: read without a crash
    // (an out-of-range read traps), and a value read is one the file's bytes spell.
    for at in 0..<file.count {
      for value: UInt8 in [0x00, 0x01, 0x7F, 0x80, 0xFF] {
        var garbled = file
        garbled[at] = value
        let read = HEIFItemProperties.lightLevels(garbled)
        XCTAssertTrue(read.masteringMax.map { $0.isFinite && $0 >= 0 } ?? true, "byte \(at) = \(value)")
      }
    }
    // Counts far beyond the bytes: an entry count of 2^32 − 1 and 255 associations per entry.
    var counts = file
    let ipma = counts.range(of: Data("ipma".utf8))!.upperBound
    counts.replaceSubrange((ipma + 4)..<(ipma + 8), with: [0xFF, 0xFF, 0xFF, 0xFF])
    counts[ipma + 10] = 0xFF
    XCTAssertNil(HEIFItemProperties.lightLevels(counts).maxCLL)
    // meta (at 20, after the 20-byte ftyp) with a 64-bit size above 4 GiB, and with a size of 0
    // (to the end of the file).
    var huge = file
    huge.replaceSubrange(20..<24, with: [0, 0, 0, 1])
    huge.replaceSubrange(28..<32, with: [0, 0, 0, 1])
    XCTAssertNil(HEIFItemProperties.lightLevels(huge).maxCLL)
    XCTAssertEqual(HEIFItemProperties.lightLevels(file).maxCLL, 600)
    var toEnd = file
    toEnd.replaceSubrange(20..<24, with: [0, 0, 0, 0])
    XCTAssertEqual(HEIFItemProperties.lightLevels(toEnd).maxCLL, 600)
  }
}
