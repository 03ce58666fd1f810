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
  /// Values for the format's encode options, by name (`["quality": 85]`, `["lossless": true]`;
  /// each codec's table — `fgrun formats`, docs/Formats.md — says what it takes). Options the
  /// format does not have are ignored; omitted ones take the table's default.
  public var formatOptions: FormatOptionValues
  /// Paths that must never be overwritten (the inputs).
  public var protectedInputs: [URL]
  /// The colour space written and the ICC profile embedded (default `.sRGB`; see `OutputProfile`).
  public var profile: OutputProfile = .sRGB
  /// How colours are mapped between profiles, for sources and the output (default relative
  /// colorimetric).
  public var intent: RenderingIntent = .relative
  /// Black-point compensation for every profile conversion (default off).
  public var blackPointCompensation = false
  /// The metadata the file keeps (default `.all`; `.none` is `fgrun --strip`). See `MetadataKinds`.
  public var keptMetadata: MetadataKinds = .all
  /// What becomes of a source's gain map (default `.keep`: Ultra HDR JPEG; see `HDROutput`).
  public var hdr: HDROutput = .keep
  /// The transfer of an `.hdr` AVIF, HEIC or PNG output (default PQ; HLG for a 1000 cd/m² display).
  public var hdrTransfer: HDRTransfer = .pq
  /// The colour an image with alpha is flattened onto (`FlattenOperation`, in linear light) when
  /// the format cannot store alpha (JPEG), so that transparent pixels do not show the colours they
  /// hide. Default `WriteOptions.defaultBackground`, white.
  public var background: Color = WriteOptions.defaultBackground
  /// A score the file must reach: the smallest file scoring at least it is written, its quality
  /// found in at most three encodes (`QualityTarget`, Renderer+Target.swift). Nil (the default):
  /// the format options' quality. Not with a `quality` format option, nor a lossless format.
  public var target: QualityTarget?

  /// White: transparent images are mostly drawn to be seen on light pages (logos, icons, text
  /// in dark ink), which black would hide; ImageMagick and Photoshop's matte also default to
  /// white (libvips and sharp use black, as the `flatten` verb does).
  public static let defaultBackground = Color.white

  /// Creates options.
  public init(format: ImageFileFormat? = nil, options: FormatOptionValues = [:], protectedInputs: [URL] = []) {
    self.format = format
    self.formatOptions = options
    self.protectedInputs = protectedInputs
  }
}

/// Encoders run their parallel jobs (PNG segments, baseline JPEG strips) on the renderer's own
/// worker pool (no other threads).
extension WorkerPool: CodecExecutor {}

extension Renderer {
  /// Renders `image` and writes it to `url` atomically: the file appears complete or not at all,
  /// an existing file is replaced only once the new one is whole, and protected inputs are never
  /// overwritten.
  ///
  /// - Throws: `CodecError` (`.io` for write failures such as a full disk), or the first error a
  ///   source or filter raised.
  public func write(_ image: Image, to url: URL, options: WriteOptions = WriteOptions()) throws {
    try write(image, to: url, options: options, stop: nil)
  }

  /// `write(_:to:options:)`, asking `stop` before each tile and after each band: once it returns
  /// true the render ends with the tiles running, `CancellationError` is thrown and the
  /// destination is left as it was.
  func write(_ image: Image, to url: URL, options: WriteOptions, stop: (() -> Bool)?) throws {
    guard let format = options.format ?? ImageFileFormat(pathExtension: url.pathExtension) else {
      throw CodecError(
        .invalidArgument,
        "Cannot tell the output format from '\(url.lastPathComponent)': use a name ending in \(CodecRegistry.writableExtensions).")
    }
    if let bytes = try ultraHDRBytes(image, format: format, options: options) {
      return try OutputFile.write(bytes, to: url, protecting: options.protectedInputs)
    }
    let output = try outputPlan(image, format: format, options: options, stop: stop)
    try OutputFile.write(to: url, protecting: options.protectedInputs) { handle in
      try encode(output, handle: handle, stop: stop)
    }
  }

  /// Renders `image` and streams the encoded file to `handle` as bands finish (for standard
  /// output: `OutputHandle.standardOutput`). Unlike `write(_:to:options:)` this is not atomic: on
  /// failure, the bytes already written stay written.
  ///
  /// `stop` is asked before each tile and after each band: once it returns true, tiles not yet
  /// started are dropped, the render ends and `CancellationError` is thrown (a batch's per-file
  /// time limit).
  ///
  /// - Throws: `CodecError` (`.io` for write failures), or the first error a source or filter raised.
  public func write(
    _ image: Image, to handle: OutputHandle, format: ImageFileFormat, options: WriteOptions = WriteOptions(),
    stop: (() -> Bool)? = nil
  ) throws {
    if let bytes = try ultraHDRBytes(image, format: format, options: options) {
      return try bytes.withUnsafeBytes { try handle.writeAll($0) }
    }
    try encode(outputPlan(image, format: format, options: options, stop: stop), handle: handle, stop: stop)
  }

  /// Renders `image` and returns the encoded file bytes.
  public func encode(_ image: Image, format: ImageFileFormat, options: WriteOptions = WriteOptions()) throws -> Data {
    try encode(image, format: format, options: options, stop: nil)
  }

  /// `encode(_:format:options:)`, asking `stop` before each tile and after each band as
  /// `write(_:to:options:stop:)` does.
  func encode(_ image: Image, format: ImageFileFormat, options: WriteOptions, stop: (() -> Bool)?) throws -> Data {
    if let bytes = try ultraHDRBytes(image, format: format, options: options) { return bytes }
    return try encode(outputPlan(image, format: format, options: options, stop: stop), handle: nil, stop: stop)!
  }

  /// What an image becomes on its way into `format`, the one place that decides it: flattened
  /// onto `options.background` when it has alpha and the file will not, brought into the output
  /// colour space (`OutputColor`), with the codec's options checked against its table, then
  /// prepared to render (its analyses and held inputs asking `stop` before each tile). The
  /// metadata blocks the base file's reader left out are warned about when the file would have
  /// kept them (`EncodedSource.leftOutMetadataWarnings`).
  func outputPlan(_ image: Image, format: ImageFileFormat, options: WriteOptions, stop: (() -> Bool)? = nil) throws -> OutputPlan {
    let encoding = try Renderer.encoding(format, options)
    let flat = Renderer.flattened(image, for: encoding, background: options.background)
    let color = try OutputColor.plan(
      flat, profile: options.profile, intent: options.intent, bpc: options.blackPointCompensation, kept: options.keptMetadata)
    if options.target != nil && options.formatOptions["quality"] != nil {
      throw CodecError(.invalidArgument, "A target chooses the quality: give either a target or a quality, not both.")
    }
    let plan = try prepare(color.image, intent: options.intent, bpc: options.blackPointCompensation, stop: stop)
    // The metadata its file's reader left out that this file would have kept.
    for warning in try image.metadataSource?.leftOutMetadataWarnings(kept: options.keptMetadata) ?? [] { warn(warning, in: plan) }
    return OutputPlan(plan: plan, codec: encoding.codec, options: encoding.options, color: color, target: options.target)
  }

  /// `image` flattened onto `background` when it has alpha and the codec writes none (JPEG), so
  /// transparent pixels do not show the colours they hide; otherwise `image`.
  static func flattened(
    _ image: Image, for encoding: (codec: any ImageCodec.Type, options: ResolvedFormatOptions), background: Color
  ) -> Image {
    let info = image.info
    guard info.layout.hasAlpha else { return image }
    let written = encoding.codec.encodedPixelFormat(layout: info.layout, component: info.component, options: encoding.options)
    return written.layout.hasAlpha ? image : image.flattened(onto: background)
  }

  /// The codec of `format` and the options checked against its table.
  ///
  /// - Throws: `.unsupported` when the format cannot be written, `.invalidArgument` for an option
  ///   out of range.
  static func encoding(_ format: ImageFileFormat, _ options: WriteOptions) throws -> (codec: any ImageCodec.Type, options: ResolvedFormatOptions) {
    guard let codec = format.codec else {
      throw CodecError(.invalidArgument, "There is no image format called '\(format)'.")
    }
    if let reason = codec.encoderUnavailableReason { throw CodecError(.unsupported, reason) }
    return (codec, try options.formatOptions.resolved(by: codec.encodeOptions))
  }

  /// Renders `output` band by band into its codec's encoder, which writes to `handle` (or memory,
  /// whose bytes are returned).
  @discardableResult
  func encode(_ output: OutputPlan, handle: OutputHandle?, stop: (() -> Bool)? = nil) throws -> Data? {
    if let target = output.target { return try encodeToTarget(output, target: target, handle: handle, stop: stop) }
    let plan = output.plan
    let info = plan.root.info
    let (codec, options) = (output.codec, output.options)
    let pixelFormat = codec.encodedPixelFormat(layout: info.layout, component: info.component, options: options)
    let transform = try output.color.transform(for: pixelFormat)
    // The colour space the encoder tags the file with: the embedded profile, else sRGB or linear.
    let fileSpace: ColorSpace = output.color.embedded.map { .icc($0) } ?? (info.colorSpace.isLinear ? .linearSRGB : .sRGB)
    let metadata = output.color.kept.written(from: info.metadata, size: info.size, profile: output.color.embedded, format: codec.format)
    let width = info.size.width
    // A band of the output (a window of them in flight): rows as wide as the image, so memory the
    // system refuses fails the render.
    let bandBuffer = { (_: Int, h: Int) throws(PixelAllocationError) in
      try TileMemoryPool.buffer(width: width, height: h, format: pixelFormat, colorSpace: fileSpace)
    }
    // Encoders compress on the pool (PNG segments, baseline JPEG strips) and keep band buffers,
    // not copies, until their part is compressed.
    let encoder = try codec.makeEncoder(
      EncodeRequest(
        size: info.size, pixelFormat: pixelFormat, colorSpace: fileSpace, metadata: metadata,
        options: options, handle: handle, executor: pool))
    try run(plan, format: pixelFormat, band: bandBuffer, outputTransform: transform, stop: stop) { band, _ in
      if let stop, stop() { throw CancellationError() }
      try encoder.write(rows: band)
    }
    return try encoder.finish()
  }
}

/// An image ready to encode: its render plan, codec and options, and output colour.
struct OutputPlan {
  let plan: RenderPlan
  let codec: any ImageCodec.Type
  let options: ResolvedFormatOptions
  let color: OutputColor
  /// The score the file must reach (`WriteOptions.target`), or nil.
  let target: QualityTarget?
}
