// Color.swift — colours as users write them: `#FF8000`, `#F80`, `#FF800080`, `orange`.
import PixelBufferModule

/// A straight-alpha RGBA colour in the sRGB encoding, each channel 0…1.
///
/// ```swift
/// let orange = try Color(string: "#FF8000")     // throws for a mistyped colour
/// let named = Color(hex: userInput) ?? .black     // nil for text that is not a colour
/// let halfBlack = Color(red: 0, green: 0, blue: 0, alpha: 0.5)
/// ```
public struct Color: Hashable, Sendable, CustomStringConvertible {
  /// Red, 0…1, sRGB-encoded.
  public var red: Float
  /// Green, 0…1, sRGB-encoded.
  public var green: Float
  /// Blue, 0…1, sRGB-encoded.
  public var blue: Float
  /// Opacity, 0…1.
  public var alpha: Float

  /// Creates a colour from sRGB-encoded channels.
  public init(red: Float, green: Float, blue: Float, alpha: Float = 1) {
    self.red = red
    self.green = green
    self.blue = blue
    self.alpha = alpha
  }

  /// A gray of the given sRGB-encoded level.
  public init(white: Float, alpha: Float = 1) {
    self.init(red: white, green: white, blue: white, alpha: alpha)
  }

  /// Reads `text` as `init(hex:)` does, throwing where that returns nil: the form for colours
  /// written in code, which need no `!` (`try Color(string: "#FF8000")`).
  ///
  /// - Throws: `FilterError` naming the text and the forms a colour takes.
  public init(string text: String) throws {
    guard let colour = Color(hex: text) else {
      throw FilterError(
        "'\(text)' is not a colour: write #RGB, #RGBA, #RRGGBB or #RRGGBBAA, or one of \(Color.named.keys.sorted().joined(separator: ", ")).")
    }
    self = colour
  }

  /// Parses `#RGB`, `#RGBA`, `#RRGGBB`, `#RRGGBBAA` (the `#` is optional) or a colour name
  /// from `Color.named`; nil when the text is neither (`init(string:)` throws instead).
  public init?(hex text: String) {
    if let named = Color.named[text.lowercased()] {
      self = named
      return
    }
    var digits = Substring(text)
    if digits.hasPrefix("#") { digits = digits.dropFirst() }
    guard [3, 4, 6, 8].contains(digits.count), digits.allSatisfy(\.isHexDigit) else { return nil }
    var values: [Float] = []
    if digits.count <= 4 {
      for ch in digits { values.append(Float(Int(String(ch), radix: 16)! * 17) / 255) }
    } else {
      var i = digits.startIndex
      while i < digits.endIndex {
        let j = digits.index(i, offsetBy: 2)
        values.append(Float(Int(digits[i..<j], radix: 16)!) / 255)
        i = j
      }
    }
    self.init(red: values[0], green: values[1], blue: values[2], alpha: values.count == 4 ? values[3] : 1)
  }

  /// The channels as a SIMD vector (red, green, blue, alpha).
  public var simd: SIMD4<Float> { SIMD4(red, green, blue, alpha) }

  /// `#RRGGBB`, or `#RRGGBBAA` when not opaque.
  public var hexString: String {
    func byte(_ v: Float) -> String {
      let b = Int((min(max(v, 0), 1) * 255).rounded())
      let s = String(b, radix: 16, uppercase: true)
      return s.count == 1 ? "0" + s : s
    }
    return "#" + byte(red) + byte(green) + byte(blue) + (alpha < 1 ? byte(alpha) : "")
  }

  /// The hex spelling.
  public var description: String { hexString }

  /// The colour as a premultiplied working pixel in `space` (the sRGB curve removed for `.linear`),
  /// what a tile holds where this colour is painted.
  public func premultiplied(in space: WorkingSpace) -> SIMD4<Float> {
    var c = simd
    if space == .linear { c = SIMD4(SRGBCurve.decode(c.x), SRGBCurve.decode(c.y), SRGBCurve.decode(c.z), c.w) }
    return SIMD4(c.x * c.w, c.y * c.w, c.z * c.w, c.w)
  }

  /// True when red, green and blue are equal (the colour adds no hue to a gray image).
  public var isGray: Bool { red == green && green == blue }

  /// Opaque black.
  public static let black = Color(white: 0)
  /// Opaque white.
  public static let white = Color(white: 1)
  /// Fully transparent black.
  public static let clear = Color(white: 0, alpha: 0)

  /// The colour names recipes accept.
  public static let named: [String: Color] = [
    "black": .black, "white": .white, "transparent": .clear, "clear": .clear,
    "red": Color(red: 1, green: 0, blue: 0), "green": Color(red: 0, green: 128.0 / 255, blue: 0),
    "lime": Color(red: 0, green: 1, blue: 0), "blue": Color(red: 0, green: 0, blue: 1),
    "yellow": Color(red: 1, green: 1, blue: 0), "cyan": Color(red: 0, green: 1, blue: 1),
    "magenta": Color(red: 1, green: 0, blue: 1), "orange": Color(red: 1, green: 165.0 / 255, blue: 0),
    "gray": Color(white: 128.0 / 255), "grey": Color(white: 128.0 / 255),
    "sepia": Color(red: 112.0 / 255, green: 66.0 / 255, blue: 20.0 / 255),
  ]
}
