// WebPAnimationWriter.swift — animated WebP through libwebp's animation encoder (CWebP shim),
// lossy or lossless, with the still encoder's options, delays and loop count.
import CWebP
import Foundation
import PixelBufferModule

/// Writes an animated WebP; libwebp keeps the previous canvases it compares frames against
/// (to store only the changed rectangle, blended or not, whichever is smaller), the last two
/// encoded frames (there are no key frames, so each is final once the next has been added) and
/// the output. Each frame's encode runs its alpha plane on a second thread (libwebp's
/// `thread_level`).
public final class WebPAnimationWriter: AnimationFrameWriter {
  private let writer: OpaquePointer
  private let size: Size
  private let metadata: ImageMetadata

  /// Starts an animation of `size` frames played `loopCount` times (0 forever).
  public init(size: Size, loopCount: Int, settings: WebPEncodeSettings, metadata: ImageMetadata) throws {
    try MetadataLimits.checkWritable(exif: metadata.exif, xmp: metadata.xmp, format: "WebP")
    var options = settings.shimOptions
    var status: Int32 = 0
    var message = [CChar](repeating: 0, count: 256)
    guard (0...65535).contains(loopCount) else {
      throw CodecError(.invalidArgument, "A WebP animation's loop count is 0 (forever) to 65535, not \(loopCount).")
    }
    guard let opened = cwebp_animation_writer_new(Int32(size.width), Int32(size.height), Int32(loopCount), &options, &status, &message, message.count) else {
      try WebPFile.check(status, message)
      throw CodecError(.invalidArgument, "libwebp could not start the animation.")
    }
    writer = opened
    self.size = size
    self.metadata = metadata
  }

  deinit { cwebp_animation_writer_free(writer) }

  /// libwebp's encoder keeps three canvases of ARGB (the frame being encoded, the previous
  /// frame, and the previous frame with its rectangle disposed to the background).
  public var stateBytes: Int { size.width * size.height * 4 * 3 }

  public func add(_ frame: PixelBuffer, delay: Int) throws {
    try frame.checkAnimationFrame(of: size, format: "An animated WebP")
    var message = [CChar](repeating: 0, count: 256)
    let channels = Int32(frame.format.channelCount)
    let status = frame.withUnsafeBaseAddress { base, stride in
      cwebp_animation_writer_add(writer, base.assumingMemoryBound(to: UInt8.self), stride, channels, Int32(max(0, delay)), &message, message.count)
    }
    try WebPFile.check(status, message)
  }

  public func finish() throws -> Data {
    var message = [CChar](repeating: 0, count: 256)
    var out: UnsafeMutablePointer<UInt8>?
    var length = 0
    let status = WebPStreamEncoder.withBytes(metadata.iccProfile) { icc, iccLength in
      WebPStreamEncoder.withBytes(metadata.exif) { exif, exifLength in
        WebPStreamEncoder.withBytes(metadata.xmp) { xmp, xmpLength in
          cwebp_animation_writer_finish(writer, icc, iccLength, exif, exifLength, xmp, xmpLength, &out, &length, &message, message.count)
        }
      }
    }
    try WebPFile.check(status, message)
    guard let out else { throw CodecError(.invalidArgument, "libwebp returned no animation.") }
    defer { cwebp_free(out) }
    return Data(bytes: out, count: length)
  }
}

extension WebPCodec: AnimationEncoding {
  public static func makeAnimationWriter(
    size: Size, layout: ChannelLayout, loopCount: Int, options: ResolvedFormatOptions, metadata: ImageMetadata
  ) throws -> any AnimationFrameWriter {
    try WebPAnimationWriter(size: size, loopCount: loopCount, settings: WebPEncodeSettings(options), metadata: metadata)
  }
}
