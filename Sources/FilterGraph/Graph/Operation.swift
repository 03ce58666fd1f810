// Operation.swift — what a filter computes, apart from how it is scheduled.
//
// An operation states three things: the format and extent of its result (`outputInfo`), the
// region of each input it needs for a region of output (`inputRegion`), and how to compute one
// region (`render`). It never sees threads, tile sizes or the order tiles run in: the Renderer
// owns that (the Halide split between algorithm and schedule). What else the renderer and the
// optimizer may do with an operation it says by adopting a capability protocol: per-pixel
// (`PointOperation`, `PositionalPointOperation`: run in place and fused), resampling
// (`ResampleOperation`: may be fed a reduced-size decode), folding (`FoldingOperation`) and
// commuting with scaling (`ScaleCommutingOperation`) — see Optimizer.swift.

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
public struct Tile: Sendable {
  /// Where the pixels lie, in the coordinates of the image they belong to.
  public var rect: Rect
  /// The size of the whole image the tile is part of. The renderer sets it on every tile it hands
  /// an operation: an input tile carries its input's real size (which shrink-on-load may make
  /// smaller than the graph was built with), an output tile the operation's output size.
  public var imageSize: Size
  /// The pixels: `rect.size`, `.rgbaFloatPremultiplied`.
  public var buffer: PixelBuffer

  /// A tile with fresh, uninitialised pixels (memory recycled from earlier tiles when possible),
  /// part of an image of `imageSize` (default: the smallest image holding `rect`); stops the
  /// process when the memory cannot be had. For tiles of a bounded size: the renderer makes the
  /// tiles a graph asks for with `init(allocating:imageSize:)`, which throws instead.
  public init(rect: Rect, imageSize: Size? = nil) {
    do {
      try self.init(allocating: rect, imageSize: imageSize)
    } catch {
      fatalError("\(error)")
    }
  }

  /// A tile with fresh, uninitialised pixels, as `init(rect:imageSize:)` makes.
  ///
  /// - Throws: `PixelAllocationError` when the system refuses the memory.
  public init(allocating rect: Rect, imageSize: Size? = nil) throws(PixelAllocationError) {
    self.rect = rect
    self.imageSize = imageSize ?? Tile.smallestImage(holding: rect)
    let format = PixelFormat.rgbaFloatPremultiplied
    let rowBytes = PixelBuffer.alignedRowBytes(width: rect.width, format: format)
    self.buffer = PixelBuffer(
      storage: try TileMemoryPool.storage(byteCount: rowBytes * rect.height), width: rect.width, height: rect.height,
      rowBytes: rowBytes, format: format)
  }

  /// A tile over existing pixels, part of an image of `imageSize` (default: the smallest image
  /// holding `rect`).
  public init(rect: Rect, buffer: PixelBuffer, imageSize: Size? = nil) {
    precondition(buffer.width == rect.width && buffer.height == rect.height)
    self.rect = rect
    self.imageSize = imageSize ?? Tile.smallestImage(holding: rect)
    self.buffer = buffer
  }

  private static func smallestImage(holding rect: Rect) -> Size {
    Size(width: max(rect.maxX, 0), height: max(rect.maxY, 0))
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
  case color
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
  /// True when its percentages may be of another image than its input: the filter then also
  /// receives that reference image after its inputs (`scale logo width=15% of=photo`).
  public var measuresAgainstReference: Bool

  /// Creates a descriptor.
  public init(
    name: String, category: OperationCategory, summary: String, inputCount: Int = 1, parameters: [ParameterSpec], example: String,
    measuresAgainstReference: Bool = false
  ) {
    self.name = name
    self.category = category
    self.summary = summary
    self.inputCount = inputCount
    self.parameters = parameters
    self.example = example
    self.measuresAgainstReference = measuresAgainstReference
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
  /// cover the regions `inputRegion` asked for. Each input tile's `imageSize` is that input's
  /// size as it is rendered, which may differ from the size the graph was built with: the
  /// optimizer may feed a resampling operation a reduced-size decode (`ResampleOperation`).
  func render(into output: inout Tile, inputs: [Tile]) throws

  // Itself as each public capability protocol it adopts, nil for the others: what `as? any P`
  // answers, chosen when the type is compiled (Capabilities.swift says why).
  /// Itself as a `SourceOperation`, or nil.
  var asSource: (any SourceOperation)? { get }
  /// Itself as a `PositionalPointOperation`, or nil.
  var asPositionalPoint: (any PositionalPointOperation)? { get }
  /// Itself as an `AnalysedOperation`, or nil.
  var asAnalysed: (any AnalysedOperation)? { get }
  /// Itself as a `FoldingOperation`, or nil.
  var asFolding: (any FoldingOperation)? { get }
  /// Itself as a `ResampleOperation`, or nil.
  var asResample: (any ResampleOperation)? { get }
  /// Itself as a `WarningOperation`, or nil.
  var asWarning: (any WarningOperation)? { get }
}

extension ImageOperation {
  /// Most filters keep the input's extent and format.
  public func outputInfo(inputs: [ImageInfo]) -> ImageInfo { inputs[0] }
  /// Most filters need exactly the output region of their input.
  public func inputRegion(for output: Rect, input index: Int, inputs: [ImageInfo]) -> Rect { output }
}

/// Where a row of pixels handed to a point operation lies: pixel `i` of the row is at
/// `(x + i, y)` in an image of `imageSize`.
public struct PixelRowPosition: Hashable, Sendable {
  /// The column of the row's first pixel.
  public var x: Int
  /// The row.
  public var y: Int
  /// The size of the image the row belongs to (the operation's output).
  public var imageSize: Size

  /// Creates a position.
  public init(x: Int, y: Int, imageSize: Size) {
    self.x = x
    self.y = y
    self.imageSize = imageSize
  }
}

/// A filter whose output pixel depends only on the input pixel at the same place and on that
/// place (a vignette, a gradient).
///
/// The renderer runs it in place on its input's tile, row by row, and the optimizer fuses chains
/// of them into one pass over each tile (`FusedPointOperation`).
public protocol PositionalPointOperation: ImageOperation {
  /// Transforms `count` premultiplied pixels in place, in `workingSpace` (or the input's encoding
  /// when that is nil); `pixels[i]` lies at `(position.x + i, position.y)`.
  func apply(to pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int, at position: PixelRowPosition)
  /// The space `apply` leaves the pixels in: nil when it is the space they arrived in (the
  /// default, `workingSpace`, is right for every operation of one stage).
  var resultSpace: WorkingSpace? { get }
}

extension PositionalPointOperation {
  public var resultSpace: WorkingSpace? { workingSpace }

  /// Copies the input and applies the operation to each row (the renderer works in place instead).
  public func render(into output: inout Tile, inputs: [Tile]) throws {
    output.buffer = inputs[0].buffer
    let (rect, size) = (output.rect, output.imageSize)
    output.withMutablePixels { px in
      for y in 0..<px.height {
        apply(to: px[row: y], count: px.width, at: PixelRowPosition(x: rect.x, y: rect.y + y, imageSize: size))
      }
    }
  }
}

/// A filter whose output pixel depends only on the input pixel at the same place (colour
/// matrices, tint, gamma, conversions). It is a `PositionalPointOperation` that ignores the
/// position.
public protocol PointOperation: PositionalPointOperation {
  /// Transforms `count` premultiplied pixels in place (in `workingSpace`, or the input's encoding
  /// when that is nil).
  func apply(to pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int)
}

extension PointOperation {
  /// Ignores the position.
  @inlinable
  public func apply(to pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int, at position: PixelRowPosition) {
    apply(to: pixels, count: count)
  }
}
