// fuzz-gainmap — the gain-map container of Ultra HDR JPEGs on arbitrary bytes: the MPF index,
// the hdrgm XMP and the ISO 21496-1 block, found in the primary image and in the images the
// index lists, as the JPEG codec's header reads them; then the map's JPEG cut out, decoded and
// applied. The first byte picks what the rest is: 0 a whole JPEG file, 1 an XMP packet, 2 an
// ISO 21496-1 block (after its signature, read and written again), 3 an MPF payload.
import Foundation
import ImageCodecs
import PixelBufferModule

/// Small images only: the pixel limit keeps one run fast without hiding header bugs.
let limits = DecodeLimits(maxPixels: 1 << 20)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  guard count > 1 else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: start + 1, count: count - 1))
  let data = Data(bytes)
  switch start[0] & 3 {
  case 0:
    let baseSize = (try? JPEGDecoder.readHeader(data, limits: limits))?.size ?? Size(width: 1024, height: 1024)
    guard let map = try? UltraHDR.gainMap(in: data, baseSize: baseSize, limits: limits) else { return 0 }
    _ = UltraHDR.plainMapJPEG(map, in: data)
    guard let pixels = try? UltraHDR.decodeMap(map, in: data, limits: limits) else { return 0 }
    _ = GainMapRendition.render(base: pixels, map: pixels, metadata: map.metadata, displayHeadroom: 1)
  case 1:
    _ = GainMapXMP.version(data)
    _ = GainMapXMP.gainMapItemLength(data)
    _ = try? GainMapXMP.metadata(data)
    _ = GainMapXMP.removingGainMapDescriptions(String(decoding: bytes, as: UTF8.self))
    _ = GainMapXMP.primaryPacket(gainMapLength: count, merging: data)
  case 2:
    guard let metadata = try? GainMapISO.metadata(bytes[...]), metadata.problem == nil else { return 0 }
    _ = try? GainMapISO.metadata(GainMapISO.block(metadata)[...])
    _ = GainMapXMP.gainMapPacket(metadata)
  default:
    _ = try? MultiPictureIndex(payload: bytes, tiffStart: 0, fileLength: 2 * count)
  }
  return 0
}
