// Scale.swift — resize to a target size with an interpolation kernel (antialiased downscaling).
//
// Definition. Let the input be inW × inH and the target outW × outH, with ratios
// rx = inW / outW and ry = inH / outH. The ratio is taken from the input the operation receives
// when it runs, not when it was built: the optimizer may feed it a JPEG decoded at 1/2, 1/4 or
// 1/8 size, and the output geometry stays the same (a decode at 1/d whose side d does not divide
// ends in a partial pixel: there r = side / (d·out) of the full side, so positions map as on the
// full image, `reducedInput`). Each axis is resampled separately: the vertical pass first, then
// the horizontal, except when the vertical axis enlarges and the horizontal axis shrinks, where
// the horizontal pass runs first (it computes the shrunk rows, not the enlarged full-width ones;
// the passes commute up to float rounding: Scale+PassOrder.swift). Along the x axis, with r = rx:
//
//   output pixel x (centre x + ½) maps to the input position  u = (x + ½)·r − ½,
//   s = max(r, 1)                                    (the kernel is stretched when downscaling,
//                                                     so it averages — antialiasing — and is
//                                                     left as is when upscaling),
//   out(x) = Σᵢ k((i − u)/s)·in(i) / Σᵢ k((i − u)/s)   over input pixels i with |i − u| < support·s,
//
// where k is the kernel (ResampleKernel.swift). Two kernels are special:
//   • nearest copies exactly one pixel, i = ⌊(x + ½)·r⌋ (no arithmetic on the value);
//   • box is an exact area average: input pixel i, covering [i, i + 1), weighs its overlap with
//     the output pixel's footprint [x·r, (x + 1)·r) (for upscaling that is a copy, blended only
//     where a footprint straddles two input pixels).
// An axis whose size does not change is copied unchanged (whatever the kernel).
// Input positions outside the image repeat its edge pixels (the renderer extends edges).
//
// Pixels are resampled premultiplied (so transparent pixels add no colour: no dark fringes around
// cut-outs), in linear light by default (`linear=false` resamples the stored sRGB-encoded values,
// as many tools do). Ringing of the negative-lobed kernels is clipped in alpha (0 ≤ alpha ≤ 1;
// colour 0 where alpha is 0); colours are not clipped, because the working space is extended range
// (a wide-gamut source's colours lie outside 0…1), and the store clips them at the end.

import CKernels
import Foundation
import PixelBufferModule

/// Resamples its input to `targetSize` (see the definition at the top of Scale.swift).
public struct ScaleOperation: ResampleOperation, StoredRowsReader {
  /// The output size.
  public let targetSize: Size
  /// The interpolation kernel.
  public let kernel: ResampleKernel
  /// True to resample in linear light (the default), false for sRGB-encoded values.
  public let linearLight: Bool
  /// False when the optimizer must not decode a JPEG input at reduced size under this scale.
  public let allowsShrinkOnLoad: Bool
  /// Set by `reading(_:reducedBy:)`: the full size and denominator of an input decoded reduced
  /// with a partial last block, whose positions map as on the full image (ratio side / (d·out)).
  public private(set) var reducedInput: (fullSize: Size, denominator: Int)?

  /// The largest side a parameter may ask for; a computed size over it (`factor=`, or an aspect
  /// ratio) is kept as computed and refused when the graph is checked (`GraphLimits`), with its
  /// true size in the message.
  public static let maximumSide = GraphLimits.maxSide

  /// Creates the operation. Each side of `targetSize` is at least 1.
  public init(targetSize: Size, kernel: ResampleKernel = .lanczos3, linearLight: Bool = true, allowsShrinkOnLoad: Bool = true) {
    self.targetSize = Size(width: max(targetSize.width, 1), height: max(targetSize.height, 1))
    self.kernel = kernel
    self.linearLight = linearLight
    self.allowsShrinkOnLoad = allowsShrinkOnLoad
  }

  /// `scale`'s parameters: one of six size modes (`ResampleFilters.scale` takes exactly one), then
  /// options; the operation holds the size they resolve to.
  public struct Parameters: FilterParameters {
    /// A size mode: a factor.
    @OptionalParam("factor", range: 0.0001...100, percent: .fraction, help: "Scale factor (0.5 halves each side); sides round to the nearest pixel.")
    public var factor: Double?
    /// A size mode: a width.
    @OptionalParam(
      "width", pixels: 1...maximumSide,
      help: "Target width in pixels, or N% of the width of the image of= names (the input's own by default); the height keeps the aspect ratio.")
    public var width: Length?
    /// A size mode: a height.
    @OptionalParam(
      "height", pixels: 1...maximumSide,
      help: "Target height in pixels, or N% of the height of the image of= names (the input's own by default); the width keeps the aspect ratio.")
    public var height: Length?
    /// A size mode: a box to fit.
    @OptionalParam("fit", sides: 1...maximumSide, help: "Largest size inside the box that keeps the aspect ratio.")
    public var fit: Size?
    /// A size mode: a box to fill.
    @OptionalParam("fill", sides: 1...maximumSide, help: "Covers the box keeping the aspect ratio, then crops to it (the centre, or where focus= says).")
    public var fill: Size?
    /// A size mode: the exact size.
    @OptionalParam("size", sides: 1...maximumSide, help: "Exact size (may change the aspect ratio).")
    public var size: Size?
    /// False leaves an image the size mode would enlarge at its size.
    @Param("enlarge", help: "false: an image the size would enlarge (on either side) keeps its scale; fill still crops to the box's shape.")
    public var enlarge = true
    /// The window `fill` keeps.
    @OptionalParam(
      "focus",
      help: "With fill: the window kept — centre (default), attention or entropy (as smartcrop), or the one centred on input pixel X,Y (no face: FilterGraph links no face detector).")
    public var focus: FillFocus?
    /// The interpolation kernel.
    @Param("kernel", help: "Interpolation kernel.")
    public var kernel = ResampleKernel.lanczos3
    /// Resample linear light or encoded values.
    @Param("linear", help: "Resample in linear light (false: in sRGB-encoded values).")
    public var linear = true
    /// Allow shrink-on-load.
    @Param("shrink", help: "Allow decoding a JPEG input at 1/2, 1/4 or 1/8 size first (faster).")
    public var shrink = true

    /// The defaults; one size mode must be given.
    public init() {}
  }

  /// The `scale` verb's table: one of the six size modes, then the kernel and options.
  public static let table = OperationDescriptor(
    name: "scale", category: .resample,
    summary: "Resizes by a factor, to a width or height, to fit or fill a box, or to an exact size (give exactly one).",
    parameters: Parameters.table, example: "scale fit=1200x1200 kernel=lanczos3", measuresAgainstReference: true)

  public var descriptor: OperationDescriptor { Self.table }
  /// The resolved target as `size=`, then `kernel`, `linear`, `shrink`.
  public var arguments: Arguments {
    let rows = Parameters()
    return Arguments([
      rows.$size.argument(targetSize), rows.$kernel.argument(kernel), rows.$linear.argument(linearLight),
      rows.$shrink.argument(allowsShrinkOnLoad),
    ])
  }
  public var workingSpace: WorkingSpace? { linearLight ? .linear : .encoded }

  public func reading(_ fullSize: Size, reducedBy denominator: Int) -> any ResampleOperation {
    var copy = self
    copy.reducedInput = (fullSize, denominator)
    return copy
  }

  /// An axis's ratio as (input, output) lengths: (side, out) of the input as received, or
  /// (full side, d·out) for an input `reducedInput` describes (tap positions stay in the
  /// received input's pixels; only the ratio inSize / outSize is used).
  func ratio(_ inSize: Int, _ outSize: Int, full: KeyPath<Size, Int>) -> (inSize: Int, outSize: Int) {
    guard let r = reducedInput, (r.fullSize[keyPath: full] + r.denominator - 1) / r.denominator == inSize else {
      return (inSize, outSize)
    }
    return (r.fullSize[keyPath: full], r.denominator * outSize)
  }

  public func outputInfo(inputs: [ImageInfo]) -> ImageInfo {
    var info = inputs[0]
    info.size = targetSize
    return info
  }

  public func inputRegion(for output: Rect, input index: Int, inputs: [ImageInfo]) -> Rect {
    let inSize = inputs[0].size
    let (xIn, xOut) = ratio(inSize.width, targetSize.width, full: \.width)
    let (yIn, yOut) = ratio(inSize.height, targetSize.height, full: \.height)
    let xs = ResampleAxis.span(of: output.x, output.maxX, inSize: xIn, outSize: xOut, kernel: kernel)
    let ys = ResampleAxis.span(of: output.y, output.maxY, inSize: yIn, outSize: yOut, kernel: kernel)
    return Rect(x: xs.lowerBound, y: ys.lowerBound, width: xs.count, height: ys.count)
  }

  /// The ratios come from the input tile's `imageSize`: the input as it is rendered.
  public func render(into output: inout Tile, inputs: [Tile]) throws {
    let input = inputs[0]
    let (xAxis, yAxis) = axes(for: output.rect, input: input.rect, inputImageSize: input.imageSize)
    if kernel == .nearest {
      Self.pick(input, into: &output, xAxis, yAxis)
      return
    }
    if runsHorizontalPassFirst(inputImageSize: input.imageSize) {
      try renderHorizontalPassFirst(into: &output, input: input, xAxis, yAxis)
      return
    }
    try input.withPixels { src in
      try Self.resample(into: &output, inputWidth: input.rect.width, xAxis, yAxis) { scratch, column in
        yAxis.rows(
          from: src.base.assumingMemoryBound(to: Float.self), rowFloats: src.rowBytes / MemoryLayout<Float>.stride,
          count: 4 * input.rect.width, into: scratch, pixelFloats: column)
      }
    }
  }

  /// The taps of output `rect` over an input region `input` of an image of `inputImageSize`.
  func axes(for rect: Rect, input: Rect, inputImageSize inSize: Size) -> (ResampleAxis, ResampleAxis) {
    let (xIn, xOut) = ratio(inSize.width, targetSize.width, full: \.width)
    let (yIn, yOut) = ratio(inSize.height, targetSize.height, full: \.height)
    let xAxis = ResampleAxis(
      outputs: rect.x..<rect.maxX, inSize: xIn, outSize: xOut, count: targetSize.width, kernel: kernel, origin: input.x)
    let yAxis = ResampleAxis(
      outputs: rect.y..<rect.maxY, inSize: yIn, outSize: yOut, count: targetSize.height, kernel: kernel, origin: input.y)
    return (xAxis, yAxis)
  }

  /// Nearest: each output pixel is a copy of the one input pixel its axes' single taps name.
  static func pick(_ input: Tile, into output: inout Tile, _ xAxis: ResampleAxis, _ yAxis: ResampleAxis) {
    input.withPixels { src in
      output.withMutablePixels { dst in
        xAxis.starts.withUnsafeBufferPointer { xs in
          for y in 0..<dst.height {
            let s = src[row: yAxis.starts[y]], d = dst[row: y]
            for x in 0..<dst.width { d[x] = s[xs[x]] }
          }
        }
      }
    }
  }

  /// Two separable passes, each a weighted sum of contiguous rows (`ResampleAxis.rows`, a C
  /// kernel: one weight per row, contiguous floats): `vertical(scratch, column)` applies the
  /// vertical taps to the input's rows and stores the result transposed (scratch holds each of
  /// the `inW` input columns' `outH` pixels contiguously, `column` floats apart); then the
  /// horizontal taps run over those columns, stored back as rows into the output.
  static func resample(
    into output: inout Tile, inputWidth inW: Int, _ xAxis: ResampleAxis, _ yAxis: ResampleAxis,
    vertical: (UnsafeMutablePointer<Float>, Int) throws -> Void
  ) throws {
    let outH = output.rect.height
    let (scratchStorage, scratch) = try TileMemoryPool.scratch(Float.self, count: 4 * inW * outH)
    defer { withExtendedLifetime(scratchStorage) {} }
    let column = 4 * outH
    try vertical(scratch, column)
    output.withMutablePixels { dst in
      // The scratch columns are the rows of this pass; output x is pixel x of each output row.
      xAxis.rows(
        from: scratch, rowFloats: column, count: column, into: dst.base.assumingMemoryBound(to: Float.self), outputFloats: 4,
        pixelFloats: dst.rowBytes / MemoryLayout<Float>.stride)
    }
    clipAlpha(&output)
  }
}

/// The taps and weights that map a run of output positions on one axis to input positions.
struct ResampleAxis {
  /// For each output, its first tap's index relative to `origin`.
  var starts: [Int]
  /// For each output, how many taps it has (at least 1).
  var counts: [Int]
  /// Row length of `weights`: the largest tap count.
  var stride: Int
  /// `stride` weights per output (the first `counts[i]` used), normalised to sum 1.
  var weights: [Float]

  /// This axis's pass over rows of `count` floats (row r at src + r·rowFloats, r relative to
  /// `origin`): output i's row is the weighted sum of its taps' rows, stored at
  /// dst + i·outputFloats, its pixels `pixelFloats` apart (`fg_resample_rows`). The defaults
  /// store output i transposed, as pixel i of each of the rows `pixelFloats` apart.
  func rows(
    from src: UnsafePointer<Float>, rowFloats: Int, count: Int, into dst: UnsafeMutablePointer<Float>,
    outputFloats: Int = 4, pixelFloats: Int
  ) {
    starts.withUnsafeBufferPointer { starts in
      counts.withUnsafeBufferPointer { counts in
        weights.withUnsafeBufferPointer { weights in
          fg_resample_rows(
            src, rowFloats, count, starts.baseAddress!, counts.baseAddress!, weights.baseAddress!, stride, starts.count,
            dst, outputFloats, pixelFloats)
        }
      }
    }
  }

  /// The weights for `outputs` (absolute output coordinates) on an axis of `inSize` input and
  /// `outSize` output pixels (of which `count`, `outSize` when nil, exist); tap indices are made
  /// relative to `origin`.
  init(outputs: Range<Int>, inSize: Int, outSize: Int, count: Int? = nil, kernel: ResampleKernel, origin: Int) {
    // The whole axis's taps are computed once per (sizes, kernel) and shared by every tile: the
    // per-output weights do not depend on the tile, so slicing them changes no value.
    let full = ResampleAxisCache.axis(inSize: inSize, outSize: outSize, count: count ?? outSize, kernel: kernel)
    let lo = min(max(outputs.lowerBound, 0), full.counts.count), hi = min(max(outputs.upperBound, lo), full.counts.count)
    if lo == outputs.lowerBound && hi == outputs.upperBound {
      self.init(
        stride: full.stride, starts: full.starts[lo..<hi].map { $0 - origin }, counts: Array(full.counts[lo..<hi]),
        weights: Array(full.weights[(lo * full.stride)..<(hi * full.stride)]))
    } else {
      self.init(computing: outputs, inSize: inSize, outSize: outSize, kernel: kernel, origin: origin)
    }
  }

  private init(stride: Int, starts: [Int], counts: [Int], weights: [Float]) {
    (self.stride, self.starts, self.counts, self.weights) = (stride, starts, counts, weights)
  }

  /// The axis computed directly (every output of `outputs`).
  init(computing outputs: Range<Int>, inSize: Int, outSize: Int, kernel: ResampleKernel, origin: Int) {
    var taps: [(start: Int, weights: [Double])] = []
    taps.reserveCapacity(outputs.count)
    for x in outputs { taps.append(Self.taps(for: x, inSize: inSize, outSize: outSize, kernel: kernel)) }
    stride = max(1, taps.map(\.weights.count).max() ?? 1)
    starts = taps.map { $0.start - origin }
    counts = taps.map(\.weights.count)
    weights = [Float](repeating: 0, count: stride * taps.count)
    for (i, t) in taps.enumerated() {
      let sum = t.weights.reduce(0, +)
      for (j, w) in t.weights.enumerated() { weights[i * stride + j] = Float(w / sum) }
    }
  }

  /// The input positions (absolute, possibly beyond the input's edges) outputs `x0 ..< x1` read.
  static func span(of x0: Int, _ x1: Int, inSize: Int, outSize: Int, kernel: ResampleKernel) -> Range<Int> {
    guard x1 > x0 else { return 0..<1 }
    // Tap ranges grow monotonically with x, so the first and last outputs bound the span.
    let first = tapRange(for: x0, inSize: inSize, outSize: outSize, kernel: kernel)
    let last = tapRange(for: x1 - 1, inSize: inSize, outSize: outSize, kernel: kernel)
    return first.lowerBound..<max(last.upperBound, first.lowerBound + 1)
  }

  /// The input positions output `x`'s taps cover, without computing their weights (regions are
  /// asked for far more often than weights).
  static func tapRange(for x: Int, inSize: Int, outSize: Int, kernel: ResampleKernel) -> Range<Int> {
    let m = max(inSize, 1), n = max(outSize, 1)
    if m == n { return x..<(x + 1) }
    switch kernel {
    case .nearest:
      // ⌊(x + ½)·m/n⌋ in integers.
      let i = (2 * x + 1) * m / (2 * n)
      return i..<(i + 1)
    case .box:
      // Footprint [x·m/n, (x+1)·m/n) scaled by n: [x·m, (x+1)·m); pixel i covers [i·n, (i+1)·n).
      return (x * m / n)..<(((x + 1) * m + n - 1) / n)
    default:
      let r = Double(m) / Double(n)
      let s = max(r, 1)
      let u = (Double(x) + 0.5) * r - 0.5
      let radius = kernel.support * s
      let first = Int((u - radius).rounded(.down)) + 1
      return first..<max(Int((u + radius).rounded(.up)), first + 1)
    }
  }

  /// Output `x`'s first input index and its (unnormalised, positive-sum) weights, one per
  /// position of `tapRange`.
  static func taps(for x: Int, inSize: Int, outSize: Int, kernel: ResampleKernel) -> (start: Int, weights: [Double]) {
    let range = tapRange(for: x, inSize: inSize, outSize: outSize, kernel: kernel)
    let m = max(inSize, 1), n = max(outSize, 1)
    if m == n || kernel == .nearest { return (range.lowerBound, [1]) }
    if kernel == .box {
      let lo = x * m, hi = (x + 1) * m
      return (range.lowerBound, range.map { i in Double(min(hi, (i + 1) * n) - max(lo, i * n)) })
    }
    let r = Double(m) / Double(n)
    let s = max(r, 1)
    let u = (Double(x) + 0.5) * r - 0.5
    let w = range.map { i in kernel.weight(at: (Double(i) - u) / s) }
    if w.reduce(0, +) <= 0 {
      // Cannot happen for these kernels (a tap always lies near the centre); be safe anyway.
      return (Int(u.rounded()), [1])
    }
    return (range.lowerBound, w)
  }
}
