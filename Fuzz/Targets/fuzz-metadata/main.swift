// fuzz-metadata — the metadata rewriter and readers: EXIF.upright and EXIF.fields on a bare TIFF
// block (the rewritten block must parse again), JPEG APP1/APP13/COM payloads, and PNG text chunks
// behind a valid PNG header. The first byte selects the reader; the rest is its input.
import Foundation
import ImageCodecs
import PixelBufferModule

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  guard count > 0 else { return 0 }
  let selector = start[0]
  let bytes = Array(UnsafeBufferPointer(start: start + 1, count: count - 1))
  switch selector % 3 {
  case 0:
    _ = EXIF.fields(tiff: bytes)
    if let upright = EXIF.upright(tiff: bytes, pixelSize: Size(width: 70_000, height: 3)) {
      // What the rewriter writes must read back upright.
      if let fields = EXIF.fields(tiff: upright), let orientation = fields.orientation, orientation != .up {
        fatalError("EXIF.upright left orientation \(orientation)")
      }
    }
  case 1:
    var metadata = ImageMetadata()
    let marker = [0xE1, 0xED, 0xFE][Int(selector / 3) % 3]
    JPEGMetadata.read([JPEGSegment(marker: marker, payload: bytes)], into: &metadata)
    _ = try? JPEGMetadata.segments(for: metadata)
  default:
    // A 1x1 gray PNG's signature and IHDR, then the fuzzed chunks.
    let head: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
      0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0, 0x3A, 0x7E, 0x9B, 0x55]
    _ = try? PNGDecoder.readHeader(Data(head + bytes))
  }
  return 0
}
