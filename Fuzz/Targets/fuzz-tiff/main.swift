// fuzz-tiff — the TIFF decoder's header, whole, band, region and reduced paths on arbitrary bytes.
import Foundation
import ImageCodecs
import PixelBufferModule

/// The first byte picks the path: bits 0–1 whole, bands of 5 rows, a region, or 1/2 size;
/// bits 2–3 the page. The rest is the file.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  guard count > 1 else { return 0 }
  let data = Data(bytes: start + 1, count: count - 1)
  let request = DecodeRequest(limits: DecodeLimits(maxPixels: 4 << 20), options: ["page": .integer(Int(start[0] >> 2) & 3)])
  guard let decoder = try? TIFFDecoder(data: data, page: request.page, limits: request.limits) else { return 0 }
  switch start[0] & 3 {
  case 0:
    _ = try? decoder.decodeAll()
  case 1:
    guard var band = try? decoder.makeBuffer(rows: 5) else { return 0 }
    while decoder.rowsRead < decoder.outputSize.height {
      guard let n = try? decoder.readRows(5, into: &band, at: 0), n > 0 else { break }
    }
  case 2:
    let size = decoder.outputSize
    _ = try? decoder.decodeRegion(Rect(x: size.width / 3, y: size.height / 2, width: max(1, size.width / 2), height: max(1, size.height / 3)))
  default:
    var reduced = request
    reduced.scaleDenominator = 2
    _ = try? TIFFCodec.makeDecoder(data, request: reduced).decodeAll()
  }
  return 0
}
