// ImageStatistics.swift — per-channel minimum, maximum, mean, standard deviation and the
// dominant colour of an image: `renderer.statistics(of:)`, `fgrun info --stats`.
//
// Definition. The image is rendered as FilterGraph writes it (sRGB; a file with another ICC
// profile is converted, fully transparent pixels have colour 0), and each pixel's channels are
// taken straight (not premultiplied), sRGB-encoded, clipped to 0…1: gray images have one colour
// channel, colour images three, and alpha is a channel when the image has it. Over all N pixels,
// for each channel c:
//
//   min, max   the smallest and largest value,
//   mean       μ = Σ v / N,
//   deviation  σ = √(Σ (v − μ)² / N)          (population standard deviation).
//
// Dominant colour: the sRGB cube is cut into 16 × 16 × 16 equal cells (a value v falls in cell
// ⌊16·v⌋, 1.0 in the last); each pixel adds its alpha to its colour's cell; the dominant colour is
// the alpha-weighted mean colour of the cell with the largest total (the lowest cell index on a
// tie), or nil when every pixel is transparent.
//
// The computation is an analysis (Graph/Analysis.swift) of the full-size image: `partial` reduces
// one tile of premultiplied sRGB-encoded pixels, `merged` combines two partials in tile order
// (means and squared deviations with Chan et al.'s pairwise formulas, so precision does not
// degrade with size), and `result` finishes. `Renderer.statistics(of:)` runs it tile-parallel on
// the renderer's workers through `Renderer.analyse`, which keeps the result for the same input.

import Foundation
import PixelBufferModule

/// Statistics of one channel (values 0…1, sRGB-encoded, straight).
public struct ChannelStatistics: Hashable, Sendable {
  /// The channel's name: `red`, `green`, `blue`, `gray` or `alpha`.
  public var name: String
  /// The smallest value.
  public var minimum: Double
  /// The largest value.
  public var maximum: Double
  /// The mean value.
  public var mean: Double
  /// The population standard deviation.
  public var standardDeviation: Double
}

/// What `Renderer.statistics(of:)` reports (see ImageStatistics.swift).
public struct ImageStatistics: Hashable, Sendable {
  /// The image's size.
  public var size: Size
  /// One entry per channel of the image's layout, in order (alpha last).
  public var channels: [ChannelStatistics]
  /// The dominant colour (opaque), or nil when every pixel is transparent.
  public var dominantColor: Color?
}

/// The analysis behind `ImageStatistics`: partial results of tiles and their merge.
public struct ImageStatisticsAnalysis: ImageAnalysis {
  /// The layout whose channels are reported.
  public let layout: ChannelLayout

  /// Creates the analysis for an image of `layout`.
  public init(layout: ChannelLayout) { self.layout = layout }

  /// `channel statistics (rgb)`: the layout decides which channels are reported.
  public var label: String { "channel statistics (\(layout))" }
  /// Every pixel, at full size.
  public var view: AnalysisView { .fullSize }
  /// Statistics are of the sRGB-encoded values.
  public var workingSpace: WorkingSpace { .encoded }

  /// Cells per axis of the dominant-colour grid.
  static let cells = 16

  /// Running statistics of a part of the image.
  public struct Partial: Sendable {
    /// Pixels reduced.
    var count = 0.0
    /// Per RGBA lane: mean, sum of squared deviations, minimum, maximum.
    var mean = SIMD4<Double>.zero, m2 = SIMD4<Double>.zero
    var minimum = SIMD4<Double>(repeating: .infinity), maximum = SIMD4<Double>(repeating: -.infinity)
    /// Per colour cell: total alpha, and alpha-weighted sums of the straight colour.
    var weights = [Double](repeating: 0, count: cells * cells * cells)
    var sums = [SIMD4<Double>](repeating: .zero, count: cells * cells * cells)
  }

  /// Reduces `tile` (premultiplied float RGBA, sRGB-encoded).
  public func partial(of tile: Tile, viewSize: Size) -> Partial {
    var p = Partial()
    let n = Self.cells
    tile.withPixels { px in
      for y in 0..<px.height {
        // Per row: plain sums, folded into the running mean and deviation once per row.
        var sum = SIMD4<Double>.zero, sumSquares = SIMD4<Double>.zero
        var lo = SIMD4<Float>(repeating: .infinity), hi = SIMD4<Float>(repeating: -.infinity)
        let row = px[row: y]
        for x in 0..<px.width {
          let v = row[x]
          let a = min(max(v.w, 0), 1)
          var s = a > 0 ? SIMD4(v.x / a, v.y / a, v.z / a, a) : .zero
          s.clamp(lowerBound: .zero, upperBound: SIMD4(repeating: 1))
          lo = pointwiseMin(lo, s)
          hi = pointwiseMax(hi, s)
          let d = SIMD4<Double>(Double(s.x), Double(s.y), Double(s.z), Double(s.w))
          sum += d
          sumSquares += d * d
          if a > 0 {
            let top = Float(n - 1)
            let cx = Int(min(s.x * Float(n), top)), cy = Int(min(s.y * Float(n), top)), cz = Int(min(s.z * Float(n), top))
            let index = (cx * n + cy) * n + cz
            p.weights[index] += d.w
            p.sums[index] += d * d.w
          }
        }
        let count = Double(px.width)
        let rowMean = sum / count
        var rowPart = Partial()
        rowPart.count = count
        rowPart.mean = rowMean
        rowPart.m2 = pointwiseMax(sumSquares - sum * rowMean, .zero)
        rowPart.minimum = SIMD4(Double(lo.x), Double(lo.y), Double(lo.z), Double(lo.w))
        rowPart.maximum = SIMD4(Double(hi.x), Double(hi.y), Double(hi.z), Double(hi.w))
        Self.fold(rowPart, into: &p)
      }
    }
    return p
  }

  /// Folds the moments of `b` into `a` (Chan et al.'s pairwise update); cells are left alone.
  private static func fold(_ b: Partial, into a: inout Partial) {
    guard b.count > 0 else { return }
    let n = a.count + b.count
    let delta = b.mean - a.mean
    a.mean += delta * (b.count / n)
    a.m2 += b.m2 + delta * delta * (a.count * b.count / n)
    a.count = n
    a.minimum = pointwiseMin(a.minimum, b.minimum)
    a.maximum = pointwiseMax(a.maximum, b.maximum)
  }

  /// `first` and `second` combined (`first` covering the part above or to the left).
  public func merged(_ first: Partial, _ second: Partial) -> Partial {
    var m = first
    Self.fold(second, into: &m)
    for i in 0..<m.weights.count where second.weights[i] > 0 {
      m.weights[i] += second.weights[i]
      m.sums[i] += second.sums[i]
    }
    return m
  }

  /// The statistics of an image of `imageSize` whose pixels reduced to `partial`.
  public func result(_ partial: Partial, viewSize: Size, imageSize: Size) -> ImageStatistics {
    let names: [String]
    let lanes: [Int]
    switch layout {
    case .gray: (names, lanes) = (["gray"], [0])
    case .grayAlpha: (names, lanes) = (["gray", "alpha"], [0, 3])
    case .rgb: (names, lanes) = (["red", "green", "blue"], [0, 1, 2])
    case .rgba: (names, lanes) = (["red", "green", "blue", "alpha"], [0, 1, 2, 3])
    }
    let n = max(partial.count, 1)
    let channels = zip(names, lanes).map { name, lane in
      ChannelStatistics(
        name: name, minimum: partial.count > 0 ? partial.minimum[lane] : 0, maximum: partial.count > 0 ? partial.maximum[lane] : 0,
        mean: partial.mean[lane], standardDeviation: (partial.m2[lane] / n).squareRoot())
    }
    var best = -1
    for i in partial.weights.indices where partial.weights[i] > 0 && (best < 0 || partial.weights[i] > partial.weights[best]) { best = i }
    let dominant = best < 0 ? nil : {
      let c = partial.sums[best] / partial.weights[best]
      return Color(red: Float(c.x), green: Float(c.y), blue: Float(c.z))
    }()
    return ImageStatistics(size: imageSize, channels: channels, dominantColor: dominant)
  }
}

extension Renderer {
  /// Per-channel minimum, maximum, mean and standard deviation and the dominant colour of
  /// `image` as this renderer renders it (see ImageStatistics.swift for the exact definition).
  ///
  /// Computed tile-parallel on the renderer's workers and merged in tile order, so the result
  /// does not depend on threads or tiles; kept for the same input like any analysis.
  public func statistics(of image: Image) throws -> ImageStatistics {
    try analyse(image, ImageStatisticsAnalysis(layout: image.info.layout))
  }
}
