// SmartCrop.swift — crops to the window of a given size where the image is most interesting.
//
// Definition. For an input of W × H and a requested w × h (each side clamped to the input's), the
// output is the crop (Crop.swift) to the w × h window at (x, y) chosen by the strategy:
//
// - `centre`: the centred window, x = ⌊(W − w)/2⌋, y = ⌊(H − h)/2⌋ (as `crop gravity=center`,
//   placed at render time from the input's actual size); no analysis.
// - `attention` and `entropy` score every window position on a view V of the image scaled to at
//   most 65,536 pixels (`SmartCropAnalysis`; shrink-on-load applies), of vw × vh, where the window
//   is ww × wh with ww = clamp(round(w·vw/W), 1, vw) (wh likewise). The window with the highest
//   score wins; windows within 10⁻⁹ of the best score (relative) tie, and of those the one whose
//   centre is nearest V's centre wins (then the topmost, then the leftmost). Its view position
//   (vx, vy) maps back to x = clamp(round(vx·W/vw), 0, W − w), y likewise: a precision of one
//   view pixel, W/vw full-size pixels.
//
// Pixel values are premultiplied RGBA in the sRGB encoding (transparent parts count as black),
// read as sRGB. With the linear values' CIE XYZ (D65, Y of white 1) and CIE L*a*b*:
//
// - `attention` (after libvips's smartcrop, which "searches for edges plus saturated colours plus
//   skintones", libvips discussion #3767): the score of a window is the sum over its pixels of
//       i = |∇²L*| + skin + C*ab
//   where ∇²L* = 4 L*(x, y) − L*(x±1, y) − L*(x, y±1) on V (edges replicated), C*ab = √(a*² + b*²),
//   and skin = 100·(s − 0.8)/0.2 where s = 1 − ‖rgb/‖rgb‖ − (0.78, 0.57, 0.44)‖ > 0.8 (the skin
//   colour and threshold of smartcrop.js, on the encoded r, g, b), else 0. Skin and C*ab count only
//   where L* > 25: dark areas are ignored, as libvips ignores them.
// - `entropy`: the score is the Shannon entropy H = −Σ pᵢ log₂ pᵢ of the window's luma histogram,
//   256 bins of ℓ = 0.2126 r + 0.7152 g + 0.0722 b (encoded values; bin ⌊256 ℓ⌋, clamped).
//
// Every strategy is deterministic: the scores are sums in a fixed order, computed once the view's
// per-pixel values (computed tile-parallel) are assembled.

import Foundation
import PixelBufferModule

/// How `smartcrop` chooses its window.
public enum SmartCropStrategy: String, Hashable, Sendable, CaseIterable, ParameterChoice {
  /// Edges, skin tones and saturated colour (libvips's `attention`).
  case attention
  /// The highest Shannon entropy of luma.
  case entropy
  /// The centred window (no analysis).
  case centre
}

/// Per-pixel values of one tile of the view, in the order the tiles were merged.
public struct ViewValues: Sendable {
  /// The tiles' rectangles in the view.
  var rects: [Rect]
  /// Two values per pixel, rows of each rectangle in turn.
  var values: [SIMD2<Float>]
}

/// Chooses the w × h window of a strategy on a reduced view; see SmartCrop.swift.
public struct SmartCropAnalysis: ImageAnalysis {
  /// The window asked for, in full-size pixels (each side clamped to the image's by `result`).
  public var window: Size
  /// `attention` or `entropy`.
  public var strategy: SmartCropStrategy

  /// Creates the analysis.
  public init(window: Size, strategy: SmartCropStrategy) {
    self.window = window
    self.strategy = strategy
  }

  /// The view's pixel budget.
  public static let viewPixels = 65_536

  public var label: String { "\(strategy.rawValue) of \(window) windows" }
  public var view: AnalysisView { .reduced(maximumPixels: Self.viewPixels) }
  public var workingSpace: WorkingSpace { .encoded }

  /// sRGB linear → XYZ, rows of the matrix.
  private static let toXYZ: [SIMD3<Float>] = Primaries.sRGB.toXYZ.m.map { SIMD3(Float($0[0]), Float($0[1]), Float($0[2])) }
  /// The D65 white's X and Z (Y = 1).
  private static let white: SIMD2<Float> = {
    let m = Primaries.sRGB.toXYZ.m
    return SIMD2(Float(m[0][0] + m[0][1] + m[0][2]), Float(m[2][0] + m[2][1] + m[2][2]))
  }()

  /// The CIE Lab f: t^(1/3) above (6/29)³, linear below.
  @inline(__always) private static func labF(_ t: Float) -> Float {
    t > 0.008856452 ? Foundation.cbrt(t) : t * 7.787037 + 4.0 / 29
  }

  /// attention: (L*, skin + C*ab where L* > 25); entropy: (luma bin, 0).
  static func pixelValues(_ p: SIMD4<Float>, _ strategy: SmartCropStrategy) -> SIMD2<Float> {
    let rgb = SIMD3(p.x, p.y, p.z)
    if strategy == .entropy {
      let l = (rgb * Rec709.weights).sum()
      return SIMD2(Float(min(max(Int(l * 256), 0), 255)), 0)
    }
    let linear = SIMD3(SRGBCurve.decode(rgb.x), SRGBCurve.decode(rgb.y), SRGBCurve.decode(rgb.z))
    let xyz = SIMD3((toXYZ[0] * linear).sum(), (toXYZ[1] * linear).sum(), (toXYZ[2] * linear).sum())
    let fy = labF(xyz.y)
    let lightness = 116 * fy - 16
    guard lightness > 25 else { return SIMD2(lightness, 0) }
    let a = 500 * (labF(xyz.x / white.x) - fy), b = 200 * (fy - labF(xyz.z / white.y))
    let chroma = (a * a + b * b).squareRoot()
    let magnitude = (rgb * rgb).sum().squareRoot()
    var skin: Float = 0
    if magnitude > 0 {
      let d = rgb / magnitude - SIMD3(0.78, 0.57, 0.44)
      let s = 1 - (d * d).sum().squareRoot()
      if s > 0.8 { skin = 100 * (s - 0.8) / 0.2 }
    }
    return SIMD2(lightness, skin + chroma)
  }

  public func partial(of tile: Tile, viewSize: Size) -> ViewValues {
    var values: [SIMD2<Float>] = []
    values.reserveCapacity(tile.rect.width * tile.rect.height)
    tile.withPixels { px in
      for y in 0..<px.height {
        let row = px[row: y]
        for x in 0..<px.width { values.append(Self.pixelValues(row[x], strategy)) }
      }
    }
    return ViewValues(rects: [tile.rect], values: values)
  }

  public func merged(_ first: ViewValues, _ second: ViewValues) -> ViewValues {
    ViewValues(rects: first.rects + second.rects, values: first.values + second.values)
  }

  /// The chosen window in the image's coordinates.
  public func result(_ partial: ViewValues, viewSize: Size, imageSize: Size) -> Rect {
    let vw = viewSize.width, vh = viewSize.height
    // The view's values as one row-major map.
    var map = [SIMD2<Float>](repeating: .zero, count: vw * vh)
    var offset = 0
    for r in partial.rects {
      for y in 0..<r.height {
        for x in 0..<r.width { map[(r.y + y) * vw + r.x + x] = partial.values[offset + y * r.width + x] }
      }
      offset += r.width * r.height
    }
    let w = min(window.width, imageSize.width), h = min(window.height, imageSize.height)
    let ww = min(max(Int((Double(w) * Double(vw) / Double(imageSize.width)).rounded()), 1), vw)
    let wh = min(max(Int((Double(h) * Double(vh) / Double(imageSize.height)).rounded()), 1), vh)
    let scores = strategy == .entropy
      ? Self.entropyScores(map, vw, vh, ww, wh) : Self.attentionScores(map, vw, vh, ww, wh)
    let (vx, vy) = Self.best(scores, across: vw - ww + 1, down: vh - wh + 1, window: (ww, wh), view: (vw, vh))
    let x = min(max(Int((Double(vx) * Double(imageSize.width) / Double(vw)).rounded()), 0), imageSize.width - w)
    let y = min(max(Int((Double(vy) * Double(imageSize.height) / Double(vh)).rounded()), 0), imageSize.height - h)
    return Rect(x: x, y: y, width: w, height: h)
  }

  /// Window sums of the attention interest, positions row-major.
  static func attentionScores(_ map: [SIMD2<Float>], _ vw: Int, _ vh: Int, _ ww: Int, _ wh: Int) -> [Double] {
    // Summed-area table of i = |∇²L*| + (skin + C*ab), one row and column of zeros in front.
    var table = [Double](repeating: 0, count: (vw + 1) * (vh + 1))
    for y in 0..<vh {
      var rowSum = 0.0
      for x in 0..<vw {
        let l = map[y * vw + x].x
        let left = map[y * vw + max(x - 1, 0)].x, right = map[y * vw + min(x + 1, vw - 1)].x
        let up = map[max(y - 1, 0) * vw + x].x, down = map[min(y + 1, vh - 1) * vw + x].x
        rowSum += Double(abs(4 * l - left - right - up - down) + map[y * vw + x].y)
        table[(y + 1) * (vw + 1) + x + 1] = table[y * (vw + 1) + x + 1] + rowSum
      }
    }
    var scores: [Double] = []
    scores.reserveCapacity((vw - ww + 1) * (vh - wh + 1))
    for y in 0...(vh - wh) {
      for x in 0...(vw - ww) {
        let a = table[y * (vw + 1) + x], b = table[y * (vw + 1) + x + ww]
        let c = table[(y + wh) * (vw + 1) + x], d = table[(y + wh) * (vw + 1) + x + ww]
        scores.append(d - b - c + a)
      }
    }
    return scores
  }

  /// The luma entropy of every window, positions row-major: a histogram slid along each row of
  /// positions, H = log₂ N − (Σ nᵢ log₂ nᵢ)/N kept up to date one count at a time.
  static func entropyScores(_ map: [SIMD2<Float>], _ vw: Int, _ vh: Int, _ ww: Int, _ wh: Int) -> [Double] {
    let n = ww * wh
    let nLogN = (0...n).map { $0 == 0 ? 0.0 : Double($0) * log2(Double($0)) }
    let bins = map.map { Int($0.x) }
    var scores: [Double] = []
    scores.reserveCapacity((vw - ww + 1) * (vh - wh + 1))
    for y0 in 0...(vh - wh) {
      var counts = [Int](repeating: 0, count: 256)
      var sum = 0.0
      func add(_ bin: Int, _ delta: Int) {
        let before = counts[bin]
        counts[bin] += delta
        sum += nLogN[counts[bin]] - nLogN[before]
      }
      for y in y0..<(y0 + wh) { for x in 0..<ww { add(bins[y * vw + x], 1) } }
      for x0 in 0...(vw - ww) {
        if x0 > 0 {
          for y in y0..<(y0 + wh) {
            add(bins[y * vw + x0 - 1], -1)
            add(bins[y * vw + x0 + ww - 1], 1)
          }
        }
        scores.append(log2(Double(n)) - sum / Double(n))
      }
    }
    return scores
  }

  /// The winning position: the best score, ties (within 10⁻⁹ relative) to the window whose centre
  /// is nearest the view's, then the first in row-major order.
  static func best(_ scores: [Double], across: Int, down: Int, window: (Int, Int), view: (Int, Int)) -> (Int, Int) {
    let top = scores.max() ?? 0
    let floor = top - 1e-9 * max(abs(top), 1)
    var chosen = (0, 0), nearest = Int.max
    for y in 0..<down {
      for x in 0..<across where scores[y * across + x] >= floor {
        // Twice the centres' offset, so it stays whole.
        let dx = 2 * x + window.0 - view.0, dy = 2 * y + window.1 - view.1
        let d = dx * dx + dy * dy
        if d < nearest {
          nearest = d
          chosen = (x, y)
        }
      }
    }
    return chosen
  }
}

/// `smartcrop` with `attention` or `entropy`: crops to the window `SmartCropAnalysis` chooses.
public struct SmartCropOperation: WindowChoosingOperation {
  /// `smartcrop size=WxH strategy=attention`.
  public struct Parameters: FilterParameters {
    /// The window.
    @Param("size", sides: 1...65535, help: "Width and height of the window kept (clamped to the image).")
    public var size: Size
    /// How the window is chosen (`centre` is an ordinary crop: see `Image.smartCropped`).
    @Param("strategy", help: "attention: edges, skin and saturated colour; entropy: the most varied luma; centre: the middle.")
    public var strategy = SmartCropStrategy.attention

    /// The defaults; `size` must be given.
    public init() {}
  }

  /// The parameters, in their ranges.
  public let parameters: Parameters

  /// Creates the operation.
  public init(_ parameters: Parameters) { self.parameters = parameters }

  public static let table = OperationDescriptor(
    name: "smartcrop", category: .geometry,
    summary: "Keeps the window of a given size where the image is most interesting (attention, entropy) or its centre.",
    parameters: Parameters.table, example: "smartcrop size=1080x1080 strategy=attention")

  public var descriptor: OperationDescriptor { Self.table }
  public var arguments: Arguments { parameters.arguments }
  public var workingSpace: WorkingSpace? { nil }

  /// The window clamped to an input of `size`.
  func window(in input: Size) -> Size {
    Size(width: min(parameters.size.width, input.width), height: min(parameters.size.height, input.height))
  }

  /// The output is the clamped window whatever the analysis finds.
  public func outputInfo(inputs: [ImageInfo]) -> ImageInfo {
    var info = inputs[0]
    info.size = window(in: info.size)
    return info
  }

  public var analysis: SmartCropAnalysis { SmartCropAnalysis(window: parameters.size, strategy: parameters.strategy) }

  public func resolved(with window: Rect, input: ImageInfo) -> any ImageOperation { CropOperation(region: window) }
}

extension Image {
  /// The `size` window (each side clamped to the image's) where the image is most interesting by
  /// `strategy`: `attention` (edges, skin tones, saturated colour), `entropy` (the most varied
  /// luma), or `centre` (the centred window, a plain crop). See SmartCrop.swift for the exact
  /// scores; the window is chosen by the renderer before the tiles, on a view of ≤ 65,536 pixels.
  ///
  /// When the window is clamped (the image is smaller than `size` on a side), the result is
  /// followed by an `UnchangedStepOperation` showing the step as written: `explain` lists it and
  /// every render warns that the result is smaller than asked.
  public func smartCropped(to size: Size, strategy: SmartCropStrategy = .attention) -> Image {
    var parameters = SmartCropOperation.Parameters()
    (parameters.size, parameters.strategy) = (size, strategy)
    let op = SmartCropOperation(parameters)
    let asked = parameters.size
    let window = op.window(in: self.size)
    // Centred at render time, in the input's actual size (a crop clips the box as the window is clamped).
    let cropped = strategy == .centre || window == self.size ? cropped(to: asked, gravity: .center) : applying(op)
    guard window != asked else { return cropped }
    return cropped.applying(
      UnchangedStepOperation(SmartCropOperation.table, arguments: op.arguments) { input in
        guard input.width < asked.width || input.height < asked.height else { return nil }
        return "smartcrop size=\(asked) gives \(input): the image is smaller than the window asked for, which is clamped to it"
      })
  }
}
