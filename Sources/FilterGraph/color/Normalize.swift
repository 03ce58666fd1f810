// Normalize.swift — stretches the image's own percentiles to black and white (automatic contrast).
//
// Definition, on colour values in the sRGB encoding (as stored): with H the histogram of the
// straight red, green and blue values together of every pixel with alpha > 0 (one distribution,
// so the three channels get the same map and the colour balance is kept), P(q) its q-th quantile
// (the smallest v with at least q of the values ≤ v, interpolated within a bin), lo = P(low) and
// hi = P(high):
//
//   c' = (c − lo) / (hi − lo)        for r, g, b;   alpha unchanged
//
// i.e. `levels black=lo white=hi`, which the node becomes once the histogram is known. When
// hi − lo < 1/1024 (a nearly flat image) the image is left unchanged. Values beyond the
// percentiles fall outside 0…1 and clip when stored.
//
// The analysis (`HistogramAnalysis`): 4096 bins over [0, 1] (values outside fall into the end
// bins), on a view of at most 4 megapixels (a 24 MP JPEG is decoded at 1/2 and box-averaged in
// the sRGB encoding to 4 MP; smaller images are used whole). Averaging narrows the tails a
// little: on samples/flower.jpg a view 1/4 as wide has its 1 %, 5 %, 50 %, 95 % and 99 % points
// within 2/255 of the full image's (0.0068 at worst; NormalizeTests checks it; at 1/8 the worst
// is 0.019).

import Foundation
import PixelBufferModule

/// A histogram of an image's straight colour values; see Normalize.swift.
public struct Histogram: Hashable, Sendable {
  /// Counts per bin: bin i holds values in [i/n, (i+1)/n) (the last also holds 1 and above, the
  /// first everything below 0), n = `counts.count`, for r, g and b together.
  public var counts: [Int]

  /// The q-quantile (0…1) of the values: the smallest v with at least q of them ≤ v, linear within
  /// the bin it falls in.
  public func quantile(_ q: Double) -> Double {
    let total = counts.reduce(0, +)
    guard total > 0 else { return 0 }
    let target = min(max(q, 0), 1) * Double(total)
    var below = 0
    let n = Double(counts.count)
    for (i, c) in counts.enumerated() where c > 0 {
      if Double(below + c) >= target {
        let within = max(0, target - Double(below)) / Double(c)
        return (Double(i) + within) / n
      }
      below += c
    }
    return 1
  }
}

/// Counts straight r, g, b values (pixels with alpha > 0) into `bins` bins over [0, 1].
public struct HistogramAnalysis: ImageAnalysis {
  /// The number of bins.
  public var bins: Int
  /// The pixels counted.
  public var view: AnalysisView

  /// Creates the analysis (4096 bins on a view of ≤ 4 MP by default).
  public init(bins: Int = 4096, view: AnalysisView = .reduced(maximumPixels: 4_000_000)) {
    self.bins = max(2, bins)
    self.view = view
  }

  public var label: String { "histogram of r,g,b bins=\(bins)" }
  public var workingSpace: WorkingSpace { .encoded }

  public func partial(of tile: Tile, viewSize: Size) -> [Int] {
    var counts = [Int](repeating: 0, count: bins)
    let n = Float(bins), top = bins - 1
    @inline(__always) func bin(_ v: Float) -> Int { v >= 0 ? Int(min(v, Float(top))) : 0 }  // NaN, negatives → 0
    tile.withPixels { px in
      counts.withUnsafeMutableBufferPointer { c in
        for y in 0..<px.height {
          let row = px[row: y]
          for x in 0..<px.width {
            let p = row[x]
            guard p.w > 0 else { continue }
            let s = (p / p.w) * n
            c[bin(s.x)] += 1
            c[bin(s.y)] += 1
            c[bin(s.z)] += 1
          }
        }
      }
    }
    return counts
  }

  public func merged(_ first: [Int], _ second: [Int]) -> [Int] { zip(first, second).map(+) }

  public func result(_ partial: [Int], viewSize: Size, imageSize: Size) -> Histogram { Histogram(counts: partial) }
}

/// `normalize`: levels from the image's own percentiles; see the file's definition.
public struct NormalizeOperation: AnalysedOperation {
  /// `normalize low=1 high=99`: percentiles.
  public struct Parameters: FilterParameters {
    /// The percentile that becomes black.
    @Param("low", range: 0...100, percent: .percent, help: "Percentile that becomes black (1 or 1% is the 1st percentile).")
    public var low = 1.0
    /// The percentile that becomes white.
    @Param("high", range: 0...100, percent: .percent, help: "Percentile that becomes white (99 or 99% is the 99th percentile).")
    public var high = 99.0

    /// The defaults.
    public init() {}
  }

  /// The parameters, in their ranges, `low` not above `high`.
  public let parameters: Parameters

  /// Creates the operation; the percentiles are ordered.
  public init(_ parameters: Parameters) {
    var ordered = parameters
    (ordered.low, ordered.high) = (min(parameters.low, parameters.high), max(parameters.low, parameters.high))
    self.parameters = ordered
  }

  public static let table = OperationDescriptor(
    name: "normalize", category: .color,
    summary: "Stretches the low and high percentiles of the image's r, g, b values to black and white.",
    parameters: Parameters.table, example: "normalize low=1 high=99")

  public var descriptor: OperationDescriptor { Self.table }
  public var arguments: Arguments { parameters.arguments }
  public var workingSpace: WorkingSpace? { .encoded }

  public var analysis: HistogramAnalysis { HistogramAnalysis() }

  public func resolved(with histogram: Histogram, input: ImageInfo) -> any ImageOperation {
    let lo = histogram.quantile(parameters.low / 100), hi = histogram.quantile(parameters.high / 100)
    var levels = LevelsOperation.Parameters()
    guard hi - lo >= 1.0 / 1024 else { return LevelsOperation(levels) }
    (levels.black, levels.white) = (lo, hi)
    return LevelsOperation(levels)
  }
}

extension Image {
  /// The image with the `low` and `high` quantiles (0…1) of its r, g, b values stretched to black
  /// and white (see Normalize.swift), clamped to 0…1 and ordered. The histogram is computed by
  /// the renderer before the tiles.
  public func normalized(low: Double = 0.01, high: Double = 0.99) -> Image {
    var percentiles = NormalizeOperation.Parameters()
    (percentiles.low, percentiles.high) = (low * 100, high * 100)
    return applying(NormalizeOperation(percentiles))
  }
}
