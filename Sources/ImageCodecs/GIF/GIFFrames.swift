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
  /// The file's bytes, owned here: giflib reads them between calls, so they must not move.
  private let bytes: UnsafeMutableRawBufferPointer
  private let reader: OpaquePointer
  private var framesRead = 0

  /// Opens `data` (copied), whose records `GIFCodec.readAnimation` checks against `limits` first.
  public init(_ data: Data, limits: DecodeLimits) throws {
    let facts = try GIFCodec.readFacts(data, limits: limits)
    info = facts.animation
    frameFormat = PixelFormat(layout: facts.hasAlpha ? .rgba : .rgb, component: .uint8)
    bytes = .allocate(byteCount: max(1, data.count), alignment: 16)
    data.copyBytes(to: bytes.bindMemory(to: UInt8.self))
    var status: Int32 = 0
    var message = [CChar](repeating: 0, count: 256)
    let opened = cgif_open(
      bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count, Int64(limits.maxPixels), &status, &message, message.count)
    guard let opened else {
      bytes.deallocate()
      try GIFCodec.check(status, message)
      throw CodecError(.corrupt, "The GIF file cannot be opened.")
    }
    reader = opened
  }

  deinit {
    cgif_close(reader)
    bytes.deallocate()
  }

  public func nextFrame() throws -> PixelBuffer? {
    guard framesRead < info.frameCount else { return nil }
    var buffer = try PixelBuffer.forDecoding(
      width: info.canvasSize.width, height: info.canvasSize.height, format: frameFormat, colorSpace: .sRGB,
      metadata: ImageMetadata())
    var message = [CChar](repeating: 0, count: 256)
    var delay: Int32 = 0
    let channels = Int32(frameFormat.channelCount)
    let status = buffer.withUnsafeMutableBaseAddress { base, stride in
      cgif_next_frame(reader, channels, base.assumingMemoryBound(to: UInt8.self), stride, &delay, &message, message.count)
    }
    if Int(status) == Int(CGIF_END) { return nil }
    do {
      try GIFCodec.check(status, message)
    } catch let error as CodecError {
      throw CodecError(error.kind, "Frame \(framesRead + 1): \(error.message)")
    }
    framesRead += 1
    return buffer
  }
}
