// Extend.swift — grow the canvas by margins: `extend` (`pad`, to a size by gravity, is Pad.swift).
//
// Definition: with margins top, right, bottom, left ≥ 0 and an input of w × h, the output is
// (left + w + right) × (top + h + bottom) and output pixel (x, y) is the input pixel
// (x − left, y − top) when that lies inside the input. Outside it, by mode:
//
//   color   the colour C (straight sRGB-encoded RGBA; not opaque gives the result alpha),
//   copy    the nearest edge pixel: in(clamp(x − left, 0, w − 1), clamp(y − top, 0, h − 1)),
//   mirror  in(m_w(x − left), m_h(y − top)) with m_n(i) = r if r < n, else 2n − 1 − r, where
//           r = i mod 2n (≥ 0): the image reflected at its edges, edge pixels repeated, periodic.
//
// Pixels are moved, never resampled, so `extend` followed by `crop` of the input's place is the
// identity to the bit. `color` works on sRGB-encoded values (where the colour is defined); `copy`
// and `mirror` only move pixels.

import PixelBufferModule

/// What fills the new border of `extend`.
public enum ExtendMode: Hashable, Sendable {
  /// A colour (straight sRGB-encoded RGBA).
  case color(Color)
  /// The nearest edge pixel, repeated.
  case copy
  /// The image reflected at its edges (edge pixels repeated).
  case mirror

  /// The recipe word.
  public var name: String {
    switch self {
    case .color: return "color"
    case .copy: return "copy"
    case .mirror: return "mirror"
    }
  }
}

/// Margins in pixels around an image.
public struct EdgeInsets: Hashable, Sendable, CustomStringConvertible {
  /// Rows added above.
  public var top: Int
  /// Columns added on the right.
  public var right: Int
  /// Rows added below.
  public var bottom: Int
  /// Columns added on the left.
  public var left: Int

  /// Creates margins.
  public init(top: Int = 0, right: Int = 0, bottom: Int = 0, left: Int = 0) {
    (self.top, self.right, self.bottom, self.left) = (top, right, bottom, left)
  }

  /// The same margin on every side.
  public init(all: Int) { self.init(top: all, right: all, bottom: all, left: all) }

  /// True when no side adds anything.
  public var isZero: Bool { top == 0 && right == 0 && bottom == 0 && left == 0 }

  /// `top,right,bottom,left`.
  public var description: String { "\(top),\(right),\(bottom),\(left)" }
}

/// Adds margins around its input (see the definition at the top of Extend.swift).
public struct ExtendOperation: ImageOperation {
  /// The largest margin and the largest output side.
  public static let maximumMargin = 65535

  /// `extend top=0 right=0 bottom=0 left=0 mode=color color=black`.
  public struct Parameters: FilterParameters {
    /// Rows added above.
    @Param("top", range: 0...maximumMargin, help: "Rows added above.")
    public var top = 0
    /// Columns added on the right.
    @Param("right", range: 0...maximumMargin, help: "Columns added on the right.")
    public var right = 0
    /// Rows added below.
    @Param("bottom", range: 0...maximumMargin, help: "Rows added below.")
    public var bottom = 0
    /// Columns added on the left.
    @Param("left", range: 0...maximumMargin, help: "Columns added on the left.")
    public var left = 0
    /// color, copy or mirror.
    @Param("mode", words: ["color", "copy", "mirror"], help: "Fill with color, repeat the edge pixels (copy), or reflect the image (mirror).")
    public var mode = "color"
    /// The fill of mode=color.
    @Param("color", help: "The fill for mode=color (transparent colours give the image alpha).")
    public var color = Color.black

    /// The defaults.
    public init() {}
  }

  /// The parameters, in their ranges.
  public let parameters: Parameters
  /// The margins of `parameters`.
  let insets: EdgeInsets
  /// The fill `parameters.mode` and `parameters.color` name.
  let mode: ExtendMode

  /// Creates the operation.
  public init(_ parameters: Parameters) {
    self.parameters = parameters
    insets = EdgeInsets(top: parameters.top, right: parameters.right, bottom: parameters.bottom, left: parameters.left)
    switch parameters.mode {
    case "copy": mode = .copy
    case "mirror": mode = .mirror
    default: mode = .color(parameters.color)
    }
  }

  public static let table = OperationDescriptor(
    name: "extend", category: .geometry,
    summary: "Adds margins filled with a colour, the repeated edge (copy) or the mirrored image.",
    parameters: Parameters.table, example: "extend top=20 bottom=20 left=40 right=40 color=white")

  public var descriptor: OperationDescriptor { Self.table }
  /// The parameters, without `color` unless mode=color (the spelling cache keys have always had).
  public var arguments: Arguments {
    let all = parameters.arguments
    if case .color = mode { return all }
    return Arguments(all.values.filter { $0.0 != parameters.$color.name })
  }

  public var workingSpace: WorkingSpace? {
    if case .color = mode { return .encoded }
    return nil
  }

  public func outputInfo(inputs: [ImageInfo]) -> ImageInfo {
    var info = inputs[0]
    // A side over 65535 is kept, for the graph check to refuse with the true size.
    info.size = Size(
      width: info.size.width + insets.left + insets.right, height: info.size.height + insets.top + insets.bottom)
    if case .color(let c) = mode {
      if c.alpha < 1 { info.layout = info.layout.withAlpha }
      if info.layout.isGray && !c.isGray { info.layout = info.layout.hasAlpha ? .rgba : .rgb }
    }
    return info
  }

  /// m_n(i): the mirrored index (see the definition).
  static func mirrored(_ i: Int, _ n: Int) -> Int {
    let period = 2 * n
    let r = ((i % period) + period) % period
    return r < n ? r : period - 1 - r
  }

  public func inputRegion(for output: Rect, input index: Int, inputs: [ImageInfo]) -> Rect {
    let shifted = output.offsetBy(dx: -insets.left, dy: -insets.top)
    let extent = inputs[0].extent
    switch mode {
    case .copy:
      // The renderer's edge extension is exactly `copy`.
      return shifted
    case .color:
      let inside = shifted.intersection(extent)
      return inside.isEmpty ? Rect(x: 0, y: 0, width: 1, height: 1) : inside
    case .mirror:
      let xs = Self.mirroredSpan(shifted.x..<shifted.maxX, extent.width)
      let ys = Self.mirroredSpan(shifted.y..<shifted.maxY, extent.height)
      return Rect(x: xs.lowerBound, y: ys.lowerBound, width: xs.count, height: ys.count)
    }
  }

  /// The input indices a run of positions reads in mirror mode.
  static func mirroredSpan(_ positions: Range<Int>, _ n: Int) -> Range<Int> {
    if positions.count >= 2 * n { return 0..<n }
    var lo = n, hi = 0
    for i in positions {
      let m = mirrored(i, n)
      lo = min(lo, m)
      hi = max(hi, m)
    }
    return lo..<(hi + 1)
  }

  public func render(into output: inout Tile, inputs: [Tile]) throws {
    let input = inputs[0]
    let extent = Rect(size: inputs[0].imageSize)
    let shifted = output.rect.offsetBy(dx: -insets.left, dy: -insets.top)
    switch mode {
    case .copy:
      output.buffer = input.buffer
    case .color(let c):
      let fill = c.premultiplied(in: .encoded)
      let inside = shifted.intersection(extent)
      input.withPixels { src in
        output.withMutablePixels { dst in
          for y in 0..<dst.height { dst[row: y].update(repeating: fill, count: dst.width) }
          guard !inside.isEmpty else { return }
          let sx = inside.x - input.rect.x, sy = inside.y - input.rect.y
          let dx = inside.x - shifted.x, dy = inside.y - shifted.y
          for row in 0..<inside.height {
            (dst[row: dy + row] + dx).update(from: src[row: sy + row] + sx, count: inside.width)
          }
        }
      }
    case .mirror:
      let columns = (shifted.x..<shifted.maxX).map { Self.mirrored($0, extent.width) - input.rect.x }
      input.withPixels { src in
        output.withMutablePixels { dst in
          for y in 0..<dst.height {
            let s = src[row: Self.mirrored(shifted.y + y, extent.height) - input.rect.y], d = dst[row: y]
            for x in 0..<dst.width { d[x] = s[columns[x]] }
          }
        }
      }
    }
  }
}

extension Image {
  /// The image with margins added: `insets` pixels on each side, filled by `mode` (a colour —
  /// black by default —, the repeated edge, or the mirrored image). Margins are clamped into
  /// 0…65535. See Extend.swift.
  public func extended(by insets: EdgeInsets, mode: ExtendMode = .color(.black)) -> Image {
    var parameters = ExtendOperation.Parameters()
    (parameters.top, parameters.right, parameters.bottom, parameters.left) = (insets.top, insets.right, insets.bottom, insets.left)
    parameters.mode = mode.name
    if case .color(let c) = mode { parameters.color = c }
    let op = ExtendOperation(parameters)
    return op.insets.isZero ? self : applying(op)
  }
}
