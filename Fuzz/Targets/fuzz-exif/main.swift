// fuzz-exif — the EXIF (TIFF-structure) parser, from an APP1 payload and from a bare TIFF block.
import ImageCodecs

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: start, count: count))
  _ = EXIF.orientation(app1: bytes)
  _ = EXIF.orientation(tiff: bytes)
  return 0
}
