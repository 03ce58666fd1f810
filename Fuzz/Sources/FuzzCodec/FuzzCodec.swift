// FuzzCodec.swift — one codec's header, whole, scaled, paged and strip decoding on arbitrary
// bytes, through the registry's protocol: the body of every per-format fuzz target.
import Foundation
import ImageCodecs
import PixelBufferModule

/// Decodes `count` bytes at `start` with `codec`. The first byte picks the path: bits 0–1 the
/// scale (full, or one of the file's reduced scales), bit 2 strict decoding, bits 3–4 the page,
/// bit 5 strips of 7 rows instead of a whole decode. Errors are expected; crashes, leaks and
/// hangs are what the fuzzer looks for.
public func fuzzDecode(_ codec: any ImageCodec.Type, _ start: UnsafePointer<UInt8>, _ count: Int) {
  guard count > 1 else { return }
  let selector = start[0]
  let data = Data(bytes: start + 1, count: count - 1)
  var request = DecodeRequest(isStrict: selector & 4 != 0, limits: DecodeLimits(maxPixels: 4 << 20))
  let page = Int(selector >> 3) & 3
  if page > 0 { request.options["page"] = .integer(page) }
  guard let header = try? codec.readHeader(data, request: request) else { return }
  let scales = codec.reducedScaleDenominators(for: header)
  let pick = Int(selector & 3)
  if pick > 0, pick <= scales.count { request.scaleDenominator = scales[pick - 1] }
  guard let decoder = try? codec.makeDecoder(data, request: request) else { return }
  if selector & 32 == 0 {
    _ = try? decoder.decodeAll()
    return
  }
  guard var strip = try? decoder.makeBuffer(rows: 7) else { return }
  var row = 0
  while row < decoder.outputSize.height {
    guard let n = try? decoder.readRows(7, into: &strip, at: 0), n > 0 else { return }
    row += n
  }
}
