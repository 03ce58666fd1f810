// fuzz-jpeg — the JPEG decoder's header, whole, scaled and row-by-row paths on arbitrary bytes.
// Any outcome but a crash, a leak or a hang is fine: bad input must throw a CodecError.
import Foundation
import ImageCodecs
import PixelBufferModule

/// The first byte picks the path (and the scale), the rest is the file.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  guard count > 1 else { return 0 }
  let selector = start[0]
  let data = Data(bytes: start + 1, count: count - 1)
  // Small images only: the pixel limit keeps one run fast without hiding header bugs.
  let limits = DecodeLimits(maxPixels: 4 << 20)
  _ = try? JPEGDecoder.readHeader(data, limits: limits)
  let denominator = [1, 2, 4, 8][Int(selector & 3)]
  let strict = selector & 4 != 0
  if selector & 8 == 0 {
    _ = try? JPEGDecoder.decode(data, options: JPEGDecodeOptions(scaleDenominator: denominator, isStrict: strict), limits: limits)
  } else if let decoder = try? JPEGDecoder(data: data, limits: limits),
    (try? decoder.start(options: JPEGDecodeOptions(scaleDenominator: denominator, isStrict: strict))) != nil,
    var strip = try? decoder.makeBuffer(rows: 7)
  {
    while !decoder.isComplete {
      guard let n = try? decoder.readRows(7, into: &strip), n > 0 else { break }
      _ = try? decoder.skipRows(3)
    }
  }
  return 0
}
