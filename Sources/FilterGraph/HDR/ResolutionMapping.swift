// ResolutionMapping.swift — how the geometry operations repeat themselves on the same picture at
// another resolution (`ResolutionMappable`), which is how a gain map follows its base. With
// r = other size / input size per axis:
//
// - `scale` to W×H becomes `scale` to round(W·r)×round(H·r) (at least 1; r the ratio of the
//   resolutions as the source has it, turned with the picture, not of the sizes here), resampling the other
//   image's stored values (not linear light: a map sample is a log-encoded gain, not a colour);
// - `crop` of the rectangle R becomes `crop` of R·r where R·r's edges land on whole pixels, and
//   otherwise R·r resampled (bilinear, as `affine` resamples: q = s·(p − R·r's origin), s = the
//   output's round(size·r) over R·r's size), so the map shows exactly the base's window and is
//   not off by up to a pixel of its own;
// - `orient` (EXIF orientation, 90° turns, flips) is applied unchanged;
// - `extend` by margins m becomes `extend` by round(m·r) in the same mode (copy and mirror move
//   the other image's own pixels; a colour border becomes `fill`);
// - `pad` to a canvas C becomes `pad` to round(C·r) with the same gravity, the canvas `fill`.
// - `affine` (and `rotate` by any angle) with the forward map q = M·p + t (translation and size as
//   the base's input resolves them) becomes q′ = O·M·S⁻¹·p′ + O·t, S = diag(rx, ry), to an output of
//   round(size·r) pixels and O = diag(that / size): the map's output covers the base's exactly, as
//   readers stretch it (coordinates are continuous, Affine.swift); the uncovered corners are `fill`. The map's values
//   are resampled as the operation resamples colours (through the sRGB curve, in linear light),
//   which differs from interpolating the stored values only across sharp edges of the map.
// - `flatten` onto a colour becomes a flatten onto `fill` on the map's stored values (what was
//   transparent is SDR content; GainMapOverlay.swift says why stored values);
// - `median` radius ρ becomes `median` with round(ρ·r̄) (r̄ = (rx + ry)/2) on the stored values;
//   `blur` σ and `boxblur` radius ρ become the same filter with σ·r̄, round(ρ·r̄) in their own
//   working space, which mixes light (`mixesLight`): the map is made again from it applied to both
//   renditions (GainMapRerendering.swift); a held step (a large blur's reduced steps) stays held;
// - `convolve` with a weighted mean (every value ≥ 0, offset 0, scale their sum: a blur of any shape)
//   becomes the kernel binned to the other resolution: base tap i covers [i − c − ½, i − c + ½]·r
//   of the other image's pixels, and gives each tap j of the new kernel (centred, as few as cover
//   the old one's reach) its value times the fraction of that interval within [j − ½, j + ½], per
//   axis; its sum, and so its scale, is kept. At r = 1 that is the kernel itself; a 3×3 at r = ¼
//   falls within one pixel (no change). Other kernels are not repeated (the map ends: Convolve.swift's
//   presets and negative values make a new picture, GainMapPolicy.swift);
// - `roundcorners` with radius ρ becomes `roundcorners` with ρ·(rx + ry)/2 (the corners are
//   quarter circles on both; a map of another aspect ratio is off by the difference);
// - `shadow` becomes `extend` by its canvas margin m (⌈3σ⌉ + max(|dx|, |dy|)) × r, in `fill`: the
//   shadow is SDR content; under the image, the map is where the base is opaque, and transparent
//   (so `fill` once flattened) where the base was, as the shadow shows through there;
// Margins and placements land on whole pixels of the other image: where m·r (or a centred
// placement) is not whole, the other image is off by up to half of its pixel.
import Foundation
import PixelBufferModule

extension ScaleOperation: ResolutionMappable {
  public func mapped(from inputSize: Size, to otherSize: Size, fill: Color) -> (any ImageOperation)? {
    mapped(from: inputSize, to: otherSize, ratio: ResolutionRatio.of(otherSize, inputSize), fill: fill)
  }

  public func mapped(from inputSize: Size, to otherSize: Size, ratio: (Double, Double), fill: Color) -> (any ImageOperation)? {
    let (rx, ry) = ratio
    let target = Size(
      width: max(1, Int((Double(targetSize.width) * rx).rounded())), height: max(1, Int((Double(targetSize.height) * ry).rounded())))
    return ScaleOperation(targetSize: target, kernel: kernel, linearLight: false, allowsShrinkOnLoad: allowsShrinkOnLoad)
  }
}

extension CropOperation: ResolutionMappable {
  public func mapped(from inputSize: Size, to otherSize: Size, fill: Color) -> (any ImageOperation)? {
    repeated(from: inputSize, to: otherSize, fill: fill)
  }

  /// This crop repeated on an input of `otherSize`: a crop of R·r where its edges land on whole
  /// pixels there, else R·r resampled (bilinear) to round(size·r) pixels.
  func repeated(from inputSize: Size, to otherSize: Size, fill: Color) -> any ImageOperation {
    let (rx, ry) = ResolutionRatio.of(otherSize, inputSize)
    let r = clippedRegion(in: inputSize)
    let x0 = Double(r.x) * rx, y0 = Double(r.y) * ry, x1 = Double(r.maxX) * rx, y1 = Double(r.maxY) * ry
    let out = Size(width: max(1, Int((x1 - x0).rounded())), height: max(1, Int((y1 - y0).rounded())))
    if [x0, y0, x1, y1].allSatisfy({ abs($0 - $0.rounded()) < 1e-9 }) {
      return CropOperation(region: Rect(origin: Point(x: Int(x0.rounded()), y: Int(y0.rounded())), size: out))
    }
    let sx = Double(out.width) / (x1 - x0), sy = Double(out.height) / (y1 - y0)
    return AffineOperation(
      matrix: AffineMatrix(a: sx, b: 0, c: 0, d: sy, tx: -sx * x0, ty: -sy * y0), outputSize: out, kernel: .linear, background: fill)
  }
}

extension OrientOperation: ResolutionMappable {
  public func mapped(from inputSize: Size, to otherSize: Size, fill: Color) -> (any ImageOperation)? { self }
}

extension ExtendOperation: ResolutionMappable {
  public func mapped(from inputSize: Size, to otherSize: Size, fill: Color) -> (any ImageOperation)? {
    let (rx, ry) = ResolutionRatio.of(otherSize, inputSize)
    func scaled(_ m: Int, _ r: Double) -> Int { Int((Double(m) * r).rounded()) }
    var mapped = parameters
    (mapped.top, mapped.bottom) = (scaled(parameters.top, ry), scaled(parameters.bottom, ry))
    (mapped.left, mapped.right) = (scaled(parameters.left, rx), scaled(parameters.right, rx))
    mapped.color = fill  // read by mode=color only
    return ExtendOperation(mapped)
  }
}

extension PadOperation: ResolutionMappable {
  public func mapped(from inputSize: Size, to otherSize: Size, fill: Color) -> (any ImageOperation)? {
    let (rx, ry) = ResolutionRatio.of(otherSize, inputSize)
    let c = canvasSize(for: inputSize)
    let canvas = Size(width: max(1, Int((Double(c.width) * rx).rounded())), height: max(1, Int((Double(c.height) * ry).rounded())))
    var mapped = parameters
    (mapped.size, mapped.square, mapped.color) = (canvas, false, fill)
    return PadOperation(mapped)
  }
}

extension AffineOperation: ResolutionMappable {
  public func mapped(from inputSize: Size, to otherSize: Size, fill: Color) -> (any ImageOperation)? {
    let (rx, ry) = ResolutionRatio.of(otherSize, inputSize)
    let (m, size) = placement(for: inputSize)
    let out = Size(width: max(1, Int((Double(size.width) * rx).rounded())), height: max(1, Int((Double(size.height) * ry).rounded())))
    let ox = Double(out.width) / Double(size.width), oy = Double(out.height) / Double(size.height)
    let scaled = AffineMatrix(a: m.a * ox / rx, b: m.b * ox / ry, c: m.c * oy / rx, d: m.d * oy / ry, tx: m.tx * ox, ty: m.ty * oy)
    return AffineOperation(matrix: scaled, outputSize: out, kernel: parameters.kernel, background: fill)
  }
}

extension RoundCornersOperation: ResolutionMappable {
  public func mapped(from inputSize: Size, to otherSize: Size, fill: Color) -> (any ImageOperation)? {
    let (rx, ry) = ResolutionRatio.of(otherSize, inputSize)
    var mapped = parameters
    mapped.radius = parameters.radius * (rx + ry) / 2
    return RoundCornersOperation(mapped)
  }
}

extension FlattenOperation: ResolutionMappable {
  public func mapped(from inputSize: Size, to otherSize: Size, fill: Color) -> (any ImageOperation)? {
    StoredValuesFlattenOperation(fill: fill)
  }
}

extension GaussianBlurOperation: ResolutionMappable {
  /// σ × the mean ratio, in this blur's own space.
  public func mapped(from inputSize: Size, to otherSize: Size, fill: Color) -> (any ImageOperation)? {
    var mapped = parameters
    mapped.sigma = parameters.sigma * ResolutionRatio.mean(otherSize, inputSize)
    return GaussianBlurOperation(mapped)
  }

  public var mixesLight: Bool { true }
}

extension BoxBlurOperation: ResolutionMappable {
  /// The radius × the mean ratio, rounded, in this blur's own space.
  public func mapped(from inputSize: Size, to otherSize: Size, fill: Color) -> (any ImageOperation)? {
    var mapped = parameters
    mapped.radius = Int((Double(parameters.radius) * ResolutionRatio.mean(otherSize, inputSize)).rounded())
    return BoxBlurOperation(mapped)
  }

  public var mixesLight: Bool { true }
}

extension MedianOperation: ResolutionMappable {
  public func mapped(from inputSize: Size, to otherSize: Size, fill: Color) -> (any ImageOperation)? {
    var mapped = parameters
    mapped.radius = Int((Double(parameters.radius) * ResolutionRatio.mean(otherSize, inputSize)).rounded())
    return MedianOperation(mapped)
  }
}

extension HeldInputOperation: ResolutionMappable {
  /// The held operation repeated, still held (a large blur's reduced steps); nil when it cannot be.
  func mapped(from inputSize: Size, to otherSize: Size, fill: Color) -> (any ImageOperation)? {
    mapped(from: inputSize, to: otherSize, ratio: ResolutionRatio.of(otherSize, inputSize), fill: fill)
  }

  func mapped(from inputSize: Size, to otherSize: Size, ratio: (Double, Double), fill: Color) -> (any ImageOperation)? {
    guard let inner = operation as? any ResolutionMappable,
      let mapped = inner.mapped(from: inputSize, to: otherSize, ratio: ratio, fill: fill)
    else { return nil }
    return HeldInputOperation(operation: mapped)
  }

  /// As the held operation.
  var mixesLight: Bool { (operation as? any ResolutionMappable)?.mixesLight ?? false }
}

extension ConvolveOperation: ResolutionMappable {
  /// A weighted mean: every value ≥ 0, no offset, the scale their sum (not the `edges` preset).
  public var repeatsAtOtherResolutions: Bool {
    let sum = kernel.values.reduce(0, +)
    return !gradientMagnitude && kernel.offset == 0 && kernel.values.allSatisfy { $0 >= 0 } && sum > 0
      && abs(kernel.scale - sum) <= 1e-9 * sum
  }

  /// A weighted mean mixes light (a kernel with negative values is carried: GainMapPolicy.swift).
  public var mixesLight: Bool { repeatsAtOtherResolutions }

  /// The kernel binned to `otherSize`'s resolution, or nil for a kernel that is no weighted mean.
  public func mapped(from inputSize: Size, to otherSize: Size, fill: Color) -> (any ImageOperation)? {
    repeatsAtOtherResolutions ? binned(from: inputSize, to: otherSize) : nil
  }

  /// The kernel binned to `otherSize`'s resolution (each tap spread over the bins its width
  /// covers there), with its scale and offset; nil when it would be too large.
  func binned(from inputSize: Size, to otherSize: Size) -> ConvolveOperation? {
    let (rx, ry) = ResolutionRatio.of(otherSize, inputSize)
    let m = kernel.size.width, n = kernel.size.height
    let columns = Self.bins(taps: m, ratio: rx), rows = Self.bins(taps: n, ratio: ry)
    guard columns.size <= ConvolutionKernel.maximumSide, rows.size <= ConvolutionKernel.maximumSide else { return nil }
    var values = [Double](repeating: 0, count: columns.size * rows.size)
    for j in 0..<n {
      for i in 0..<m {
        let k = kernel.values[j * m + i]
        for (row, fy) in rows.fractions[j] {
          for (column, fx) in columns.fractions[i] { values[row * columns.size + column] += k * fx * fy }
        }
      }
    }
    guard let binned = try? ConvolutionKernel(size: Size(width: columns.size, height: rows.size), values: values, scale: kernel.scale, offset: kernel.offset)
    else { return nil }
    return ConvolveOperation(kernel: binned, method: method)
  }

  /// For `taps` taps centred on 0 at a resolution `ratio` times this one's: the binned kernel's
  /// side, and for each tap the (bin, fraction of the tap's width) it falls in.
  static func bins(taps: Int, ratio: Double) -> (size: Int, fractions: [[(Int, Double)]]) {
    let centre = taps / 2
    let reach = max(0, Int(((Double(centre) + 0.5) * ratio - 0.5 - 1e-9).rounded(.up)))
    let fractions = (0..<taps).map { i -> [(Int, Double)] in
      let low = (Double(i - centre) - 0.5) * ratio, high = low + ratio
      return (-reach...reach).compactMap { j in
        let overlap = min(high, Double(j) + 0.5) - max(low, Double(j) - 0.5)
        return overlap > 0 ? (j + reach, overlap / ratio) : nil
      }
    }
    return (2 * reach + 1, fractions)
  }
}

extension ShadowOperation: ResolutionMappable {
  /// The canvas's margin × r on every side, `fill` there: the shadow is SDR content. Where the image
  /// was transparent the map is too (it follows the base's transparency), and is flattened onto
  /// `fill` with the rest of its transparency.
  func mapped(from inputSize: Size, to otherSize: Size, fill: Color) -> (any ImageOperation)? {
    let (rx, ry) = ResolutionRatio.of(otherSize, inputSize)
    var p = ExtendOperation.Parameters()
    (p.left, p.right) = (Int((Double(margin) * rx).rounded()), Int((Double(margin) * rx).rounded()))
    (p.top, p.bottom) = (Int((Double(margin) * ry).rounded()), Int((Double(margin) * ry).rounded()))
    p.color = fill
    return ExtendOperation(p)
  }
}

/// The per-axis ratio of two sizes.
enum ResolutionRatio {
  static func of(_ other: Size, _ input: Size) -> (Double, Double) {
    (Double(other.width) / Double(max(input.width, 1)), Double(other.height) / Double(max(input.height, 1)))
  }

  /// The mean of the two axes' ratios (for a radius).
  static func mean(_ other: Size, _ input: Size) -> Double {
    let (rx, ry) = of(other, input)
    return (rx + ry) / 2
  }
}
