// Operation.swift — what a filter computes, apart from how it is scheduled.
//
// An operation states three things: the format and extent of its result (`outputInfo`), the
// region of each input it needs for a region of output (`inputRegion`), and how to compute one
// region (`render`). It never sees threads, tile sizes or the order tiles run in: the Renderer
// owns that (the Halide split between algorithm and schedule).

import PixelBufferModule

/// Which encoding of colour values an operation's arithmetic is defined in.
public enum WorkingSpace: String, Hashable, Sendable {
  /// Values proportional to light (sRGB curve removed): right for resampling, blurring, blending.
  case linear
  /// Values as stored in files (sRGB curve applied): what most tools' colour adjustments use.
  case encoded
}

/// A rectangle of an image's pixels in the renderer's working format: float RGBA with
/// premultiplied alpha, in one `WorkingSpace`.
public struct Tile: @unchecked Sendable {
  /// Where the pixels lie, in the coordinates of the image they belong to.
  public var rect: Rect
  /// The pixels: `rect.size`, `.rgbaFloatPremultiplied`.
  public var buffer: PixelBuffer

  /// A tile with fresh, uninitialised pixels (memory recycled from earlier tiles when possible).
  public init(rect: Rect) {
    self.rect = rect
    let format = PixelFormat.rgbaFloatPremultiplied
    let rowBytes = PixelBuffer.alignedRowBytes(width: rect.width, format: format)
    self.buffer = PixelBuffer(
      storage: TileMemoryPool.storage(byteCount: rowBytes * rect.height), width: rect.width, height: rect.height,
      rowBytes: rowBytes, format: format)
  }

  /// A tile over existing pixels.
  public init(rect: Rect, buffer: PixelBuffer) {
    precondition(buffer.width == rect.width && buffer.height == rect.height)
    self.rect = rect
    self.buffer = buffer
  }

  /// Reads the pixels: `pixels[row: y][x]` is the pixel at `(rect.x + x, rect.y + y)`.
  @inlinable
  public func withPixels<R>(_ body: (UnsafePixels<SIMD4<Float>>) throws -> R) rethrows -> R {
    try buffer.withUnsafePixels(as: SIMD4<Float>.self, body)
  }

  /// Writes the pixels (copying first if they are shared).
  @inlinable
  public mutating func withMutablePixels<R>(_ body: (UnsafeMutablePixels<SIMD4<Float>>) throws -> R) rethrows -> R {
    try buffer.withUnsafeMutablePixels(as: SIMD4<Float>.self, body)
  }
}

/// What an image will be, known before any pixel is computed.
public struct ImageInfo: Hashable, Sendable {
  /// Width and height.
  public var size: Size
  /// The channels the image is written with.
  public var layout: ChannelLayout
  /// The component type the image is written with (`.uint16` keeps 16-bit inputs' precision).
  public var component: ComponentType
  /// The colour space values are encoded in when written (the working tiles use its curve).
  public var colorSpace: ColorSpace
  /// Metadata carried to the output (ICC profile; orientation is applied, not carried).
  public var metadata: ImageMetadata

  /// Creates an info.
  public init(size: Size, layout: ChannelLayout, component: ComponentType, colorSpace: ColorSpace, metadata: ImageMetadata = ImageMetadata()) {
    self.size = size
    self.layout = layout
    self.component = component
    self.colorSpace = colorSpace
    self.metadata = metadata
  }

  /// The rectangle at the origin with `size`.
  public var extent: Rect { Rect(size: size) }
}

/// The families operations are filed under, as libvips files them.
public enum OperationCategory: String, Hashable, Sendable, CaseIterable {
  /// Where pixels come from.
  case source
  /// Scaling.
  case resample
  /// Blur and sharpen.
  case convolution
  /// Colour adjustments and conversions.
  case colour
  /// Crop, rotate, flip, orient.
  case geometry
  /// Blending images together.
  case compositing
}

/// The static description of an operation: its recipe name, help and parameter table.
public struct OperationDescriptor: Sendable {
  /// The recipe name (`scale`, `blur`, `tint`…).
  public var name: String
  /// The family.
  public var category: OperationCategory
  /// One line saying what it does.
  public var summary: String
  /// The parameter table.
  public var parameters: [ParameterSpec]
  /// How many images it takes: 0 for sources, 1 for filters of the chain's image, 2 for the
  /// chain's image plus one more (composite, blend).
  public var inputCount: Int
  /// A one-line recipe example.
  public var example: String

  /// Creates a descriptor.
  public init(name: String, category: OperationCategory, summary: String, inputCount: Int = 1, parameters: [ParameterSpec], example: String) {
    self.name = name
    self.category = category
    self.summary = summary
    self.inputCount = inputCount
    self.parameters = parameters
    self.example = example
  }

  /// The row named `name`, or nil.
  public func parameter(named name: String) -> ParameterSpec? { parameters.first { $0.name == name } }
}

/// A node's computation: the protocol every filter implements.
public protocol ImageOperation: Sendable {
  /// The operation's table (name, parameters…), shared by all its instances.
  var descriptor: OperationDescriptor { get }
  /// The argument values of this instance, in table order; their text is part of the cache key.
  var arguments: Arguments { get }
  /// The encoding its arithmetic needs; nil when it only moves pixels and works in any.
  var workingSpace: WorkingSpace? { get }
  /// The result's size and format, from the inputs'.
  func outputInfo(inputs: [ImageInfo]) -> ImageInfo
  /// The region of input `index` needed to compute `output`. It may reach outside the input's
  /// extent: the renderer extends edges (clamps coordinates) to fill it.
  func inputRegion(for output: Rect, input index: Int, inputs: [ImageInfo]) -> Rect
  /// Computes `output.rect` of the result into `output.buffer` from tiles of the inputs that
  /// cover the regions `inputRegion` asked for.
  func render(into output: inout Tile, inputs: [Tile]) throws
  /// The same, also given the inputs' infos (what `inputRegion` was given). The renderer calls
  /// this one; the default ignores `inputInfos` and calls `render(into:inputs:)`. Operations whose
  /// arithmetic depends on an input's size, which the optimizer may change under them (`scale`
  /// fed by a reduced-size JPEG decode), implement it.
  func render(into output: inout Tile, inputs: [Tile], inputInfos: [ImageInfo]) throws
}

extension ImageOperation {
  /// Most filters keep the input's extent and format.
  public func outputInfo(inputs: [ImageInfo]) -> ImageInfo { inputs[0] }
  /// Most filters need exactly the output region of their input.
  public func inputRegion(for output: Rect, input index: Int, inputs: [ImageInfo]) -> Rect { output }
  /// Most filters do not need the inputs' infos to compute a region.
  public func render(into output: inout Tile, inputs: [Tile], inputInfos: [ImageInfo]) throws {
    try render(into: &output, inputs: inputs)
  }
}

/// A filter whose output pixel depends only on the input pixel at the same place.
///
/// The renderer runs chains of point operations as one fused pass over each tile, in place.
public protocol PointOperation: ImageOperation {
  /// Transforms `count` premultiplied pixels in place (in `workingSpace`, or the input's encoding
  /// when that is nil).
  func apply(to pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int)
}

extension PointOperation {
  /// Copies the input and applies the operation (the renderer's fused path avoids the copy).
  public func render(into output: inout Tile, inputs: [Tile]) throws {
    output.buffer = inputs[0].buffer
    output.withMutablePixels { px in
      for y in 0..<px.height { apply(to: px[row: y], count: px.width) }
    }
  }
}
