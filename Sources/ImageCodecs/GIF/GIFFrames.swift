// GIFFrames.swift — a GIF's frames one at a time, composed on its logical screen (CGIF shim:
// giflib's record loop; disposal, transparency, local colour tables and interlace in C).
import CGIF
import Foundation
import PixelBufferModule

/// Reads a GIF's frames in order; holds the screen (and one saved copy for frames that restore
/// the previous screen), never more than one frame.
public final class GIFFrameReader: AnimationFrameReader {
  public let info: AnimationInfo
  public let frameFormat: PixelFormat
  private let reader: OpaquePointer
  /// The file, handed to giflib afresh at each call (not copied: a mapped file stays mapped).
  private let data: Data
  private var framesRead = 0

  /// Opens `data`, whose records `GIFCodec.readAnimation` checks against `limits` first.
  public init(_ data: Data, limits: DecodeLimits) throws {
    let facts = try GIFCodec.readFacts(data, limits: limits)
    info = facts.animation
    frameFormat = PixelFormat(layout: facts.hasAlpha ? .rgba : .rgb, component: .uint8)
    self.data = data
    var status: Int32 = 0
    var message = [CChar](repeating: 0, count: 256)
    let opened = data.withUnsafeBytes { raw in
      cgif_open(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, Int64(limits.maxPixels), &status, &message, message.count)
    }
    guard let opened else {
      try GIFCodec.check(status, message)
      throw CodecError(.corrupt, "The GIF file cannot be opened.")
    }
    reader = opened
  }

  deinit { cgif_close(reader) }

  public func nextFrame() throws -> PixelBuffer? {
    guard framesRead < info.frameCount else { return nil }
    let channels = Int32(frameFormat.channelCount), reader = reader, data = data
    var delay: Int32 = 0
    let frame = try composedFrame(number: framesRead + 1, colorSpace: .sRGB, end: Int32(CGIF_END), check: GIFCodec.check) {
      out, stride, message in
      data.withUnsafeBytes { raw in
        cgif_next_frame(reader, raw.bindMemory(to: UInt8.self).baseAddress, raw.count, channels, out, stride, &delay, &message, 256)
      }
    }
    if frame != nil { framesRead += 1 }
    return frame
  }
}
