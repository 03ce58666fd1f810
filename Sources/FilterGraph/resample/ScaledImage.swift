// ScaledImage.swift — the Swift methods of `scale`: the size each mode computes (Scale.swift
// defines the resampling), whether the image may be enlarged, and where `fill` crops.
//
// Sizes: factor f gives round(W·f) × round(H·f); width w gives w × round(H·w/W) (height likewise);
// fit B gives the largest W·s × H·s inside B (one side equal to B's), fill B the smallest covering
// B, then the B window of it; size gives exactly B. Sides are at least 1; a side over
// `ScaleOperation.maximumSide` is kept as computed (up to 2³¹, past which it is cut) so the graph
// check refuses it with its true size.
//
// `allowsEnlargement: false` (recipe `enlarge=false`, vipsthumbnail's `>`, sharp's
// `withoutEnlargement`): a mode whose size is larger than the image on either side leaves the
// image at its size (fill still crops, to the largest window of its box's shape); the step stays in the
// graph as written (`UnchangedStepOperation`) so `explain` shows it.
//
// `fill`'s window (`FillFocus`): the centre; the window `smartcrop` would choose (attention,
// entropy: SmartCrop.swift); or the window centred as near as it can be on a point X,Y of the
// input, scaled with it (x = clamp(round(X·W'/W) − ⌊w/2⌋, 0, W' − w) for a cover of W' and a box of w).

import PixelBufferModule

extension Image {
  /// The image scaled by `factor` on both axes (each side rounded to the nearest pixel, at
  /// least 1). `factor` is clamped into 0.0001…100 (NaN counts as 1); a side over
  /// `ScaleOperation.maximumSide` makes the render fail (`GraphLimitError`).
  ///
  /// - Parameters:
  ///   - factor: the scale factor (0.5 halves each side).
  ///   - kernel: the interpolation kernel (default Lanczos 3).
  ///   - linearLight: resample in linear light (default) or in sRGB-encoded values.
  ///   - allowsShrinkOnLoad: let the renderer decode a JPEG source at reduced size first.
  ///   - allowsEnlargement: false to leave an image the mode would enlarge at its size (every
  ///     mode takes it; see ScaledImage.swift).
  public func scaled(
    by factor: Double, kernel: ResampleKernel = .lanczos3, linearLight: Bool = true, allowsShrinkOnLoad: Bool = true,
    allowsEnlargement: Bool = true
  ) -> Image {
    let f = factor.isNaN ? 1 : min(max(factor, 0.0001), 100)
    let target = Size(
      width: Self.roundedSide(Double(size.width) * f), height: Self.roundedSide(Double(size.height) * f))
    return resampled(to: target, kernel, linearLight, allowsShrinkOnLoad, allowsEnlargement, as: Self.scaleRows.$factor.argument(f))
  }

  /// The image scaled to `width` (clamped to at least 1), the height keeping the aspect ratio.
  public func scaled(
    toWidth width: Int, kernel: ResampleKernel = .lanczos3, linearLight: Bool = true, allowsShrinkOnLoad: Bool = true,
    allowsEnlargement: Bool = true
  ) -> Image {
    let w = Self.clampedSide(width)
    let target = Size(width: w, height: Self.roundedRatio(size.height, times: w, over: size.width))
    return resampled(to: target, kernel, linearLight, allowsShrinkOnLoad, allowsEnlargement, as: Self.scaleRows.$width.argument(.pixels(w)))
  }

  /// The image scaled to `height` (clamped to at least 1), the width keeping the aspect ratio.
  public func scaled(
    toHeight height: Int, kernel: ResampleKernel = .lanczos3, linearLight: Bool = true, allowsShrinkOnLoad: Bool = true,
    allowsEnlargement: Bool = true
  ) -> Image {
    let h = Self.clampedSide(height)
    let target = Size(width: Self.roundedRatio(size.width, times: h, over: size.height), height: h)
    return resampled(to: target, kernel, linearLight, allowsShrinkOnLoad, allowsEnlargement, as: Self.scaleRows.$height.argument(.pixels(h)))
  }

  /// The image scaled to `width`: pixels, or a percentage of `reference`'s width (a watermark
  /// 15 % as wide as the photo it marks: `logo.scaled(toWidth: .percent(15), of: photo)`).
  public func scaled(
    toWidth width: Length, of reference: Image, kernel: ResampleKernel = .lanczos3, linearLight: Bool = true,
    allowsShrinkOnLoad: Bool = true, allowsEnlargement: Bool = true
  ) -> Image {
    scaled(
      toWidth: width.pixels(of: reference.size.width), kernel: kernel, linearLight: linearLight,
      allowsShrinkOnLoad: allowsShrinkOnLoad, allowsEnlargement: allowsEnlargement)
  }

  /// The image scaled to `height`: pixels, or a percentage of `reference`'s height.
  public func scaled(
    toHeight height: Length, of reference: Image, kernel: ResampleKernel = .lanczos3, linearLight: Bool = true,
    allowsShrinkOnLoad: Bool = true, allowsEnlargement: Bool = true
  ) -> Image {
    scaled(
      toHeight: height.pixels(of: reference.size.height), kernel: kernel, linearLight: linearLight,
      allowsShrinkOnLoad: allowsShrinkOnLoad, allowsEnlargement: allowsEnlargement)
  }

  /// The largest scaling of the image that fits inside `box`, keeping the aspect ratio: one side
  /// equals the box's, the other is rounded to the nearest pixel (at least 1, at most the box's).
  /// Box sides are clamped into 1…`ScaleOperation.maximumSide`.
  public func scaled(
    toFit box: Size, kernel: ResampleKernel = .lanczos3, linearLight: Bool = true, allowsShrinkOnLoad: Bool = true,
    allowsEnlargement: Bool = true
  ) -> Image {
    let b = Self.clampedBox(box)
    let (w, h) = (max(size.width, 1), max(size.height, 1))
    let target: Size
    if b.width * h <= b.height * w {
      target = Size(width: b.width, height: min(Self.roundedRatio(h, times: b.width, over: w), b.height))
    } else {
      target = Size(width: min(Self.roundedRatio(w, times: b.height, over: h), b.width), height: b.height)
    }
    return resampled(to: target, kernel, linearLight, allowsShrinkOnLoad, allowsEnlargement, as: Self.scaleRows.$fit.argument(b))
  }

  /// The image scaled to cover `box` keeping the aspect ratio (one side equals the box's, the
  /// other is at least the box's), then cropped to exactly `box` where `focus` says: the centre (an
  /// odd excess leaves the extra pixel on the right or bottom), the window `smartcrop` would keep
  /// (attention, entropy), or the window centred as near as it can be on a point of the input.
  /// Box sides are clamped into 1…`ScaleOperation.maximumSide`. Without enlargement, an image
  /// smaller than the cover keeps its scale and is cropped to the largest window of the box's
  /// shape (a 40×20 image under fill=60x60 gives 20×20).
  public func scaled(
    toFill box: Size, focus: FillFocus = .centre, kernel: ResampleKernel = .lanczos3, linearLight: Bool = true, allowsShrinkOnLoad: Bool = true,
    allowsEnlargement: Bool = true
  ) -> Image {
    let b = Self.clampedBox(box)
    let (w, h) = (max(size.width, 1), max(size.height, 1))
    var cover: Size
    if b.width * h >= b.height * w {
      cover = Size(width: b.width, height: max(Self.roundedRatio(h, times: b.width, over: w), b.height))
    } else {
      cover = Size(width: max(Self.roundedRatio(w, times: b.height, over: h), b.width), height: b.height)
    }
    let scaled = resampled(to: cover, kernel, linearLight, allowsShrinkOnLoad, allowsEnlargement, as: Self.scaleRows.$fill.argument(b))
    cover = scaled.size
    // Not enlarged, the image is smaller than the box: the largest window of the box's shape.
    let window = cover.width >= b.width && cover.height >= b.height ? b
      : b.width * cover.height <= b.height * cover.width
        ? Size(width: max(Self.roundedRatio(cover.height, times: b.width, over: b.height), 1), height: cover.height)
        : Size(width: cover.width, height: max(Self.roundedRatio(cover.width, times: b.height, over: b.width), 1))
    if cover == window { return scaled }
    switch focus {
    case .centre:
      return scaled.cropped(to: Rect(x: (cover.width - window.width) / 2, y: (cover.height - window.height) / 2, width: window.width, height: window.height))
    case .attention:
      return scaled.smartCropped(to: window, strategy: .attention)
    case .entropy:
      return scaled.smartCropped(to: window, strategy: .entropy)
    case .point(let p):
      func start(_ at: Int, _ inSide: Int, _ coverSide: Int, _ windowSide: Int) -> Int {
        let centre = (2 * at * coverSide + inSide) / (2 * inSide)  // round(at · cover / in)
        return min(max(centre - windowSide / 2, 0), coverSide - windowSide)
      }
      let x = start(p.x, w, cover.width, window.width), y = start(p.y, h, cover.height, window.height)
      return scaled.cropped(to: Rect(x: x, y: y, width: window.width, height: window.height))
    }
  }

  /// The image scaled to exactly `size` (the aspect ratio may change). Sides are clamped into
  /// 1…`ScaleOperation.maximumSide`.
  public func scaled(
    to size: Size, kernel: ResampleKernel = .lanczos3, linearLight: Bool = true, allowsShrinkOnLoad: Bool = true,
    allowsEnlargement: Bool = true
  ) -> Image {
    let b = Self.clampedBox(size)
    return resampled(to: b, kernel, linearLight, allowsShrinkOnLoad, allowsEnlargement, as: Self.scaleRows.$size.argument(b))
  }

  /// The scale node, or the image itself when the size does not change; without enlargement, a
  /// target larger than the image on either side leaves it as it is, under the step as written
  /// (`mode`, the size mode's argument, and `enlarge=false`).
  private func resampled(
    to target: Size, _ kernel: ResampleKernel, _ linearLight: Bool, _ allowsShrinkOnLoad: Bool, _ allowsEnlargement: Bool = true,
    as mode: @autoclosure () -> (String, ParameterValue)
  ) -> Image {
    if !allowsEnlargement, target.width > size.width || target.height > size.height {
      let written = Arguments([mode(), Self.scaleRows.$enlarge.argument(false)])
      return applying(UnchangedStepOperation(ScaleOperation.table, arguments: written) { _ in nil })
    }
    if target == size { return self }
    return applying(ScaleOperation(targetSize: target, kernel: kernel, linearLight: linearLight, allowsShrinkOnLoad: allowsShrinkOnLoad))
  }

  /// The rows of `scale`, which spell a step's arguments.
  private static let scaleRows = ScaleOperation.Parameters()

  /// Past every limit: computed sides stop here so arithmetic on them cannot overflow.
  private static let largestComputedSide = 1 << 31

  private static func clampedSide(_ side: Int) -> Int { min(max(side, 1), largestComputedSide) }

  private static func clampedBox(_ box: Size) -> Size { Size(width: clampedSide(box.width), height: clampedSide(box.height)) }

  /// `value` rounded to the nearest whole side, at least 1.
  private static func roundedSide(_ value: Double) -> Int {
    value.isFinite ? clampedSide(Int(min(value, Double(largestComputedSide)).rounded())) : 1
  }

  /// round(a·b / c) in exact integer arithmetic (halves round up), at least 1.
  private static func roundedRatio(_ a: Int, times b: Int, over c: Int) -> Int {
    let c = max(c, 1)
    return clampedSide((2 * a * b + c) / (2 * c))
  }
}


/// Which window `scale fill=` keeps of the scaled image that covers its box.
public enum FillFocus: Hashable, Sendable, ParameterType {
  /// The centred window.
  case centre
  /// The window `smartcrop strategy=attention` would choose (edges, skin, saturated colour).
  case attention
  /// The window of the most varied luma (`smartcrop strategy=entropy`).
  case entropy
  /// The window centred as near as it can be on this pixel of the input (before scaling).
  case point(Point)

  /// The words a recipe writes (besides `X,Y`).
  public static let words = ["centre", "attention", "entropy"]

  /// The focus a `.choice` word or a `.point` holds, or nil.
  public init?(parameterValue: ParameterValue) {
    switch parameterValue {
    case .choice("centre"): self = .centre
    case .choice("attention"): self = .attention
    case .choice("entropy"): self = .entropy
    case .point(let p): self = .point(p)
    default: return nil
    }
  }

  /// `.choice(word)` or `.point`.
  public var parameterValue: ParameterValue {
    switch self {
    case .centre: return .choice("centre")
    case .attention: return .choice("attention")
    case .entropy: return .choice("entropy")
    case .point(let p): return .point(p)
    }
  }
}

extension OptionalParam where Value == FillFocus {
  /// `centre|attention|entropy|X,Y`, or nothing (it goes with another parameter).
  public init(_ name: String, help: String) {
    self.init(Parameter(spec: ParameterSpec(name, .choiceOrPoint(FillFocus.words), optional: true, help: help)))
  }
}
