// WebPAnimationWriter.swift — animated WebP assembled from frames encoded independently, several
// at once, lossy or lossless, with the still encoder's options, delays and loop count.
//
// Stored frame k is the rectangle R_k of source frame k that changed since source frame k−1
// (`changedRectangle`: exact comparison, origin snapped to even coordinates as the container
// requires; the whole canvas for the first frame), encoded by libwebp's still encoder as an image
// of its own and placed with no blending and no disposal: showing it replaces R_k's pixels with
// its decoded ones and leaves the rest of the canvas as it was, which outside R_k is frame k−1's
// pixels, equal to frame k's. Decoded frame k is therefore source frame k, exactly (lossless) or
// within the encoder's error on the rectangles that last changed each pixel (lossy); opaque frames
// carry no alpha plane. A frame equal to the previous one is stored by lengthening the previous
// stored frame (its duration becomes the sum, up to WebP's 24-bit limit; past it, a 1×1 frame).
//
// Frames are encoded on the executor, up to its thread count at once (each job reads its frame's
// rectangle in place, no copy), and collected in order; `finish` assembles them with libwebpmux
// (`cwebp_animation_assemble`), with the ICC, EXIF and XMP chunks. Without an executor each frame
// is encoded inside `add`.

import CWebP
import Foundation
import PixelBufferModule

/// Writes an animated WebP: frames' changed rectangles encoded in parallel, joined by libwebpmux.
public final class WebPAnimationWriter: AnimationFrameWriter {
  private let size: Size
  private let loopCount: Int
  private let settings: WebPEncodeSettings
  private let metadata: ImageMetadata
  private let framesInFlight: Int
  private let encodesOnExecutor: Bool
  private let encode: (PixelBuffer, Rect, WebPEncodeSettings) throws -> EncodedWebPFrame
  private var jobs: EncodeJobs<FrameJob>
  /// The last source frame added, the reference of the next one's changed rectangle.
  private var previous: PixelBuffer?
  /// Where each stored frame goes and how long it shows, in order.
  private var placements: [(rect: Rect, duration: Int)] = []
  /// The stored frames encoded so far, in order.
  private var encoded: [EncodedWebPFrame] = []
  /// The first error; every later call throws it.
  private var failure: (any Error)?

  /// The longest a stored frame may show (ms): the ANMF chunk's 24 bits.
  static let maxDuration = Int(CWEBP_MAX_DURATION)

  /// Starts an animation of `size` frames played `loopCount` times (0 forever), encoding frames
  /// on `executor` (nil: inside `add`).
  public convenience init(
    size: Size, loopCount: Int, settings: WebPEncodeSettings, metadata: ImageMetadata, executor: (any CodecExecutor)? = nil
  ) throws {
    try self.init(size: size, loopCount: loopCount, settings: settings, metadata: metadata, executor: executor, encode: Self.encode)
  }

  /// As the public initializer, with each stored frame encoded by `encode` (pixels, rectangle,
  /// settings), which runs on the executor's threads.
  init(
    size: Size, loopCount: Int, settings: WebPEncodeSettings, metadata: ImageMetadata, executor: (any CodecExecutor)?,
    encode: @escaping (PixelBuffer, Rect, WebPEncodeSettings) throws -> EncodedWebPFrame
  ) throws {
    try MetadataLimits.checkWritable(exif: metadata.exif, xmp: metadata.xmp, format: "WebP")
    guard (0...65535).contains(loopCount) else {
      throw CodecError(.invalidArgument, "A WebP animation's loop count is 0 (forever) to 65535, not \(loopCount).")
    }
    guard (1...16383).contains(size.width), (1...16383).contains(size.height) else {
      throw CodecError(.invalidArgument, "A WebP image must be 1 to 16383 pixels on each side; \(size) was requested.")
    }
    self.size = size
    self.loopCount = loopCount
    self.settings = settings
    self.metadata = metadata
    self.encode = encode
    framesInFlight = max(1, executor?.threadCount ?? 1)
    encodesOnExecutor = executor != nil
    jobs = EncodeJobs(executor: executor, limit: framesInFlight)
  }

  /// Frames go to the executor's threads, so the frame loop hands them over directly.
  public var encodesInParallel: Bool { encodesOnExecutor }

  /// The previous frame and the frames in flight, each with libwebp's working memory.
  public var stateBytes: Int { Self.stateBytes(size: size, settings: settings, framesInFlight: framesInFlight) }

  /// `stateBytes` for frames of `size` encoded `framesInFlight` at a time: the reference frame,
  /// and per frame in flight its 8-bit RGBA pixels and what libwebp holds encoding it
  /// (`WebPCodec.encoderHeldBytes`: 14 bytes a pixel lossy, 32 lossless).
  static func stateBytes(size: Size, settings: WebPEncodeSettings, framesInFlight: Int) -> Int {
    let working = settings.isLossless ? 32 : 14
    return WebPCodec.heldBytes(size, 4 + framesInFlight * (4 + working))
  }

  public func add(_ frame: PixelBuffer, delay: Int) throws {
    if let failure { throw failure }
    try frame.checkAnimationFrame(of: size, format: "An animated WebP")
    let duration = min(max(0, delay), Self.maxDuration)
    var rect = Rect(x: 0, y: 0, width: size.width, height: size.height)
    if let previous {
      if let changed = frame.changedRectangle(since: previous) {
        rect = changed.snappedToEven
      } else if let last = placements.indices.last, placements[last].duration + duration <= Self.maxDuration {
        placements[last].duration += duration
        return
      } else {
        rect = Rect(x: 0, y: 0, width: 1, height: 1)
      }
    }
    previous = frame
    placements.append((rect, duration))
    let job = FrameJob(number: placements.count, frame: frame, rect: rect)
    let settings = settings, encode = encode
    do {
      try jobs.submit(job, run: { job.run(settings: settings, encode: encode) }, write: collect)
    } catch {
      failure = error
      throw error
    }
  }

  public func finish() throws -> Data {
    if let failure { throw failure }
    do {
      try jobs.finish(write: collect)
    } catch {
      failure = error
      throw error
    }
    let frames = zip(encoded, placements).map { frame, place in
      cwebp_frame(bytes: frame.bytes, length: frame.length, x: Int32(place.rect.x), y: Int32(place.rect.y), duration: Int32(place.duration))
    }
    var message = [CChar](repeating: 0, count: 256)
    var out: UnsafeMutablePointer<UInt8>?
    var length = 0
    let width = Int32(size.width), height = Int32(size.height), loops = Int32(loopCount)
    let status = WebPStreamEncoder.withBytes(metadata.iccProfile) { icc, iccLength in
      WebPStreamEncoder.withBytes(metadata.exif) { exif, exifLength in
        WebPStreamEncoder.withBytes(metadata.xmp) { xmp, xmpLength in
          cwebp_animation_assemble(
            frames, Int32(frames.count), width, height, loops, icc, iccLength, exif, exifLength, xmp, xmpLength, &out, &length,
            &message, message.count)
        }
      }
    }
    try WebPFile.check(status, message)
    guard let out else { throw CodecError(.invalidArgument, "libwebpmux returned no animation.") }
    return Data(bytesNoCopy: out, count: length, deallocator: .custom { bytes, _ in cwebp_free(bytes.assumingMemoryBound(to: UInt8.self)) })
  }

  /// Keeps a finished job's encoded frame, or throws its error.
  private func collect(_ job: FrameJob) throws {
    encoded.append(try job.result())
  }

  /// Encodes `rect` of `frame` as a WebP image of its own with `settings` (no metadata).
  static func encode(_ frame: PixelBuffer, _ rect: Rect, _ settings: WebPEncodeSettings) throws -> EncodedWebPFrame {
    var options = settings.shimOptions
    var out: UnsafeMutablePointer<UInt8>?
    var length = 0
    var message = [CChar](repeating: 0, count: 256)
    let channels = frame.format.channelCount
    let status = frame.withUnsafeBaseAddress { base, stride in
      cwebp_encode(
        (base + rect.y * stride + rect.x * channels).assumingMemoryBound(to: UInt8.self), Int32(rect.width),
        Int32(rect.height), stride, Int32(channels), &options, nil, 0, nil, 0, nil, 0, &out, &length, &message, message.count)
    }
    let encoded = out.map { EncodedWebPFrame(bytes: $0, length: length) }
    try WebPFile.check(status, message)
    guard let encoded else { throw CodecError(.invalidArgument, "libwebp returned no image.") }
    return encoded
  }

  /// One stored frame's encode: filled by `add`, run by one executor job, read after `completion`.
  private final class FrameJob: EncodeJob, @unchecked Sendable {  // handed over, never shared
    let number: Int
    private let frame: PixelBuffer
    private let rect: Rect
    let completion = JobCompletion()
    private var outcome: Result<EncodedWebPFrame, any Error>?

    init(number: Int, frame: PixelBuffer, rect: Rect) {
      self.number = number
      self.frame = frame
      self.rect = rect
    }

    /// Encodes the frame's rectangle (on any thread).
    func run(settings: WebPEncodeSettings, encode: (PixelBuffer, Rect, WebPEncodeSettings) throws -> EncodedWebPFrame) {
      let outcome = Result { try encode(frame, rect, settings) }
      completion.complete { self.outcome = outcome }
    }

    /// The encoded frame, or the encode's error naming the frame.
    func result() throws -> EncodedWebPFrame {
      switch outcome {
      case .success(let frame): return frame
      case .failure(let error as CodecError):
        throw CodecError(error.kind, "Frame \(number) of the animated WebP cannot be encoded: \(error.message)")
      case .failure(let error): throw error
      case nil: throw CodecError(.invalidArgument, "Frame \(number) of the animated WebP was never encoded.")
      }
    }
  }
}

/// A WebP image libwebp encoded (one stored frame of an animation), released with it.
final class EncodedWebPFrame: @unchecked Sendable {  // immutable once made
  let bytes: UnsafeMutablePointer<UInt8>
  let length: Int

  init(bytes: UnsafeMutablePointer<UInt8>, length: Int) {
    self.bytes = bytes
    self.length = length
  }

  deinit { cwebp_free(bytes) }
}

extension WebPCodec: AnimationEncoding {
  public static func makeAnimationWriter(
    size: Size, layout: ChannelLayout, loopCount: Int, options: ResolvedFormatOptions, metadata: ImageMetadata,
    executor: (any CodecExecutor)?
  ) throws -> any AnimationFrameWriter {
    try WebPAnimationWriter(size: size, loopCount: loopCount, settings: WebPEncodeSettings(options), metadata: metadata, executor: executor)
  }

  public static func animationWriterStateBytes(size: Size, options: ResolvedFormatOptions, threads: Int) -> Int {
    WebPAnimationWriter.stateBytes(size: size, settings: WebPEncodeSettings(options), framesInFlight: max(1, threads))
  }
}
