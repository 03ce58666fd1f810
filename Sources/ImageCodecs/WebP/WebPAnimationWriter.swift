// WebPAnimationWriter.swift — animated WebP written from frames encoded independently, several
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
// rectangle in place, no copy), and collected in order. Without an executor each frame is encoded
// inside `add`.
//
// The file (the WebP container specification's extended format) goes to the `AnimationOutput` as
// the frames are made: RIFF and VP8X headers, ICCP, ANIM (background white, as libwebp's animation
// encoder sets it, and the loop count), then one ANMF chunk per stored frame — its offset/2,
// size − 1 and duration, flags "do not blend, do not dispose", and the ALPH and VP8 or VP8L
// chunks of the frame's encoded still (its RIFF header and VP8X dropped) — written once the next
// stored frame exists (until then its duration may grow), then EXIF and XMP. Each chunk is padded
// to an even length. The RIFF length and VP8X's alpha flag (set when a stored frame has an alpha
// plane or VP8L's alpha bit) are known at the end and overwritten there, which a pipe cannot take:
// to one, the output holds the whole file until the end (`AnimationOutput.holdUntilFinished`).

import CWebP
import Foundation
import PixelBufferModule

/// Writes an animated WebP: frames' changed rectangles encoded in parallel, written in order.
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
  /// The stored frames encoded and not yet written, in order.
  private var encoded: [EncodedWebPFrame] = []
  /// The stored frames written to the output.
  private var written = 0
  /// True once a stored frame has alpha (VP8X's flag).
  private var hasAlpha = false
  private let output: AnimationOutput
  /// The first error; every later call throws it.
  private var failure: (any Error)?

  /// The longest a stored frame may show (ms): the ANMF chunk's 24 bits.
  static let maxDuration = Int(CWEBP_MAX_DURATION)

  /// Starts an animation of `size` frames played `loopCount` times (0 forever), encoding frames
  /// on `executor` (nil: inside `add`), written to `output` (nil: to memory).
  public convenience init(
    size: Size, loopCount: Int, settings: WebPEncodeSettings, metadata: ImageMetadata, executor: (any CodecExecutor)? = nil,
    output: AnimationOutput? = nil
  ) throws {
    try self.init(
      size: size, loopCount: loopCount, settings: settings, metadata: metadata, executor: executor,
      output: output ?? AnimationOutput(handle: nil, format: "animated WebP"), encode: Self.encode)
  }

  /// As the public initializer, with each stored frame encoded by `encode` (pixels, rectangle,
  /// settings), which runs on the executor's threads.
  init(
    size: Size, loopCount: Int, settings: WebPEncodeSettings, metadata: ImageMetadata, executor: (any CodecExecutor)?,
    output: AnimationOutput, encode: @escaping (PixelBuffer, Rect, WebPEncodeSettings) throws -> EncodedWebPFrame
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
    self.output = output
    output.holdUntilFinished()
    try writeHeader()
  }

  /// Frames go to the executor's threads, so the frame loop hands them over directly.
  public var encodesInParallel: Bool { encodesOnExecutor }

  /// The previous frame and the frames in flight, each with libwebp's working memory (and,
  /// encoded, waiting to be written).
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

  public func finish() throws -> Data? {
    if let failure { throw failure }
    do {
      try jobs.finish(write: collect)
      try writeFrames(upTo: placements.count)
      try writeChunk("EXIF", data: metadata.exif)
      try writeChunk("XMP ", data: metadata.xmp)
      guard output.count - 8 <= Int(UInt32.max - 1) else {
        throw CodecError(.tooLarge, "The animated WebP would be \(output.count) bytes; a WebP file holds at most 4 GB.")
      }
      try output.overwrite(Self.littleEndian(output.count - 8, bytes: 4), at: 4)
      if hasAlpha { try output.overwrite([flags | 0x10], at: 20) }
      return try output.finish()
    } catch {
      failure = error
      throw error
    }
  }

  /// VP8X's flags known at the start: animation, and the ICC, EXIF and XMP chunks present.
  private var flags: UInt8 {
    0x02 | (metadata.iccProfile?.isEmpty == false ? 0x20 : 0) | (metadata.exif?.isEmpty == false ? 0x08 : 0)
      | (metadata.xmp?.isEmpty == false ? 0x04 : 0)
  }

  /// Writes the RIFF header (its length overwritten by `finish`), VP8X, ICCP and ANIM.
  private func writeHeader() throws {
    try output.write(Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8))
    try writeChunk(
      "VP8X", bytes: [flags, 0, 0, 0] + Self.littleEndian(size.width - 1, bytes: 3) + Self.littleEndian(size.height - 1, bytes: 3))
    try writeChunk("ICCP", data: metadata.iccProfile)
    try writeChunk("ANIM", bytes: [0xFF, 0xFF, 0xFF, 0xFF] + Self.littleEndian(loopCount, bytes: 2))
  }

  /// Writes the stored frames encoded before stored frame `end` (their durations are final).
  private func writeFrames(upTo end: Int) throws {
    while written < end, !encoded.isEmpty {
      let frame = encoded.removeFirst(), place = placements[written]
      let parts = try Self.frameChunks(frame, number: written + 1)
      hasAlpha = hasAlpha || parts.hasAlpha
      let header =
        Self.littleEndian(place.rect.x / 2, bytes: 3) + Self.littleEndian(place.rect.y / 2, bytes: 3)
        + Self.littleEndian(place.rect.width - 1, bytes: 3) + Self.littleEndian(place.rect.height - 1, bytes: 3)
        + Self.littleEndian(place.duration, bytes: 3) + [0x02]  // do not blend, do not dispose
      let length = header.count + parts.ranges.reduce(0) { $0 + $1.count }
      try output.write(Array("ANMF".utf8) + Self.littleEndian(length, bytes: 4) + header)
      for range in parts.ranges {
        try output.write(UnsafeRawBufferPointer(start: frame.bytes + range.lowerBound, count: range.count))
      }
      written += 1
    }
  }

  /// The byte ranges of `frame`'s ALPH, VP8 and VP8L chunks (headers and padding included), and
  /// whether it has alpha.
  static func frameChunks(_ frame: EncodedWebPFrame, number: Int) throws -> (ranges: [Range<Int>], hasAlpha: Bool) {
    let bytes = UnsafeBufferPointer(start: frame.bytes, count: frame.length)
    func tag(_ at: Int) -> String { String(decoding: bytes[at..<(at + 4)], as: UTF8.self) }
    guard bytes.count >= 12, tag(0) == "RIFF", tag(8) == "WEBP" else {
      throw CodecError(.invalidArgument, "libwebp's image for frame \(number) is not a WebP file.")
    }
    var ranges: [Range<Int>] = []
    var hasAlpha = false
    var at = 12
    while at + 8 <= bytes.count {
      let length = Int(bytes[at + 4]) | Int(bytes[at + 5]) << 8 | Int(bytes[at + 6]) << 16 | Int(bytes[at + 7]) << 24
      let end = at + 8 + length + (length & 1)
      guard end <= bytes.count else { throw CodecError(.invalidArgument, "libwebp's image for frame \(number) is cut short.") }
      switch tag(at) {
      case "ALPH":
        hasAlpha = true
        ranges.append(at..<end)
      case "VP8 ": ranges.append(at..<end)
      case "VP8L":
        // The bitstream's header: signature, then 14 + 14 bits of size and the alpha_is_used bit.
        if length >= 5, bytes[at + 12] & 0x10 != 0 { hasAlpha = true }
        ranges.append(at..<end)
      default: break
      }
      at = end
    }
    guard !ranges.isEmpty else { throw CodecError(.invalidArgument, "libwebp's image for frame \(number) has no bitstream.") }
    return (ranges, hasAlpha)
  }

  /// Writes the chunk `tag` with `payload` (none when nil or empty), padded to an even length.
  private func writeChunk(_ tag: String, data payload: Data?) throws {
    guard let payload, !payload.isEmpty else { return }
    try writeChunk(tag, bytes: [UInt8](payload))
  }

  /// Writes the chunk `tag` with `payload`, padded to an even length.
  private func writeChunk(_ tag: String, bytes payload: [UInt8]) throws {
    try output.write(Array(tag.utf8) + Self.littleEndian(payload.count, bytes: 4))
    try output.write(payload)
    if payload.count & 1 == 1 { try output.write([0]) }
  }

  /// `value`'s low `bytes` bytes, least significant first.
  static func littleEndian(_ value: Int, bytes: Int) -> [UInt8] {
    (0..<bytes).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
  }

  /// Keeps a finished job's encoded frame, or throws its error; writes the frames whose
  /// durations are final.
  private func collect(_ job: FrameJob) throws {
    encoded.append(try job.result())
    try writeFrames(upTo: placements.count - 1)
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
    size: Size, layout: ChannelLayout, loopCount: Int, frameCount: Int, options: ResolvedFormatOptions, metadata: ImageMetadata,
    executor: (any CodecExecutor)?, output: AnimationOutput
  ) throws -> any AnimationFrameWriter {
    try WebPAnimationWriter(
      size: size, loopCount: loopCount, settings: WebPEncodeSettings(options), metadata: metadata, executor: executor, output: output)
  }

  public static func animationWriterStateBytes(size: Size, options: ResolvedFormatOptions, threads: Int) -> Int {
    WebPAnimationWriter.stateBytes(size: size, settings: WebPEncodeSettings(options), framesInFlight: max(1, threads))
  }
}
