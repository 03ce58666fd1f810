// fuzz-heif — the AVIF/HEIC reader (libheif through the CHEIF shim) through the codec protocol
// (see FuzzCodec): HEIC when the bytes' brands say so, AVIF otherwise (libheif reads both either way).
import FuzzCodec
import ImageCodecs

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  guard count > 1 else { return 0 }
  let head = Array(UnsafeBufferPointer(start: start + 1, count: min(count - 1, CodecRegistry.sniffLength)))
  fuzzDecode(HEICCodec.sniff(head) ? HEICCodec.self : AVIFCodec.self, start, count)
  return 0
}
