// fuzz-png — the PNG decoder's header, whole and strip paths on arbitrary bytes.
import Foundation
import ImageCodecs
import PixelBufferModule

/// The first byte picks whole or strip decoding, the rest is the file.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  guard count > 1 else { return 0 }
  let data = Data(bytes: start + 1, count: count - 1)
  let limits = DecodeLimits(maxPixels: 4 << 20)
  _ = try? PNGDecoder.readHeader(data, limits: limits)
  if start[0] & 1 == 0 {
    _ = try? PNGDecoder.decode(data, limits: limits)
  } else if let decoder = try? PNGDecoder(data: data, limits: limits), var strip = try? decoder.makeBuffer(rows: 5) {
    while decoder.remainingRows > 0 {
      guard let n = try? decoder.readRows(into: &strip), n > 0 else { break }
    }
  }
  return 0
}
