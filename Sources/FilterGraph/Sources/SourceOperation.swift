// SourceOperation.swift — the leaves of the graph: encoded files, buffers, solid colours.

import Foundation
import ImageCodecs
import PixelBufferModule

/// An operation with no inputs that produces pixels: the graph's leaves.
public protocol SourceOperation: ImageOperation {
  /// Identifies the pixels for the decode cache and for spotting shared sources.
  var identity: String { get }
  /// The full decoded pixels, or nil for generated sources, which `fill` instead.
  /// The renderer calls this at most once per render, through its decode cache.
  func decodePixels() throws -> PixelBuffer?
  /// `decodePixels`, and the recoverable corrupt-data warnings the decoder reported, each
  /// prefixed with the source's name (the renderer passes them to its warning handler).
  func decodePixelsReportingWarnings() throws -> (PixelBuffer?, [String])
  /// True when `decodePixels` returns a buffer that already exists (nothing to decode or cache).
  var isResident: Bool { get }
  /// Fills a tile of a generated source; throws when its scratch memory is refused.
  func fill(_ tile: inout Tile, space: WorkingSpace) throws
  /// Itself when it is a `RasterizedSource`, else nil (see Capabilities.swift).
  var asRasterized: (any RasterizedSource)? { get }
}

/// A generated source whose tiles are filled from a raster it makes once per render (a text): the
/// renderer has it made on a worker at the render's start (or by the first tile that reads it,
/// if that comes first), through its decode cache (under `identity`), so the render does not wait
/// for it before its first tile and the tiles that read it find it made.
public protocol RasterizedSource: SourceOperation {
  /// The raster, in whatever format `fill(_:space:from:)` reads, and warnings for the user.
  func rasterize() throws -> (pixels: PixelBuffer, warnings: [String])
  /// Fills `tile` (premultiplied float RGBA in `space`) from the raster `rasterize` made.
  func fill(_ tile: inout Tile, space: WorkingSpace, from raster: PixelBuffer) throws
}

extension SourceOperation {
  /// Sources have no inputs, so they render through the renderer's source path, not this.
  public func render(into output: inout Tile, inputs: [Tile]) throws {
    try fill(&output, space: .encoded)
  }
  /// Sources only move pixels.
  public var workingSpace: WorkingSpace? { nil }
  /// Decoded sources need no fill.
  public func fill(_ tile: inout Tile, space: WorkingSpace) {}
  /// Most sources are decoded.
  public var isResident: Bool { false }
  /// Sources without a decoder have nothing to warn about.
  public func decodePixelsReportingWarnings() throws -> (PixelBuffer?, [String]) { (try decodePixels(), []) }
}

/// An image file's source, optionally decoded at a reduced size (shrink-on-load: JPEG's DCT
/// scaling, WebP's scaled decoding).
public struct EncodedSourceOperation: SourceOperation {
  /// The encoded bytes and header.
  public let source: EncodedSource
  /// 1, 2, 4 or 8.
  public let scaleDenominator: Int

  /// Creates the operation.
  public init(source: EncodedSource, scaleDenominator: Int = 1) {
    self.source = source
    self.scaleDenominator = scaleDenominator
  }

  /// `load path=FILE`: the verb's own parameter (the codecs' decode options follow it in the table).
  public struct Parameters: FilterParameters {
    /// The file.
    @Param(path: "path", help: "The file to read, relative to the recipe.")
    public var path: String

    /// The defaults; `path` must be given.
    public init() {}
  }

  /// The parameter table (`load` in `fgrun filters`): the path, then every codec's decode options
  /// (declared in the codecs' own tables).
  public static let table = OperationDescriptor(
    name: "load", category: .source,
    summary: "Reads an image file of any format `fgrun formats` lists (the recipe's input, or another file).",
    inputCount: 0,
    parameters: Parameters.table + CodecRegistry.allDecodeOptions.map(ParameterSpec.init),
    example: "logo = load path=logo.png")

  public var descriptor: OperationDescriptor { Self.table }
  public var arguments: Arguments {
    var values: [(String, ParameterValue)] = [(Parameters().$path.name, .path(source.url?.lastPathComponent ?? "<data>"))]
    if scaleDenominator > 1 { values.append(("shrink", .number(Double(scaleDenominator)))) }
    return Arguments(values)
  }
  public var identity: String { source.identity + "/\(scaleDenominator)" }

  public func outputInfo(inputs: [ImageInfo]) -> ImageInfo {
    let h = source.header
    // An sRGB-equivalent or unusable profile leaves the pixels sRGB (the fast paths apply); any
    // other is converted into the working space as tiles are loaded (SourceColor). A CMYK JPEG
    // still carrying a profile is one its decoder could not use: its naive RGB is read as sRGB.
    let space =
      source.isCMYK
      ? .sRGB
      : SourceColor.colorSpace(profile: h.metadata.iccProfile ?? SourceColor.impliedProfile(h.metadata, layout: h.layout), layout: h.layout)
    return ImageInfo(
      size: source.decodedSize(scaleDenominator: scaleDenominator), layout: h.layout,
      component: h.component, colorSpace: space, metadata: h.metadata)
  }

  public func decodePixels() throws -> PixelBuffer? { try source.decode(scaleDenominator: scaleDenominator) }

  public func decodePixelsReportingWarnings() throws -> (PixelBuffer?, [String]) {
    try decodePixelsReportingWarnings(colorRendering: ColorRendering())
  }

  /// `decodePixelsReportingWarnings()` with a CMYK file converted with `colorRendering`.
  func decodePixelsReportingWarnings(colorRendering: ColorRendering) throws -> (PixelBuffer?, [String]) {
    let (buffer, warnings) = try source.decodeReportingWarnings(scaleDenominator: scaleDenominator, colorRendering: colorRendering)
    return (buffer, warnings.map { "\(source.name): \($0)" })
  }

  /// The decode cache's identity of the pixels decoded with `colorRendering`: `identity`, plus
  /// the rendering for a file its decoder converts from CMYK (other files decode the same way
  /// whatever the rendering, and share one entry).
  func identity(_ colorRendering: ColorRendering) -> String {
    source.header.cmykProfile == nil ? identity : identity + "/cmyk=\(colorRendering.label)"
  }
}

extension EncodedSourceOperation: ReducibleSource {
  /// The file decoded at the largest of its codec's reduced scales (1/8, 1/4, 1/2 for JPEG) whose
  /// size is still at least `minimum`.
  public func reduced(toAtLeast minimum: Size, allowingPartialBlocks: Bool) -> (source: any SourceOperation, blocks: Int?)? {
    guard scaleDenominator == 1 else { return nil }
    let asked = minimum
    let full = source.decodedSize(scaleDenominator: 1)
    for d in source.reducedScaleDenominators.sorted(by: >) where d > 1 {
      let m = source.reductionMargin(denominator: d)
      let minimum = Size(width: Int((Double(asked.width) * m).rounded(.up)), height: Int((Double(asked.height) * m).rounded(.up)))
      let s = source.decodedSize(scaleDenominator: d)
      // A side that d does not divide ends in a partial block: the reduced image covers
      // ⌈side / d⌉ pixels of which the last is partly outside the image, and a resample that
      // stretched them over its output would shift the geometry by up to half a reduced pixel
      // (37 dB instead of 56 for a 2268-pixel-wide photo at 1/8). Such a reduction is taken only
      // when the caller maps positions as on the full image (`ResampleOperation.reading`).
      // (A stored pyramid level is an image of its own, read whole.)
      let whole = s.width * d == full.width && s.height * d == full.height
      let stored = source.storedLevelSize(scaleDenominator: d) != nil
      guard (allowingPartialBlocks && source.reducesInBlocks) || whole || stored else { continue }
      if s.width >= minimum.width && s.height >= minimum.height {
        return (EncodedSourceOperation(source: source, scaleDenominator: d), stored ? nil : d)
      }
    }
    return nil
  }
}

/// An existing `PixelBuffer`, used as it is: no copy, no decode.
public struct BufferSourceOperation: SourceOperation {
  /// The pixels.
  public let buffer: PixelBuffer

  /// Creates the operation.
  public init(buffer: PixelBuffer) {
    self.buffer = buffer
    let start = buffer.withUnsafeBaseAddress { base, _ in base - UnsafeRawPointer(buffer.sharedStorage.baseAddress) }
    identity = "buffer:\(buffer.sharedStorage.contentsIdentity)@\(start)/\(buffer.size)/\(buffer.rowBytes)/\(buffer.format)/\(buffer.colorSpace)"
  }

  /// The descriptor of an in-memory source (`buffer`; not a recipe filter).
  public static let table = OperationDescriptor(
    name: "buffer", category: .source, summary: "Pixels already in memory (Swift API only).",
    inputCount: 0, parameters: [], example: "")

  public var descriptor: OperationDescriptor { Self.table }
  public var arguments: Arguments { Arguments([("size", .size(buffer.size))]) }
  /// The storage's contents identity (`PixelStorage.contentsIdentity`: never reused, unlike an
  /// address, and new whenever the pixels are written) plus where in it the pixels start and how
  /// they are laid out: two crops of one buffer are different sources, two images of one unchanged
  /// buffer the same. Taken when the operation is made; while it holds the buffer, writes to the
  /// buffer's other holders copy first (copy-on-write), so its pixels cannot change under it.
  public let identity: String
  public var isResident: Bool { true }

  public func outputInfo(inputs: [ImageInfo]) -> ImageInfo {
    ImageInfo(
      size: buffer.size, layout: buffer.format.layout,
      component: buffer.format.component == .float32 ? .uint16 : buffer.format.component,
      colorSpace: buffer.colorSpace.encoded, metadata: buffer.metadata)
  }

  public func decodePixels() throws -> PixelBuffer? { buffer }
}

/// A solid colour of a given size.
public struct ColorSourceOperation: SourceOperation {
  /// `solid color=white size=WxH`.
  public struct Parameters: FilterParameters {
    /// The colour.
    @Param("color", help: "The colour.")
    public var color = Color.white
    /// Width and height.
    @Param("size", sides: 1...65535, help: "Width and height.")
    public var size: Size

    /// The defaults; `size` must be given.
    public init() {}
  }

  /// The parameters (the colour straight alpha, sRGB-encoded).
  public let parameters: Parameters
  /// The size made: `parameters.size`, or from the Swift API a size whose sides may pass the row's
  /// 65535, kept so that the graph limits refuse it instead of a silently smaller image.
  let size: Size

  /// Creates the operation.
  public init(_ parameters: Parameters) {
    self.parameters = parameters
    size = parameters.size
  }

  /// `color` over `size`, each side at least 1 (`Image(color:size:)`).
  init(color: Color, size: Size) {
    var parameters = Parameters()
    (parameters.color, parameters.size) = (color, size)
    self.parameters = parameters
    self.size = Size(width: max(size.width, 1), height: max(size.height, 1))
  }

  /// The parameter table (`solid` in `fgrun filters`).
  public static let table = OperationDescriptor(
    name: "solid", category: .source, summary: "A rectangle of one colour.", inputCount: 0,
    parameters: Parameters.table, example: "paper = solid color=#F4ECD8 size=800x600")

  public var descriptor: OperationDescriptor { Self.table }
  /// The colour and size (a canvas the Swift API makes may be larger than the row allows: spelt as it is).
  public var arguments: Arguments {
    Arguments(parameters.arguments.values.map { $0.0 == parameters.$size.name ? parameters.$size.argument(size) : $0 })
  }
  public var identity: String { "solid:\(parameters.color.hexString):\(size)" }

  public func outputInfo(inputs: [ImageInfo]) -> ImageInfo {
    ImageInfo(size: size, layout: parameters.color.alpha < 1 ? .rgba : .rgb, component: .uint8, colorSpace: .sRGB)
  }

  public func decodePixels() throws -> PixelBuffer? { nil }

  public func fill(_ tile: inout Tile, space: WorkingSpace) {
    var c = parameters.color.simd
    if space == .linear {
      c = SIMD4(SRGBCurve.decode(c.x), SRGBCurve.decode(c.y), SRGBCurve.decode(c.z), c.w)
    }
    let premultiplied = SIMD4(c.x * c.w, c.y * c.w, c.z * c.w, c.w)
    tile.withMutablePixels { px in
      for y in 0..<px.height {
        px[row: y].update(repeating: premultiplied, count: px.width)
      }
    }
  }
}

extension Image {
  /// An image of the file at `url`. Reads the header only; the pixels are decoded when a renderer
  /// first needs them. The picture is turned upright from its EXIF orientation unless
  /// `options.autoOrient` is false.
  ///
  /// - Throws: `CodecError` when the file is missing, not a JPEG or PNG, or its header is bad or
  ///   over the pixel limit.
  public init(contentsOf url: URL, options: LoadOptions = LoadOptions()) throws {
    self.init(source: try EncodedSource(contentsOf: url, options: options))
  }

  /// An image of encoded bytes held in memory (any format `CodecRegistry` reads).
  public init(data: Data, options: LoadOptions = LoadOptions()) throws {
    self.init(source: try EncodedSource(data: data, options: options))
  }

  /// An image of an encoded source, auto-oriented when its options say so.
  public init(source: EncodedSource) {
    let raw = Image(node: ImageNode(operation: EncodedSourceOperation(source: source), inputs: []))
    let orientation = source.header.metadata.orientation
    self = source.options.autoOrient && orientation != .up ? raw.oriented(orientation) : raw
  }

  /// An image of pixels already in memory, used as they are (no copy, no decode).
  public init(buffer: PixelBuffer) {
    self.init(node: ImageNode(operation: BufferSourceOperation(buffer: buffer), inputs: []))
  }

  /// A solid colour (white by default) of the given size.
  public init(color: Color = .white, size: Size) {
    self.init(node: ImageNode(operation: ColorSourceOperation(color: color, size: size), inputs: []))
  }
}
