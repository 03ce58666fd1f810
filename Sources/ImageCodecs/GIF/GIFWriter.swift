// GIFWriter.swift — GIFs written frame by frame (CGIF shim: our quantiser, giflib's LZW encoder):
// animations through the frame loop, stills as a one-frame file.
//
// Each frame is reduced to its own colour table of at most `colors` entries (its own colours
// when it has that few, otherwise Wu's variance-minimising cut refined by one k-means step, in
// sRGB), mapped with Floyd–Steinberg error diffusion or an 8×8 ordered pattern (either scaled by
// `ditherAmount`), or to the nearest entry; alpha below 128 is transparent. Frames after the first store only the rectangle that
// changed, with unchanged pixels transparent ("do not dispose"; with `lossy`, also pixels within
// that RGB distance of what is shown). The bytes go to the writer's `AnimationOutput` as giflib
// makes them. Delays are stored in
// centiseconds, rounded to the nearest (5 ms up); the loop count is the NETSCAPE2.0 extension's
// (an animation played n > 1 times repeats n − 1 times; once: no extension).
import CGIF
import Foundation
import PixelBufferModule

/// How pixels are mapped to a frame's colour table when it lacks their colours.
public enum GIFDither: String, Hashable, Sendable, CaseIterable {
  /// Floyd–Steinberg error diffusion.
  case floydSteinberg = "floyd-steinberg"
  /// An 8×8 Bayer pattern, fixed to the canvas (it does not crawl between frames).
  case ordered
  /// The nearest entry.
  case none

  var shimValue: Int32 {
    switch self {
    case .floydSteinberg: return Int32(CGIF_DITHER_DIFFUSION)
    case .ordered: return Int32(CGIF_DITHER_ORDERED)
    case .none: return Int32(CGIF_DITHER_NONE)
    }
  }
}

/// The GIF writer's options (see `GIFCodec.encodeOptions`).
public struct GIFEncodeOptions: Hashable, Sendable, FormatOptionSet {
  /// Entries of each frame's colour table, the transparent one included: 2…256.
  public var colors: Int
  /// The mapping to the table.
  public var dither: GIFDither
  /// How much of `dither` is applied, 0…1: the ordered pattern's amplitude and the share of each
  /// error that Floyd–Steinberg passes on are scaled by it (0 maps to the nearest entry).
  public var ditherAmount: Double
  /// The RGB distance (0…255, 0 exact) within which an opaque pixel's change from what the
  /// previous frames show is dropped, so it costs nothing.
  public var lossy: Int

  /// 256 colours, full Floyd–Steinberg, exact frame differences.
  public init() {
    colors = 256
    dither = .floydSteinberg
    ditherAmount = 1
    lossy = 0
  }

  public static let fields: [FormatField<GIFEncodeOptions>] = [
    .integer("colors", \.colors, in: 2...256, help: "GIF: the most colours in each frame's table (the transparent one included)."),
    .choice(
      "dither", \.dither, GIFDither.allCases,
      help: "GIF: map colours a frame's table lacks by error diffusion (floyd-steinberg), an ordered 8x8 pattern, or to the nearest (none)."),
    .number(
      "dither-amount", \.ditherAmount, in: 0...1,
      help: "GIF: how much dithering, 0 (none) … 1 (full): scales the ordered pattern's amplitude, or the share of each colour's error floyd-steinberg passes on to its neighbours."),
    .integer(
      "lossy", \.lossy, in: 0...255,
      help: "GIF: keep a pixel that changed by at most this RGB distance from what the earlier frames show (0: only unchanged pixels are kept; larger values make smaller files)."),
  ]
}

/// Writes a GIF one frame at a time to an `AnimationOutput`; holds three canvases of RGBA (this
/// and the last frame's targets, what is shown), the last frame's indices (written when the next
/// frame says how it is disposed of) and the quantiser's histogram. giflib's bytes go to the
/// output as they are made.
public final class GIFAnimationWriter: AnimationFrameWriter {
  private let writer: OpaquePointer
  private let size: Size
  /// The output, and its error when it refused bytes giflib made (the C sink's context).
  private let box: Box

  /// The output and the first error writing to it.
  private final class Box {
    let output: AnimationOutput
    var error: (any Error)?
    init(_ output: AnimationOutput) { self.output = output }
  }

  /// Starts a GIF of `size` frames played `loopCount` times (0 forever, 1 once), written to
  /// `output` (nil: to memory); `hasAlpha` when frames may have transparent pixels.
  public init(size: Size, hasAlpha: Bool, loopCount: Int, options: GIFEncodeOptions, output: AnimationOutput? = nil) throws {
    guard loopCount >= 0 else { throw CodecError(.invalidArgument, "A GIF's loop count is 0 (forever) or more, not \(loopCount).") }
    // Plays n times: the NETSCAPE2.0 count repeats n − 1 times; once needs no extension.
    let netscape = loopCount == 0 ? 0 : loopCount == 1 ? -1 : min(loopCount - 1, 65535)
    var status: Int32 = 0
    var message = [CChar](repeating: 0, count: 256)
    let box = Box(output ?? AnimationOutput(handle: nil, format: "animated GIF"))
    let sink: cgif_sink = { context, bytes, count in
      let box = Unmanaged<Box>.fromOpaque(context!).takeUnretainedValue()
      do {
        try box.output.write(UnsafeRawBufferPointer(start: bytes, count: count))
        return 0
      } catch {
        box.error = error
        return 1
      }
    }
    let opened = cgif_writer_new(
      Int32(clamping: size.width), Int32(clamping: size.height), Int32(netscape), Int32(options.colors), options.dither.shimValue,
      options.ditherAmount, hasAlpha ? 1 : 0, Int32(options.lossy), sink, Unmanaged.passUnretained(box).toOpaque(), &status, &message, message.count)
    if let error = box.error { throw error }
    guard let opened else {
      try GIFCodec.check(status, message)
      throw CodecError(.invalidArgument, "giflib could not start the GIF.")
    }
    writer = opened
    self.size = size
    self.box = box
  }

  deinit { cgif_writer_free(writer) }

  public var stateBytes: Int { GIFCodec.animationWriterStateBytes(size: size) }

  /// `delay` ms in centiseconds, rounded to the nearest (5 ms up).
  static func centiseconds(_ delay: Int) -> Int32 { Int32(min(65535, max(0, (delay + 5) / 10))) }

  public func add(_ frame: PixelBuffer, delay: Int) throws {
    try frame.checkAnimationFrame(of: size, format: "A GIF")
    var message = [CChar](repeating: 0, count: 256)
    let channels = Int32(frame.format.channelCount)
    let status = frame.withUnsafeBaseAddress { base, stride in
      cgif_writer_add(writer, base.assumingMemoryBound(to: UInt8.self), stride, channels, Self.centiseconds(delay), &message, message.count)
    }
    try check(status, message)
  }

  public func finish() throws -> Data? {
    var message = [CChar](repeating: 0, count: 256)
    try check(cgif_writer_finish(writer, &message, message.count), message)
    return try box.output.finish()
  }

  /// Throws the output's error when it refused bytes, else the shim's status.
  private func check(_ status: Int32, _ message: [CChar]) throws {
    if let error = box.error { throw error }
    try GIFCodec.check(status, message)
  }
}

/// A still GIF: the rows are collected and written as one frame (a GIF's colour table is chosen
/// from the whole image).
final class GIFStillEncoder: ImageRowEncoder {
  private let writer: GIFAnimationWriter
  private var image: WholeImageCollector

  init(_ request: EncodeRequest) throws {
    let format = request.pixelFormat
    guard format == .rgb8 || format == .rgba8 else {
      throw CodecError(.invalidArgument, "GIF rows must be 8-bit RGB or RGBA, not \(format).")
    }
    writer = try GIFAnimationWriter(
      size: request.size, hasAlpha: format.layout.hasAlpha, loopCount: 1, options: GIFEncodeOptions(request.options),
      output: AnimationOutput(handle: request.handle, format: "GIF"))
    image = try WholeImageCollector(size: request.size, format: format, formatName: "GIF")
  }

  func write(rows: PixelBuffer) throws {
    try image.append(rows)
  }

  func finish() throws -> Data? {
    try writer.add(try image.complete(), delay: 0)
    return try writer.finish()
  }
}

extension GIFCodec: AnimationEncoding {
  public static func makeAnimationWriter(
    size: Size, layout: ChannelLayout, loopCount: Int, frameCount: Int, options: ResolvedFormatOptions, metadata: ImageMetadata,
    executor: (any CodecExecutor)?, output: AnimationOutput
  ) throws -> any AnimationFrameWriter {
    try GIFAnimationWriter(size: size, hasAlpha: layout.hasAlpha, loopCount: loopCount, options: GIFEncodeOptions(options), output: output)
  }

  /// The C writer's canvases and palette maps (`cgif_writer_state_bytes`).
  public static func animationWriterStateBytes(size: Size, options: ResolvedFormatOptions, threads: Int) -> Int {
    animationWriterStateBytes(size: size)
  }

  /// What a writer of `size` frames holds (`cgif_writer_state_bytes`).
  static func animationWriterStateBytes(size: Size) -> Int {
    Int(cgif_writer_state_bytes(Int32(clamping: size.width), Int32(clamping: size.height)))
  }
}
