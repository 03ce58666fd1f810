// Median.swift — per channel, the median of the square window around each pixel (despeckle).
//
// Definition: for a radius r ≥ 0 and each channel c of premultiplied RGBA in the encoded (stored
// sRGB) space, alpha included,
//
//     output_c(x, y) = the (k + 1)-th smallest of the N values input_c(x + i, y + j), |i| ≤ r, |j| ≤ r,
//
// where N = (2r + 1)² and k = (N − 1) / 2: the middle one of the window's values counted with
// repetition (N is odd, so it is one of them and nothing is averaged). Coordinates outside the
// image repeat the nearest edge pixel, as in boxblur, blur and sharpen. r = 0 is the identity.
//
// Consequences: every output value is one of the input values (an 8-bit input gives 8-bit values
// back exactly); a window in which one pixel differs from the rest outputs the rest's value, so
// r = 1 removes isolated salt-and-pepper pixels; on a straight step edge more than half of every
// window lies on the side of its centre, so the edge stays where it was. A premultiplied colour
// never exceeds its alpha, and order statistics keep a pointwise order, so the median colour never
// exceeds the median alpha: the result is valid premultiplied RGBA. Channels are independent, so
// a pixel's colour need not be that of any one input pixel (as with libvips's `median` and
// ImageMagick's `-median`).
//
// Evaluation — each method computes exactly the value above, so tiles agree bit for bit whichever
// method ran where:
//  * r = 1: sorted columns. Each input column of three is sorted once (3 comparators) and shared
//    by the three windows it belongs to; a window's median is then
//        med3(max of the 3 column minima, med3 of the 3 column middles, min of the 3 column maxima)
//    — 10 more min/max per pixel, on the four channels at once. The expression is made of min
//    and max only, so by the 0–1 principle it is the median for all inputs because it is for all
//    2⁹ inputs of zeros and ones (tested).
//  * r = 2: a selection network of min/max comparators on the four channels at once. It
//    is Batcher's odd–even merge sort (K. E. Batcher, "Sorting networks and their applications",
//    AFIPS 1968) on the next power of two of wires, the wires beyond N held at +∞ and folded away,
//    pruned to the comparators the middle wire depends on (113 for r = 2). It runs over strips of
//    a row, so each comparator is one vector loop.
//  * r ≥ 3 when every value of the input tile is k/255 exactly (what 8-bit inputs load as): Huang's
//    sliding histogram (T. S. Huang, G. J. Yang, G. Y. Tang, "A fast two-dimensional median
//    filtering algorithm", IEEE Trans. ASSP 27(1), 1979) — 256 bins per channel, one column enters
//    and one leaves per step, and the median moves by the count of values below it: O(r) per pixel.
//  * r ≥ 3 otherwise (16-bit or float values, premultiplied partial alpha): the N values are
//    gathered and the middle one selected (Hoare's FIND, quickselect): O(r²) per pixel.

import PixelBufferModule

/// Replaces each channel of each pixel by the median of the (2r + 1)² square around it (see the
/// definition at the top of Median.swift).
public struct MedianOperation: ImageOperation {
  /// `median radius=1`.
  public struct Parameters: FilterParameters {
    /// The window radius.
    @Param("radius", range: 0...100, help: "Window radius: each channel becomes the median of the (2·radius+1)² square.")
    public var radius = 1

    /// The defaults.
    public init() {}
  }

  /// The parameters, in their ranges.
  public let parameters: Parameters

  /// Creates the operation.
  public init(_ parameters: Parameters) { self.parameters = parameters }

  public static let table = OperationDescriptor(
    name: "median", category: .convolution,
    summary: "Per channel, the median of the (2·radius+1)² square around each pixel (edges extended): removes speckle.",
    parameters: Parameters.table, example: "median radius=1")

  public var descriptor: OperationDescriptor { Self.table }
  public var arguments: Arguments { parameters.arguments }
  public var workingSpace: WorkingSpace? { .encoded }

  public func inputRegion(for output: Rect, input index: Int, inputs: [ImageInfo]) -> Rect {
    Tile.window(around: output, dx: parameters.radius, dy: parameters.radius)
  }

  public func render(into output: inout Tile, inputs: [Tile]) throws {
    let r = parameters.radius
    let input = try inputs[0].covering(Tile.window(around: output.rect, dx: r, dy: r))
    if r == 0 {
      input.withPixels { src in
        output.withMutablePixels { dst in
          for y in 0..<dst.height { dst[row: y].update(from: src[row: y], count: dst.width) }
        }
      }
    } else if r == 1 {
      try MedianOfNine.run(input, into: &output)
    } else if r == 2 {
      try MedianNetwork.fiveByFive.run(input, radius: r, into: &output)
    } else if let (storage, codes) = try MedianHistogram.codes(of: input) {
      defer { withExtendedLifetime(storage) {} }
      MedianHistogram.run(codes, width: input.rect.width, radius: r, into: &output)
    } else {
      try MedianSelection.run(input, radius: r, into: &output)
    }
  }
}

/// The smaller of each lane (a compare and a blend: the standard library's `pointwiseMin` goes
/// lane by lane through `Swift.min` and is several times slower here).
@inline(__always)
func laneMin(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> { a.replacing(with: b, where: b .< a) }

/// The larger of each lane (see `laneMin`).
@inline(__always)
func laneMax(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> { a.replacing(with: b, where: b .> a) }

/// The 3 × 3 median by sorted columns (see the file comment).
enum MedianOfNine {
  /// The column (a, b, c) sorted: (smallest, middle, largest).
  @inline(__always)
  static func sorted(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ c: SIMD4<Float>) -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
    let t = laneMin(a, b), u = laneMax(a, b)
    let v = laneMax(t, c)
    return (laneMin(t, c), laneMin(u, v), laneMax(u, v))
  }

  /// The median of three.
  @inline(__always)
  static func middle(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ c: SIMD4<Float>) -> SIMD4<Float> {
    laneMax(laneMin(a, b), laneMin(laneMax(a, b), c))
  }

  /// The median of the window whose three sorted columns are `low`, `mid` and `high` (each the
  /// columns' smallest, middle and largest values, left to right).
  @inline(__always)
  static func median(
    low: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>), mid: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>),
    high: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>)
  ) -> SIMD4<Float> {
    middle(
      laneMax(laneMax(low.0, low.1), low.2), middle(mid.0, mid.1, mid.2),
      laneMin(laneMin(high.0, high.1), high.2))
  }

  /// The median of nine values given row by row, by the same steps as `run`.
  static func median(of v: [SIMD4<Float>]) -> SIMD4<Float> {
    let c = (0..<3).map { sorted(v[$0], v[3 + $0], v[6 + $0]) }
    return median(low: (c[0].0, c[1].0, c[2].0), mid: (c[0].1, c[1].1, c[2].1), high: (c[0].2, c[1].2, c[2].2))
  }

  /// Computes `output` from `input`, which covers it widened by 1 on every side.
  static func run(_ input: Tile, into output: inout Tile) throws(PixelAllocationError) {
    let w = output.rect.width, h = output.rect.height
    let columns = w + 2
    let (storage, sortedColumns) = try TileMemoryPool.scratch(SIMD4<Float>.self, count: 3 * columns)
    defer { withExtendedLifetime(storage) {} }
    let low = sortedColumns, mid = sortedColumns + columns, high = sortedColumns + 2 * columns
    input.withPixels { src in
      output.withMutablePixels { dst in
        for y in 0..<h {
          let a = src[row: y], b = src[row: y + 1], c = src[row: y + 2]
          for x in 0..<columns { (low[x], mid[x], high[x]) = sorted(a[x], b[x], c[x]) }
          let d = dst[row: y]
          for x in 0..<w {
            d[x] = median(
              low: (low[x], low[x + 1], low[x + 2]), mid: (mid[x], mid[x + 1], mid[x + 2]),
              high: (high[x], high[x + 1], high[x + 2]))
          }
        }
      }
    }
  }
}

/// The selection network for r = 2 (see the file comment).
struct MedianNetwork: Sendable {
  /// One comparator: afterwards wire `low` holds the smaller and wire `high` the larger of the two
  /// values; a side nothing later reads is not written.
  struct Comparator: Sendable {
    var low: Int
    var high: Int
    var writesLow: Bool
    var writesHigh: Bool
  }

  /// The number of input wires, N.
  let inputs: Int
  /// The comparators, in order.
  let comparators: [Comparator]
  /// The wire that holds the (rank + 1)-th smallest input at the end.
  let result: Int

  /// A network leaving the (`rank` + 1)-th smallest of `inputs` values on wire `result`.
  init(selecting rank: Int, of inputs: Int) {
    var size = 1
    while size < inputs { size *= 2 }
    var pairs: [(Int, Int)] = []
    // Batcher's odd–even merge sort of `size` wires: (a, b) puts the smaller value on a < b.
    func merge(_ lo: Int, _ n: Int, _ gap: Int) {
      let step = 2 * gap
      if step < n {
        merge(lo, n, step)
        merge(lo + gap, n, step)
        var i = lo + gap
        while i + gap < lo + n {
          pairs.append((i, i + gap))
          i += step
        }
      } else {
        pairs.append((lo, lo + gap))
      }
    }
    func sort(_ lo: Int, _ n: Int) {
      guard n > 1 else { return }
      sort(lo, n / 2)
      sort(lo + n / 2, n / 2)
      merge(lo, n, 1)
    }
    sort(0, size)

    // Wires at or beyond `inputs` hold +∞: a comparator with +∞ on its high wire changes nothing,
    // one with +∞ only on its low wire moves the value down. `buffer[w]` is where wire w's value
    // lives (nil for +∞), so those comparators become renamings.
    var buffer: [Int?] = (0..<size).map { $0 < inputs ? $0 : nil }
    var live: [(Int, Int)] = []
    for (a, b) in pairs {
      switch (buffer[a], buffer[b]) {
      case (let x?, let y?): live.append((x, y))
      case (nil, let y?): (buffer[a], buffer[b]) = (y, nil)
      default: break
      }
    }
    let result = buffer[rank]!  // after sorting, the `inputs` values fill the lowest wires

    // Backwards from the result: keep a comparator when a later one (or the result) reads a side.
    var needed: Set<Int> = [result]
    var kept: [Comparator] = []
    for (x, y) in live.reversed() {
      let low = needed.contains(x), high = needed.contains(y)
      guard low || high else { continue }
      kept.append(Comparator(low: x, high: y, writesLow: low, writesHigh: high))
      needed.formUnion([x, y])
    }
    self.inputs = inputs
    self.comparators = kept.reversed()
    self.result = result
  }

  /// The median network of the 5 × 5 window.
  static let fiveByFive = MedianNetwork(selecting: 12, of: 25)

  /// Pixels per strip: the wires of one strip (N × strip pixels) stay in the level-1 cache.
  static let strip = 64

  /// Computes `output` from `input`, which covers it widened by `radius` on every side.
  func run(_ input: Tile, radius r: Int, into output: inout Tile) throws(PixelAllocationError) {
    let side = 2 * r + 1
    let w = output.rect.width, h = output.rect.height
    let strip = Self.strip
    let (storage, wires) = try TileMemoryPool.scratch(SIMD4<Float>.self, count: inputs * strip)
    defer { withExtendedLifetime(storage) {} }
    input.withPixels { src in
      output.withMutablePixels { dst in
        for y in 0..<h {
          var x0 = 0
          while x0 < w {
            let n = min(strip, w - x0)
            for dy in 0..<side {
              let row = src[row: y + dy] + x0
              for dx in 0..<side {
                (wires + (dy * side + dx) * strip).update(from: row + dx, count: n)
              }
            }
            for c in comparators {
              let a = wires + c.low * strip, b = wires + c.high * strip
              switch (c.writesLow, c.writesHigh) {
              case (true, true):
                for x in 0..<n {
                  let u = a[x], v = b[x]
                  a[x] = laneMin(u, v)
                  b[x] = laneMax(u, v)
                }
              case (true, false):
                for x in 0..<n { a[x] = laneMin(a[x], b[x]) }
              default:
                for x in 0..<n { b[x] = laneMax(a[x], b[x]) }
              }
            }
            (dst[row: y] + x0).update(from: wires + result * strip, count: n)
            x0 += n
          }
        }
      }
    }
  }
}

extension Image {
  /// The image with each channel of each pixel replaced by the median of the (2·radius + 1)²
  /// square around it, edges extended (radius clamped into 0 … 100, 1 by default; 0 returns the
  /// image unchanged). See Median.swift.
  public func median(radius: Int = 1) -> Image {
    var parameters = MedianOperation.Parameters()
    parameters.radius = radius
    return parameters.radius == 0 ? self : applying(MedianOperation(parameters))
  }
}
