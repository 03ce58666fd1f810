// Renderer+Write.swift — rendering straight into an encoder, band by band.
//
// Bands of tiles are encoded in order as they finish while workers compute the next ones (PNG
// segments and baseline JPEG strips are compressed on the workers too), so
// memory holds the decoded sources plus a few bands, never a full-size copy of the output.

import Foundation
import ImageCodecs
import PixelBufferModule

/// How a rendered image is encoded.
public struct WriteOptions: Hashable, Sendable {
  /// The file format; nil picks it from the file name's extension.
  public var format: ImageFileFormat?
  /// JPEG quality 1…100 (default 90).
  public var jpegQuality: Int
  /// JPEG chroma subsampling (default 4:2:0).
  public var jpegChromaSubsampling: JPEGEncodeOptions.ChromaSubsampling
  /// Write a progressive JPEG.
  public var jpegProgressive: Bool
  /// Compute optimal Huffman tables (default false, as libvips and cjpeg): files come out a few
  /// percent smaller, but libjpeg then holds every DCT coefficient of the image until the end
  /// (2 bytes per sample: 72 MB for a 24-megapixel 4:2:0 photo) and makes a second pass, where
  /// the default streams band by band in a few megabytes.
  public var jpegOptimizesCoding: Bool
  /// PNG compression level 0…9 (default 6; libdeflate's zlib-like scale).
  public var pngCompressionLevel: Int
  /// PNG row filter (default: adaptive, the best filter per row).
  public var pngFilter: PNGEncodeOptions.Filter
  /// 8 or 16 bits per channel; nil keeps the image's own depth (PNG only; JPEG is always 8).
  public var bitDepth: Int?
  /// Paths that must never be overwritten (the inputs).
  public var protectedInputs: [URL]
  /// The colour space written and the ICC profile embedded (default `.sRGB`; see `OutputProfile`).
  public var profile: OutputProfile = .sRGB
  /// How colours are mapped between profiles, for sources and the output (default relative
  /// colorimetric).
  public var intent: RenderingIntent = .relative
  /// Black-point compensation for every profile conversion (default off).
  public var blackPointCompensation = false

  /// Creates options.
  public init(
    format: ImageFileFormat? = nil, jpegQuality: Int = 90,
    jpegChromaSubsampling: JPEGEncodeOptions.ChromaSubsampling = .s420, jpegProgressive: Bool = false,
    jpegOptimizesCoding: Bool = false, pngCompressionLevel: Int = 6, pngFilter: PNGEncodeOptions.Filter = .adaptive, bitDepth: Int? = nil,
    protectedInputs: [URL] = []
  ) {
    self.format = format
    self.jpegQuality = jpegQuality
    self.jpegChromaSubsampling = jpegChromaSubsampling
    self.jpegProgressive = jpegProgressive
    self.jpegOptimizesCoding = jpegOptimizesCoding
    self.pngCompressionLevel = pngCompressionLevel
    self.pngFilter = pngFilter
    self.bitDepth = bitDepth
    self.protectedInputs = protectedInputs
  }
}

/// PNG compression segments run on the renderer's own worker pool (no other threads).
extension WorkerPool: PNGSegmentExecutor {}

/// Baseline JPEG strips are compressed on the renderer's own worker pool too.
extension WorkerPool: JPEGStripExecutor {}

extension Renderer {
  /// Renders `image` and writes it to `url` atomically: the file appears complete or not at all,
  /// an existing file is replaced only once the new one is whole, and protected inputs are never
  /// overwritten.
  ///
  /// - Throws: `CodecError` (`.io` for write failures such as a full disk), or the first error a
  ///   source or filter raised.
  public func write(_ image: Image, to url: URL, options: WriteOptions = WriteOptions()) throws {
    guard let format = options.format ?? ImageFileFormat(pathExtension: url.pathExtension) else {
      throw CodecError(
        .invalidArgument,
        "Cannot tell the output format from '\(url.lastPathComponent)': use a .png, .jpg or .jpeg name.")
    }
    let output = try OutputColour.plan(image, profile: options.profile, intent: options.intent, bpc: options.blackPointCompensation)
    let plan = try prepare(output.image, intent: options.intent, bpc: options.blackPointCompensation)
    try OutputFile.write(to: url, protecting: options.protectedInputs) { handle in
      try encode(plan, output: output, format: format, options: options, handle: handle)
    }
  }

  /// Renders `image` and streams the encoded file to `handle` as bands finish (for standard
  /// output: `OutputHandle.standardOutput`). Unlike `write(_:to:options:)` this is not atomic: on
  /// failure, the bytes already written stay written.
  ///
  /// - Throws: `CodecError` (`.io` for write failures), or the first error a source or filter raised.
  public func write(_ image: Image, to handle: OutputHandle, format: ImageFileFormat, options: WriteOptions = WriteOptions()) throws {
    let output = try OutputColour.plan(image, profile: options.profile, intent: options.intent, bpc: options.blackPointCompensation)
    let plan = try prepare(output.image, intent: options.intent, bpc: options.blackPointCompensation)
    try encode(plan, output: output, format: format, options: options, handle: handle)
  }

  /// Renders `image` and returns the encoded file bytes.
  public func encode(_ image: Image, format: ImageFileFormat, options: WriteOptions = WriteOptions()) throws -> Data {
    let output = try OutputColour.plan(image, profile: options.profile, intent: options.intent, bpc: options.blackPointCompensation)
    let plan = try prepare(output.image, intent: options.intent, bpc: options.blackPointCompensation)
    return try encode(plan, output: output, format: format, options: options, handle: nil)!
  }

  /// The pixel format an image is written in.
  static func outputFormat(for info: ImageInfo, format: ImageFileFormat, bitDepth: Int?) -> PixelFormat {
    switch format {
    case .jpeg:
      return PixelFormat(layout: info.layout.withoutAlpha, component: .uint8)
    case .png:
      let component: ComponentType
      switch bitDepth {
      case 8?: component = .uint8
      case 16?: component = .uint16
      default: component = info.component == .uint16 ? .uint16 : .uint8
      }
      return PixelFormat(layout: info.layout, component: component)
    }
  }

  @discardableResult
  func encode(
    _ plan: RenderPlan, output: OutputColour, format: ImageFileFormat, options: WriteOptions, handle: OutputHandle?
  ) throws -> Data? {
    let info = plan.root.info
    let pixelFormat = Renderer.outputFormat(for: info, format: format, bitDepth: options.bitDepth)
    let transform = try output.transform(for: pixelFormat)
    // The colour space the encoder tags the file with: the embedded profile, else sRGB or linear.
    let fileSpace: ColorSpace = output.embedded.map { .icc($0) } ?? (info.colorSpace.isLinear ? .linearSRGB : .sRGB)
    let width = info.size.width
    let bandBuffer = { (_: Int, h: Int) in
      TileMemoryPool.buffer(width: width, height: h, format: pixelFormat, colorSpace: fileSpace)
    }
    switch format {
    case .png:
      var png = PNGEncodeOptions()
      png.compressionLevel = options.pngCompressionLevel
      png.filter = options.pngFilter
      let encoder = try PNGStreamEncoder(
        size: info.size, layout: pixelFormat.layout, component: pixelFormat.component, options: png,
        colorSpace: fileSpace, to: handle.map { .handle($0) } ?? .memory,
        executor: pool, maxSegmentsInFlight: 2 * pool.threadCount + 2)
      try run(plan, format: pixelFormat, band: bandBuffer, outputTransform: transform) { band, _ in try encoder.write(rows: band) }
      return try encoder.finish()
    case .jpeg:
      let jpeg = JPEGEncodeOptions(
        quality: options.jpegQuality, chromaSubsampling: options.jpegChromaSubsampling,
        isProgressive: options.jpegProgressive, optimizesHuffmanCoding: options.jpegOptimizesCoding)
      // Baseline files: strips of whole MCU rows are compressed in parallel on the pool (the
      // band buffers are kept, not copied, until their strip is compressed) and joined with
      // restart markers, written in order as they complete. One strip in flight per worker (at
      // least 2): more only kept band buffers alive longer (W4b with 6: +3 MB RSS, +10 ms CPU,
      // no faster). Progressive or optimised files are compressed on this thread, streamed to
      // the handle in 256 KiB chunks as libjpeg fills them.
      let encoder = try JPEGStreamEncoder(
        size: info.size, layout: pixelFormat.layout, options: jpeg, iccProfile: output.embedded,
        to: handle.map { .handle($0) } ?? .memory, executor: pool,
        maxStripsInFlight: max(2, pool.threadCount))
      try run(plan, format: pixelFormat, band: bandBuffer, outputTransform: transform) { band, _ in try encoder.write(rows: band) }
      return try encoder.finish()
    }
  }
}
