// fuzz-gif — the GIF decoder through the codec protocol (see FuzzCodec).
import FuzzCodec
import ImageCodecs

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  fuzzDecode(GIFCodec.self, start, count)
  return 0
}
