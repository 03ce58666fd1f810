// Animation.swift — animated files read and written one frame at a time.
//
// A frame reader hands out each frame composed onto the whole canvas, as a browser shows it
// (the codec applies disposal and blending), and holds only what that composition needs (the
// canvas, and for GIF's "restore to previous" one saved copy): however many frames a file has,
// reading it costs one frame of memory plus the decoder's state. A file is read in place, never
// held whole: a GIF through its descriptor 64 KiB at a time, an APNG a chunk header at a time and
// then one frame's compressed data at a time, an animated WebP mapped (libwebp's demuxer needs the
// whole RIFF in one buffer), its pages released behind each frame. A frame writer takes full
// frames, keeps what its encoder needs (its reference canvases, the frames it is encoding), and
// writes each frame's bytes to its `AnimationOutput` as they are made: to a file, at most that
// output's buffer is held, whatever the number of frames.
import Foundation
import PixelBufferModule

/// What an animated file's headers say about its frames, read without decoding them.
public struct AnimationInfo: Hashable, Sendable {
  /// The canvas (GIF's logical screen, WebP's canvas) every frame is composed on.
  public var canvasSize: Size
  /// Each frame's delay in milliseconds, as stored (GIF stores centiseconds; a delay of 0
  /// or 10 ms is shown as 100 ms by browsers, and kept as stored here).
  public var delays: [Int]
  /// How many times the animation plays, 0 forever (WebP's loop count, libvips's `loop`). GIF's
  /// NETSCAPE2.0 count n > 0 repeats the animation n times after the first, so it plays n + 1
  /// times (as browsers and libvips read it); a GIF without the extension plays once.
  public var loopCount: Int

  /// Creates a description.
  public init(canvasSize: Size, delays: [Int], loopCount: Int) {
    self.canvasSize = canvasSize
    self.delays = delays
    self.loopCount = loopCount
  }

  /// The number of frames.
  public var frameCount: Int { delays.count }

  /// The total duration in milliseconds.
  public var duration: Int { delays.reduce(0, +) }
}

/// Reads an animation's frames in order, each composed onto the full canvas.
///
/// Not thread-safe; each call returns a new buffer, so a caller that drops the previous frame
/// holds one frame at a time.
public protocol AnimationFrameReader: AnyObject {
  /// The animation's canvas, delays and loop count.
  var info: AnimationInfo { get }
  /// The format frames come out in (RGB or straight-alpha RGBA, 8-bit).
  var frameFormat: PixelFormat { get }
  /// The next frame (`info.canvasSize`, `frameFormat`), or nil after the last.
  ///
  /// - Throws: `CodecError` when the frame's data is damaged or truncated.
  func nextFrame() throws -> PixelBuffer?
  /// The most bytes of the encoded file the reader has held in memory at once so far: the whole
  /// file for bytes in memory; for a file read in place, what it reads through (a GIF's 64 KiB
  /// buffer; an APNG's frame's compressed data, as a PNG of its own, while it decodes; the pages
  /// of a mapped WebP not yet released), independent of the number of frames.
  var heldInputBytes: Int { get }
}

/// A codec that reads animations frame by frame.
public protocol AnimationDecoding: ImageCodec {
  /// The animation facts of `data` (one frame for a still file), checked against `limits`
  /// (canvas pixels, `maxFrames`).
  static func readAnimation(_ data: Data, limits: DecodeLimits) throws -> AnimationInfo
  /// Starts reading the frames of `data`, which the reader keeps.
  static func makeFrameReader(_ data: Data, limits: DecodeLimits) throws -> any AnimationFrameReader
  /// `readAnimation` of the file open on `file`, read in place from its start (the handle is not
  /// moved).
  static func readAnimation(file: FileHandle, limits: DecodeLimits) throws -> AnimationInfo
  /// Starts reading the frames of the file open on `file`, which the reader keeps open and reads in
  /// place, holding a part of it bounded whatever its number of frames (`heldInputBytes`). A file
  /// that shrinks while it is read is a `.truncated` error.
  static func makeFrameReader(file: FileHandle, limits: DecodeLimits) throws -> any AnimationFrameReader
}

extension AnimationFrameReader {
  /// None: frames made in memory come from no file.
  public var heldInputBytes: Int { 0 }

  /// Skips `count` frames; throws `.invalidArgument` when the animation has fewer.
  public func skip(_ count: Int) throws {
    for index in 0..<count where try nextFrame() == nil {
      throw CodecError(.invalidArgument, "The animation has \(index) frames; frame \(count + 1) does not exist.")
    }
  }
}

extension DecodeLimits {
  /// Throws `.tooLarge` for an animation of more than `maxFrames` frames.
  public func check(frameCount: Int, what: String) throws {
    if frameCount > maxFrames {
      throw CodecError(
        .tooLarge,
        "The \(what) has \(frameCount) frames, more than the limit of \(maxFrames); raise the limit (--max-frames) if you trust this file.")
    }
  }
}

/// The warning a decoder of one page of an animation gives when the page was not asked for.
func animationReadAsStillWarning(_ what: String, frames: Int, request: DecodeRequest) -> [String] {
  guard frames > 1, request.options["page"] == nil else { return [] }
  return ["the \(what) is an animation of \(frames) frames; only frame 1 is read (choose one with --frame N, or write an animated format (GIF, WebP or PNG) to keep them all)."]
}

/// Writes an animation one full frame at a time to an `AnimationOutput`.
public protocol AnimationFrameWriter: AnyObject {
  /// Adds a frame (the writer's size, RGB or straight-alpha RGBA, 8-bit) shown for `delay` ms.
  func add(_ frame: PixelBuffer, delay: Int) throws
  /// Finishes the file: its bytes when the output is memory, nil when they went to a file or
  /// stream.
  func finish() throws -> Data?
  /// The most bytes the encoder holds besides its output (its reference canvases, and the
  /// frames it is encoding).
  var stateBytes: Int { get }
  /// True when the writer encodes frames on an executor itself (several at once): `add` returns
  /// once the frame is handed over, so the caller need not encode ahead of it.
  var encodesInParallel: Bool { get }
}

extension AnimationFrameWriter {
  /// Frames are encoded inside `add`.
  public var encodesInParallel: Bool { false }
}

/// A codec that writes animations frame by frame.
public protocol AnimationEncoding: ImageCodec {
  /// Starts an animation of `frameCount` frames of `size` in `layout` (RGB or RGBA), played
  /// `loopCount` times (0 forever), with the codec's encode `options` and the `metadata` to
  /// embed, written to `output`; a writer that encodes frames in parallel runs them on
  /// `executor` (nil: on the calling thread). A format that states the number of frames before
  /// them (APNG) refuses at `finish` a different number.
  static func makeAnimationWriter(
    size: Size, layout: ChannelLayout, loopCount: Int, frameCount: Int, options: ResolvedFormatOptions, metadata: ImageMetadata,
    executor: (any CodecExecutor)?, output: AnimationOutput
  ) throws -> any AnimationFrameWriter
  /// The most bytes a writer of `size` frames with `options`, on an executor of `threads`
  /// threads, holds besides its output (its writer's `stateBytes`), known before one is made: a
  /// job's memory estimate.
  static func animationWriterStateBytes(size: Size, options: ResolvedFormatOptions, threads: Int) -> Int
}

extension AnimationEncoding {
  /// A writer encoding on the calling thread into memory (`finish()` returns the file).
  public static func makeAnimationWriter(
    size: Size, layout: ChannelLayout, loopCount: Int, frameCount: Int, options: ResolvedFormatOptions, metadata: ImageMetadata
  ) throws -> any AnimationFrameWriter {
    try makeAnimationWriter(
      size: size, layout: layout, loopCount: loopCount, frameCount: frameCount, options: options, metadata: metadata, executor: nil,
      output: AnimationOutput(handle: nil, format: "animated \(displayName)"))
  }

  /// Four canvases of 8-bit RGBA (the APNG writer's: the previous frame, the frame added, its
  /// changed rectangle and that rectangle compressed, which deflate keeps within a few bytes of
  /// its input for these sizes).
  public static func animationWriterStateBytes(size: Size, options: ResolvedFormatOptions, threads: Int) -> Int {
    heldBytes(size, 4 * 4)
  }
}

/// A file's bytes copied where they cannot move, for a C reader that reads them between calls.
final class PinnedBytes {
  /// The number of bytes.
  let count: Int
  private let buffer: UnsafeMutableRawBufferPointer

  init(_ data: Data) {
    count = data.count
    buffer = .allocate(byteCount: max(1, data.count), alignment: 16)
    data.copyBytes(to: buffer.bindMemory(to: UInt8.self))
  }

  deinit { buffer.deallocate() }

  /// The first byte.
  var base: UnsafePointer<UInt8>? { buffer.baseAddress.map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) } }
}

extension AnimationFrameReader {
  /// A new canvas-sized buffer in `frameFormat`, tagged `colorSpace`, that `fill` writes through a
  /// C reader (rows `stride` bytes apart, a message buffer; it returns the shim's status): nil
  /// when the status is `end`; other failures go through `check`, their message naming frame
  /// `number` (from 1).
  func composedFrame(
    number: Int, colorSpace: ColorSpace, end: Int32, check: (Int32, [CChar]) throws -> Void,
    fill: (UnsafeMutablePointer<UInt8>, Int, inout [CChar]) -> Int32
  ) throws -> PixelBuffer? {
    var buffer = try PixelBuffer.forDecoding(
      width: info.canvasSize.width, height: info.canvasSize.height, format: frameFormat, colorSpace: colorSpace,
      metadata: ImageMetadata())
    var message = [CChar](repeating: 0, count: 256)
    let status = buffer.withUnsafeMutableBaseAddress { base, stride in
      fill(base.assumingMemoryBound(to: UInt8.self), stride, &message)
    }
    if status == end { return nil }
    do {
      try check(status, message)
    } catch let error as CodecError {
      throw CodecError(error.kind, "Frame \(number): \(error.message)")
    }
    return buffer
  }
}

extension PixelBuffer {
  /// Throws unless this is a frame an animation writer of `size` takes: that size, RGB or RGBA
  /// 8-bit (`format` names the output in the message).
  func checkAnimationFrame(of size: Size, format: String) throws {
    guard width == size.width, height == size.height, self.format.component == .uint8,
      self.format.layout == .rgb || self.format.layout == .rgba
    else {
      throw CodecError(.invalidArgument, "\(format) frame must be \(size) RGB or RGBA 8-bit, not \(width)x\(height) \(self.format).")
    }
  }
}
