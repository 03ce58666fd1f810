// fuzz-heif — the AVIF/HEIC reader (libheif through the CHEIF shim): header and whole decode of
// a page, on arbitrary bytes.
import Foundation
import ImageCodecs
import PixelBufferModule

/// The first byte picks the page (bits 0–1) and strictness (bit 2); the rest is the file,
/// decoded through whichever HEIF codec its brands name (AVIF when none does).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  guard count > 1 else { return 0 }
  let data = Data(bytes: start + 1, count: count - 1)
  let request = DecodeRequest(
    isStrict: start[0] & 4 != 0, limits: DecodeLimits(maxPixels: 4 << 20), options: ["page": .integer(Int(start[0]) & 3)])
  let codec: any ImageCodec.Type = HEICCodec.sniff(Array(data.prefix(CodecRegistry.sniffLength))) ? HEICCodec.self : AVIFCodec.self
  guard (try? codec.readHeader(data, request: request)) != nil else { return 0 }
  _ = try? codec.makeDecoder(data, request: request).decodeAll()
  return 0
}
