// SeparableFilter.swift — the two tile engines blur, box blur and sharpen run on.
//
// Both compute `output.rect` from one input tile that covers the output widened by the filter's
// reach on every side and clipped to the image (`inputRegion(for:reach:extent:)`). Coordinates
// outside that tile are clamped to its edges, which is the renderer's edge extension: the tile
// only stops short of the widened region where the image itself ends. Rows are filtered first
// (over every input row the vertical pass needs, into a scratch buffer of output width), then
// columns, one output row (or strip) at a time so the inner loops run along whole rows. Each
// engine's row and column passes are also functions of their own, which a blur of large reach
// runs as two nodes (RowPass.swift, HeldColumnPass.swift) with the same floats.
//
// Determinism: every output pixel is computed by the same sequence of floating-point operations
// wherever the tile it falls in starts, so a tile-parallel render equals a one-tile render bit
// for bit.
//  * `convolve` evaluates c₀·x₀ + Σᵢ cᵢ·(x₋ᵢ + x₊ᵢ) in a fixed order for every pixel.
//  * `boxCascade` keeps running window sums, whose value would normally depend on where the run
//    started. Here the values summed are first rounded to multiples of 2⁻³⁶ in Double, so every
//    partial sum below 2¹⁷ in magnitude is exact: the running sum equals the window's exact sum
//    whatever the starting point. (Values in the working range 0…1 stay far inside that bound
//    for windows up to 2¹⁷ pixels; the rounding changes a value by at most 1.5 × 10⁻¹¹.)

import PixelBufferModule

/// One box of an extended-box cascade: weight 1 on offsets −radius … radius and `alpha` on
/// ±(radius + 1), divided by their total 2·radius + 1 + 2·alpha.
struct ExtendedBox: Hashable, Sendable {
  /// The radius of the unit-weight part.
  var radius: Int
  /// The weight of the two end taps, 0 ≤ alpha < 1 (0 for a plain box).
  var alpha: Double

  /// How far the box reads on each side.
  var reach: Int { alpha > 0 ? radius + 1 : radius }
  /// 1 / (sum of weights).
  var norm: Double { 1 / (Double(2 * radius + 1) + 2 * alpha) }
  /// The variance of the box's weights.
  var variance: Double {
    let r = Double(radius)
    return (r * (r + 1) * (2 * r + 1) / 3 + 2 * alpha * (r + 1) * (r + 1)) * norm
  }
}

/// What a filter's taps weigh and add: a pixel or one channel.
@usableFromInline protocol FilterTapValue {
  /// The sum of two values.
  static func + (a: Self, b: Self) -> Self
  /// The value times a tap's weight.
  func weighted(_ weight: Float) -> Self
}

extension Float: FilterTapValue {
  @usableFromInline @inline(__always) func weighted(_ weight: Float) -> Float { weight * self }
}

extension SIMD4<Float>: FilterTapValue {
  @usableFromInline @inline(__always) func weighted(_ weight: Float) -> SIMD4<Float> { weight * self }
}

/// Separable filtering of one tile; see the file comment.
enum SeparableFilter {
  /// Adding and subtracting this rounds a Double of magnitude below 2¹⁵ to a multiple of 2⁻³⁶.
  static let quantiser: Double = 98304  // 1.5 · 2¹⁶

  /// The input region for `output` of a filter reading `reach` pixels on every side: the widened
  /// rectangle clipped to the input's `extent`.
  static func inputRegion(for output: Rect, reach: Int, extent: Rect) -> Rect {
    let wide = Rect(x: output.x - reach, y: output.y - reach, width: output.width + 2 * reach, height: output.height + 2 * reach)
    let clipped = wide.intersection(extent)
    return clipped.isEmpty ? output : clipped
  }

  // MARK: Exact symmetric convolution

  /// Convolves rows, then columns, with the symmetric kernel `weights` (`[0]` the centre,
  /// `[i]` the weight at ±i).
  static func convolve(_ input: Tile, into output: inout Tile, weights: [Float]) throws(PixelAllocationError) {
    let r = weights.count - 1
    let o = output.rect, src = input.rect
    let w = o.width
    guard w > 0, o.height > 0, !src.isEmpty else { return }
    let rowLo = max(src.y, o.y - r), rowHi = min(src.maxY, o.maxY + r)
    let (midStorage, mid) = try TileMemoryPool.scratch(SIMD4<Float>.self, count: (rowHi - rowLo) * w)
    defer { withExtendedLifetime(midStorage) {} }
    weights.withUnsafeBufferPointer { k in
      // Rows: every input row the columns will read, at output width.
      convolveRows(input, columns: o.x..<o.maxX, rows: rowLo..<rowHi, weights: k) { mid + ($0 - rowLo) * w }
      output.withMutablePixels { dst in
        convolveColumns(rows: o.y..<o.maxY, count: w, weights: k, into: { dst[row: $0 - o.y] }) { y in
          UnsafePointer(mid + (min(max(y, src.y), src.maxY - 1) - rowLo) * w)
        }
      }
    }
  }

  /// `convolve`'s row pass: for each row y of `rows` (absolute, inside `input`), the `columns`
  /// of Σᵢ kᵢ·(in(x − i, y) + in(x + i, y)) into `dst(y)`; columns beyond the input tile repeat
  /// its edge pixels.
  static func convolveRows(
    _ input: Tile, columns: Range<Int>, rows: Range<Int>, weights k: UnsafeBufferPointer<Float>,
    into dst: (Int) -> UnsafeMutablePointer<SIMD4<Float>>
  ) {
    let r = k.count - 1, src = input.rect, w = columns.count, x0 = columns.lowerBound
    let padLength = w + 2 * r
    let pad = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: padLength)
    defer { pad.deallocate() }
    let coversRow = src.x <= x0 - r && src.maxX >= columns.upperBound + r
    input.withPixels { pixels in
      for y in rows {
        let row = pixels[row: y - src.y]
        let line: UnsafePointer<SIMD4<Float>>  // line[t] is the pixel at x = x0 − r + t
        if coversRow {
          line = row + (x0 - r - src.x)
        } else {
          for t in 0..<padLength {
            pad[t] = row[min(max(x0 - r + t, src.x), src.maxX - 1) - src.x]
          }
          line = UnsafePointer(pad)
        }
        let centre = line + r
        symmetricTaps(into: dst(y), count: w, weights: k) { i in (centre - i, centre + i) }
      }
    }
  }

  /// `convolve`'s column pass: for each output row y of `rows`, `count` pixels of
  /// Σᵢ kᵢ·(row(y − i) + row(y + i)) into `dst(y)`, the weighted sum of whole rows; `row(y)` is
  /// the first pixel of the row pass's row y, y clamped to the rows there are.
  @inline(__always)
  static func convolveColumns(
    rows: Range<Int>, count: Int, weights k: UnsafeBufferPointer<Float>, into dst: (Int) -> UnsafeMutablePointer<SIMD4<Float>>,
    row: (Int) -> UnsafePointer<SIMD4<Float>>
  ) {
    for y in rows {
      symmetricTaps(into: dst(y), count: count, weights: k) { i in (row(y - i), row(y + i)) }
    }
  }

  /// `d[x] = k₀·c[x] + Σᵢ kᵢ·(aᵢ[x] + bᵢ[x])`, summed in order of increasing i, where
  /// `(aᵢ, bᵢ) = pair(i)` and `c = pair(0).0`. Taps are applied two at a time (same order). On
  /// pixels (`SIMD4<Float>`) or on one channel (`Float`: the shadow's alpha).
  @inline(__always)
  static func symmetricTaps<Value: FilterTapValue>(
    into d: UnsafeMutablePointer<Value>, count: Int, weights k: UnsafeBufferPointer<Float>,
    pair: (Int) -> (UnsafePointer<Value>, UnsafePointer<Value>)
  ) {
    let c = pair(0).0
    let k0 = k[0]
    var i = 1
    if k.count > 1 {
      let (a, b) = pair(1)
      let k1 = k[1]
      for x in 0..<count { d[x] = c[x].weighted(k0) + (a[x] + b[x]).weighted(k1) }
      i = 2
    } else {
      for x in 0..<count { d[x] = c[x].weighted(k0) }
    }
    while i + 1 < k.count {
      let (a1, b1) = pair(i), (a2, b2) = pair(i + 1)
      let ki = k[i], kj = k[i + 1]
      for x in 0..<count { d[x] = (d[x] + (a1[x] + b1[x]).weighted(ki)) + (a2[x] + b2[x]).weighted(kj) }
      i += 2
    }
    if i < k.count {
      let (a, b) = pair(i)
      let ki = k[i]
      for x in 0..<count { d[x] = d[x] + (a[x] + b[x]).weighted(ki) }
    }
  }

  // MARK: Box cascade

  /// Applies `boxes` in turn along rows, then along columns (each pass of each direction
  /// reading the previous pass's result).
  static func boxCascade(_ input: Tile, into output: inout Tile, boxes: [ExtendedBox]) throws(PixelAllocationError) {
    let reach = boxes.reduce(0) { $0 + $1.reach }
    let o = output.rect, src = input.rect
    let w = o.width
    guard w > 0, o.height > 0, !src.isEmpty else { return }
    let rowLo = max(src.y, o.y - reach), rowHi = min(src.maxY, o.maxY + reach)
    let (midStorage, mid) = try TileMemoryPool.scratch(SIMD4<Float>.self, count: (rowHi - rowLo) * w)
    defer { withExtendedLifetime(midStorage) {} }
    let buffers = try CascadeBuffers(length: max(w, o.height) + 2 * reach, lanes: columnStrip)
    boxRows(input, columns: o.x..<o.maxX, rows: rowLo..<rowHi, boxes: boxes, buffers: buffers) { mid + ($0 - rowLo) * w }
    output.withMutablePixels { dst in
      boxColumns(rows: o.y..<o.maxY, count: w, boxes: boxes, buffers: buffers, into: { dst[row: $0 - o.y] }) { y in
        UnsafePointer(mid + (min(max(y, src.y), src.maxY - 1) - rowLo) * w)
      }
    }
  }

  /// The pixels per strip of `boxColumns`.
  static let columnStrip = 64

  /// The two buffers a cascade runs in (`runCascade`'s `a` and `b`), from the tile pool, whose
  /// refusal throws: room for a cascade over `length` elements of `lanes` pixels.
  struct CascadeBuffers {
    let a: UnsafeMutablePointer<SIMD4<Double>>
    let b: UnsafeMutablePointer<SIMD4<Double>>
    /// Owns `a` and `b`.
    private let storage: (PixelStorage, PixelStorage)

    init(length: Int, lanes: Int) throws(PixelAllocationError) {
      let (aStorage, a) = try TileMemoryPool.scratch(SIMD4<Double>.self, count: length * lanes)
      let (bStorage, b) = try TileMemoryPool.scratch(SIMD4<Double>.self, count: length * lanes)
      (self.a, self.b, storage) = (a, b, (aStorage, bStorage))
    }
  }

  /// `boxCascade`'s row pass: for each row y of `rows` (absolute, inside `input`), the `columns`
  /// of the cascade along the row into `dst(y)`; columns beyond the input tile repeat its edge
  /// pixels. `buffers` holds `columns.count + 2·reach` pixels.
  static func boxRows(
    _ input: Tile, columns: Range<Int>, rows: Range<Int>, boxes: [ExtendedBox], buffers: CascadeBuffers,
    into dst: (Int) -> UnsafeMutablePointer<SIMD4<Float>>
  ) {
    let reach = boxes.reduce(0) { $0 + $1.reach }
    let src = input.rect, w = columns.count, length = w + 2 * reach
    let sums = UnsafeMutablePointer<SIMD4<Double>>.allocate(capacity: 1)
    defer { sums.deallocate() }
    let q = quantiser, bufA = buffers.a
    input.withPixels { pixels in
      for y in rows {
        let row = pixels[row: y - src.y]
        for t in 0..<length {
          let v = row[min(max(columns.lowerBound - reach + t, src.x), src.maxX - 1) - src.x]
          bufA[t] = (widen(v) + q) - q
        }
        let result = runCascade(boxes, length: length, lanes: 1, a: bufA, b: buffers.b, sums: sums)
        let m = dst(y)
        for x in 0..<w { m[x] = narrow(result[x]) }
      }
    }
  }

  /// `boxCascade`'s column pass: for each output row y of `rows`, `count` pixels of the cascade
  /// down the columns into `dst(y)`; `row(y)` is the first pixel of the row pass's row y, y
  /// clamped to the rows there are. Columns go in strips of `columnStrip` pixels laid out row by
  /// row; `buffers` holds `rows.count + 2·reach` elements of `columnStrip` pixels.
  static func boxColumns(
    rows: Range<Int>, count w: Int, boxes: [ExtendedBox], buffers: CascadeBuffers,
    into dst: (Int) -> UnsafeMutablePointer<SIMD4<Float>>, row: (Int) -> UnsafePointer<SIMD4<Float>>
  ) {
    let reach = boxes.reduce(0) { $0 + $1.reach }
    let h = rows.count, length = h + 2 * reach
    let sums = UnsafeMutablePointer<SIMD4<Double>>.allocate(capacity: columnStrip)
    defer { sums.deallocate() }
    let q = quantiser, bufA = buffers.a
    var x0 = 0
    while x0 < w {
      let lanes = min(columnStrip, w - x0)
      for t in 0..<length {
        let m = row(rows.lowerBound - reach + t) + x0
        let b = bufA + t * lanes
        for l in 0..<lanes { b[l] = (widen(m[l]) + q) - q }
      }
      let result = runCascade(boxes, length: length, lanes: lanes, a: bufA, b: buffers.b, sums: sums)
      for y in 0..<h {
        let d = dst(rows.lowerBound + y) + x0, s = result + y * lanes
        for l in 0..<lanes { d[l] = narrow(s[l]) }
      }
      x0 += lanes
    }
  }

  /// Runs the boxes over `length` elements of `lanes` pixels in `a` (using `b` as the other
  /// buffer); returns the buffer holding the `length − 2·Σreach` results.
  @inline(__always)
  private static func runCascade(
    _ boxes: [ExtendedBox], length: Int, lanes: Int, a: UnsafeMutablePointer<SIMD4<Double>>,
    b: UnsafeMutablePointer<SIMD4<Double>>, sums: UnsafeMutablePointer<SIMD4<Double>>
  ) -> UnsafeMutablePointer<SIMD4<Double>> {
    var from = a, to = b, n = length
    for (index, box) in boxes.enumerated() {
      n -= 2 * box.reach
      if lanes == 1 {
        linePass(from, to, count: n, box: box, quantise: index < boxes.count - 1)
      } else {
        boxPass(from, to, count: n, lanes: lanes, box: box, sums: sums, quantise: index < boxes.count - 1)
      }
      swap(&from, &to)
    }
    return from
  }

  /// One box along a line of elements of `lanes` pixels: element i of `dst` (0 ≤ i < count) is
  /// the box centred on element i + reach of `src`, optionally rounded to a multiple of 2⁻³⁶.
  @inline(__always)
  private static func boxPass(
    _ src: UnsafePointer<SIMD4<Double>>, _ dst: UnsafeMutablePointer<SIMD4<Double>>, count: Int,
    lanes: Int, box: ExtendedBox, sums: UnsafeMutablePointer<SIMD4<Double>>, quantise: Bool
  ) {
    let r = box.radius, e = box.reach
    let norm = SIMD4<Double>(repeating: box.norm), alpha = box.alpha
    let q = SIMD4<Double>(repeating: quantiser)
    for l in 0..<lanes {
      var s = SIMD4<Double>()
      for j in (e - r)...(e + r) { s += src[j * lanes + l] }
      sums[l] = s
    }
    for i in 0..<count {
      if i > 0 {
        let add = src + (i + e + r) * lanes, sub = src + (i + e - r - 1) * lanes
        for l in 0..<lanes { sums[l] += add[l] - sub[l] }
      }
      let out = dst + i * lanes
      if alpha > 0 {
        // e = r + 1: the end taps are elements i and i + 2r + 2.
        let lo = src + i * lanes, hi = src + (i + 2 * r + 2) * lanes
        for l in 0..<lanes { out[l] = (sums[l] + alpha * (lo[l] + hi[l])) * norm }
      } else {
        for l in 0..<lanes { out[l] = sums[l] * norm }
      }
      if quantise {
        for l in 0..<lanes { out[l] = (out[l] + q) - q }
      }
    }
  }

  /// `boxPass` for one pixel per element, the running sum kept in a register. Same operations
  /// per output, in the same order.
  private static func linePass(
    _ src: UnsafePointer<SIMD4<Double>>, _ dst: UnsafeMutablePointer<SIMD4<Double>>, count: Int,
    box: ExtendedBox, quantise: Bool
  ) {
    let r = box.radius, e = box.reach
    let norm = SIMD4<Double>(repeating: box.norm), alpha = box.alpha
    let q = SIMD4<Double>(repeating: quantiser)
    var s = SIMD4<Double>()
    for j in (e - r)...(e + r) { s += src[j] }
    if alpha > 0 {
      // e = r + 1: the end taps are elements i and i + 2r + 2.
      var out = (s + alpha * (src[0] + src[2 * r + 2])) * norm
      dst[0] = quantise ? (out + q) - q : out
      for i in 1..<max(count, 1) {
        s += src[i + 2 * r + 1] - src[i]
        out = (s + alpha * (src[i] + src[i + 2 * r + 2])) * norm
        dst[i] = quantise ? (out + q) - q : out
      }
    } else {
      var out = s * norm
      dst[0] = quantise ? (out + q) - q : out
      for i in 1..<max(count, 1) {
        s += src[i + e + r] - src[i + e - r - 1]
        out = s * norm
        dst[i] = quantise ? (out + q) - q : out
      }
    }
  }

  @inline(__always)
  static func widen(_ v: SIMD4<Float>) -> SIMD4<Double> {
    SIMD4(Double(v.x), Double(v.y), Double(v.z), Double(v.w))
  }

  @inline(__always)
  static func narrow(_ v: SIMD4<Double>) -> SIMD4<Float> {
    SIMD4(Float(v.x), Float(v.y), Float(v.z), Float(v.w))
  }
}
