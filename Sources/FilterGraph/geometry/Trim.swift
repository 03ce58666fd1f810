// Trim.swift — removes the border whose colour is within a threshold of the background.
//
// Definition, on premultiplied RGBA in the sRGB encoding (as stored; for opaque pixels the
// straight colour): with B the background colour (given, or else the input's top-left pixel) and
// t the threshold, pixel p is *content* when
//
//   d(p) = max over c ∈ {r, g, b, a} of |p_c − B_c| > t
//
// (premultiplied, so every fully transparent pixel equals a transparent background whatever
// colour it stores). The output is the crop (Crop.swift) to the smallest rectangle holding every
// content pixel. When no pixel is content — a flat image — the image is returned whole: trim never
// trims to nothing. The default t = 0.04 is about 10 of 255 levels, libvips's `find_trim`
// default, enough to absorb JPEG ringing around a flat border.
//
// The analysis (`TrimAnalysis`) reads the image at full size (a downscaled view would blur the
// border by its scale): each tile gives the bounding box of its content pixels, the boxes are
// merged by union — exact, so any tiling gives the same box. Until it is computed the node
// reports its input's size (the largest the result can be); `Renderer.resolved(_:)` gives the
// final one.

import PixelBufferModule

/// The bounding box of the pixels farther than a threshold from a background colour; see Trim.swift.
public struct TrimAnalysis: ImageAnalysis {
  /// The largest channel difference (0…1) a background pixel may have.
  public var threshold: Double
  /// The background colour, or nil for the top-left pixel's.
  public var background: Color?
  /// The premultiplied background the tiles are compared with (filled in by `prepared`).
  var reference: SIMD4<Float>?

  /// Creates the analysis.
  public init(threshold: Double, background: Color?) {
    self.threshold = threshold
    self.background = background
    reference = background?.premultiplied(in: .encoded)
  }

  public var label: String {
    "bounding box of pixels beyond \(ParameterValue.format(threshold)) of \(background.map(\.hexString) ?? "the top-left pixel")"
  }
  public var view: AnalysisView { .fullSize }
  public var workingSpace: WorkingSpace { .encoded }

  /// Reads the top-left pixel when no background colour was given.
  public func prepared(reading read: (Rect) throws -> Tile, viewSize: Size) throws -> TrimAnalysis {
    guard reference == nil, !viewSize.isEmpty else { return self }
    var ready = self
    ready.reference = try read(Rect(x: 0, y: 0, width: 1, height: 1)).withPixels { $0[row: 0][0] }
    return ready
  }

  /// The box of the tile's content pixels, in the image's coordinates (empty when there are none).
  public func partial(of tile: Tile, viewSize: Size) -> Rect {
    let b = reference ?? .zero, t = Float(threshold)
    @inline(__always) func isContent(_ p: SIMD4<Float>) -> Bool {
      let d = p - b
      return pointwiseMax(d, -d).max() > t
    }
    var box = Rect(x: 0, y: 0, width: 0, height: 0)
    tile.withPixels { px in
      for y in 0..<px.height {
        let row = px[row: y]
        // The first content pixel from the left; a row without one is skipped whole.
        guard let first = (0..<px.width).first(where: { isContent(row[$0]) }) else { continue }
        let last = (first..<px.width).last(where: { isContent(row[$0]) })!
        box = box.union(Rect(x: tile.rect.x + first, y: tile.rect.y + y, width: last - first + 1, height: 1))
      }
    }
    return box
  }

  public func merged(_ first: Rect, _ second: Rect) -> Rect { first.union(second) }

  /// The box, or the whole image when no pixel is content.
  public func result(_ partial: Rect, viewSize: Size, imageSize: Size) -> Rect {
    partial.isEmpty ? Rect(size: imageSize) : partial
  }
}

/// `trim`: crops to the content found by `TrimAnalysis`; see Trim.swift.
public struct TrimOperation: WindowChoosingOperation {
  /// `trim threshold=0.04 background=white`.
  public struct Parameters: FilterParameters {
    /// How far from the background a border pixel may be.
    @Param("threshold", range: 0...1, percent: .fraction, help: "Largest difference (0…1, any channel) from the background a border pixel may have.")
    public var threshold = 0.04
    /// The border's colour.
    @OptionalParam("background", help: "The border's colour (default: the top-left pixel's).")
    public var background: Color?

    /// The defaults.
    public init() {}
  }

  /// The parameters, in their ranges.
  public let parameters: Parameters

  /// Creates the operation.
  public init(_ parameters: Parameters) { self.parameters = parameters }

  public static let table = OperationDescriptor(
    name: "trim", category: .geometry,
    summary: "Crops away the border whose colour is within a threshold of the background (default: the top-left pixel).",
    parameters: Parameters.table, example: "trim threshold=0.1 background=white")

  public var descriptor: OperationDescriptor { Self.table }
  public var arguments: Arguments { parameters.arguments }
  public var workingSpace: WorkingSpace? { nil }

  public var analysis: TrimAnalysis { TrimAnalysis(threshold: parameters.threshold, background: parameters.background) }

  public func resolved(with box: Rect, input: ImageInfo) -> any ImageOperation { CropOperation(region: box) }
}

extension Image {
  /// The image without its border: cropped to the smallest rectangle holding every pixel that
  /// differs from `background` (default: the top-left pixel's colour) by more than `threshold`
  /// (0…1) in some channel; a flat image is returned whole (see Trim.swift). The border is found
  /// by the renderer before the tiles; until then `size` is the input's.
  public func trimmed(threshold: Double = 0.04, background: Color? = nil) -> Image {
    var parameters = TrimOperation.Parameters()
    (parameters.threshold, parameters.background) = (threshold, background)
    return applying(TrimOperation(parameters))
  }
}
