// fuzz-animation — the GIF, WebP and APNG animation readers on arbitrary bytes: the animation
// facts, then every frame composed on the canvas in turn (disposal, blending, offsets, local
// palettes, APNG's fcTL/fdAT sequence), which the per-format targets reach only up to page 3
// through the codec protocol. The first byte picks the codec (bit 2 set: APNG; otherwise bit 0:
// GIF or WebP) and whether frames are skipped (bit 1: every other frame skipped unread, as
// `--page` does); the rest is the file.
import Foundation
import ImageCodecs

/// Small canvases and few frames keep one run fast without hiding header bugs.
let limits = DecodeLimits(maxPixels: 4 << 20, maxFrames: 16)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  guard count > 1 else { return 0 }
  let selector = start[0]
  let data = Data(bytes: start + 1, count: count - 1)
  let codec: any AnimationDecoding.Type
  if selector & 4 != 0 {
    codec = PNGCodec.self
  } else if selector & 1 == 0 {
    codec = GIFCodec.self
  } else {
    codec = WebPCodec.self
  }
  guard let info = try? codec.readAnimation(data, limits: limits),
    let reader = try? codec.makeFrameReader(data, limits: limits)
  else { return 0 }
  for _ in 0..<info.frameCount {
    if selector & 2 != 0 {
      guard (try? reader.skip(1)) != nil else { return 0 }
    }
    guard let frame = try? reader.nextFrame() else { return 0 }
    precondition(
      frame.width == info.canvasSize.width && frame.height == info.canvasSize.height,
      "a frame of \(frame.width)×\(frame.height) on a \(info.canvasSize.width)×\(info.canvasSize.height) canvas")
  }
  return 0
}
