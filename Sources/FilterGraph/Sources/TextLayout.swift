// TextLayout.swift — a string set in a font: the Swift side of the CText shim (ctext.h).
//
// The layout is made when the image is made (its size is the image's size): fonts found through
// fontconfig or opened from a file, bidi levels and line breaks from ICU (UAX #9, UAX #14), runs
// shaped by HarfBuzz, lines wrapped into `width` and aligned. `render()` rasterises it with
// FreeType: into its alpha alone for a text of one colour without colour glyphs, else into
// premultiplied linear-light RGBA floats; see TextSource.swift for the pixels.
//
// Limits (every one a clear error, never a crash): at most `maxBytes` of UTF-8, an image at most
// `maxSide` pixels a side and `maxPixels` in all (16 MP: 256 MB of float RGBA pixels, 64 MB as
// alpha alone).

import CText
import Foundation
import ImageCodecs
import Locking
import PixelBufferModule

/// How lines sit in the text's box.
public enum TextAlignment: String, Hashable, Sendable, CaseIterable, ParameterChoice {
  /// Against the left edge.
  case left
  /// Centred.
  case centre
  /// Against the right edge.
  case right
  /// Both edges: the spaces of every wrapped line but a paragraph's last are widened.
  case justify
}

/// A font weight, by fontconfig's scale.
public enum FontWeight: String, Hashable, Sendable, CaseIterable, ParameterChoice {
  case thin, light, regular, medium, semibold, bold, black

  /// fontconfig's FC_WEIGHT value.
  var fontconfigWeight: Int32 {
    switch self {
    case .thin: return 0
    case .light: return 50
    case .regular: return 80
    case .medium: return 100
    case .semibold: return 180
    case .bold: return 200
    case .black: return 210
    }
  }
}

/// Everything about how a string is set, except the string.
public struct TextStyle: Hashable, Sendable {
  /// A fontconfig family name ("DejaVu Sans", "serif") or a font file's path.
  public var font: String
  /// The em size in pixels.
  public var size: Double
  /// The text colour (colour glyphs such as emoji keep theirs and take only its alpha).
  public var color: Color
  /// The wrapping width in pixels, or nil for lines as long as their text.
  public var width: Double?
  /// How lines sit in the box.
  public var alignment: TextAlignment
  /// Line pitch as a multiple of the font's ascent + descent.
  public var lineSpacing: Double
  /// The weight fontconfig looks for.
  public var weight: FontWeight
  /// True to ask fontconfig for an italic (or oblique) face.
  public var italic: Bool

  /// Creates a style.
  public init(
    font: String = "sans-serif", size: Double, color: Color = .black, width: Double? = nil,
    alignment: TextAlignment = .left, lineSpacing: Double = 1, weight: FontWeight = .regular, italic: Bool = false
  ) {
    self.font = font
    self.size = size
    self.color = color
    self.width = width
    self.alignment = alignment
    self.lineSpacing = lineSpacing
    self.weight = weight
    self.italic = italic
  }

  /// True when `font` names a file rather than a family: it has a slash or a font file's extension.
  var fontIsFile: Bool {
    font.contains("/") || ["ttf", "otf", "ttc", "otc", "woff", "woff2", "pfb"].contains((font as NSString).pathExtension.lowercased())
  }
}

/// fontconfig's configuration and font caches, loaded once per process.
public enum FontConfiguration {
  /// Loads it (`fg_text_load_fonts`: its XML files parsed and its caches mapped as FcInit does,
  /// without FcInit's second parse of the template files, about 3 ms of CPU) on first use; a
  /// thread that asks while another loads it waits for that one load.
  static let loaded: Bool = fg_text_load_fonts() != 0

  /// Starts loading it on another thread, so that text laid out later (a recipe's `text`, once
  /// the recipe is checked and its input's header read) finds it loaded rather than loading it on
  /// the render's serial path.
  public static func loadInBackground() {
    Thread.detachNewThread { _ = loaded }
  }
}

/// A laid-out string; see the file comment. Calls into the layout are serialised (FreeType
/// faces are not thread-safe).
final class TextLayout: Sendable {
  /// The UTF-8 limit.
  static let maxBytes = 1 << 20
  /// The largest side.
  static let maxSide = 65535
  /// The largest area.
  static let maxPixels = 1 << 24

  /// The C layout, used only with the lock held.
  private let handle: Locked<OpaquePointer>
  /// The image size.
  let size: Size
  /// The number of lines.
  let lineCount: Int
  /// The first line's baseline, in pixels from the top.
  let firstBaseline: Double
  /// A warning for the user (a family replaced by another), or nil.
  let warning: String?

  /// The colour of each run.
  let colors: [Color]

  /// Lays `string` out in `style`.
  convenience init(string: String, style: TextStyle) throws {
    try self.init(runs: [TextRun(string)], style: style)
  }

  /// Lays the runs out as one text, each in `style` with its own settings over it.
  ///
  /// - Throws: `CodecError`: `.unsupported` when no font is installed (naming the package to
  ///   install) or a font file is not a font, `.io` for a missing font file, `.tooLarge` past a
  ///   limit, `.invalidArgument` for bad settings or invalid UTF-8.
  init(runs given: [TextRun], style: TextStyle) throws {
    let runs = given.contains { !$0.string.isEmpty } ? given.filter { !$0.string.isEmpty } : [TextRun("")]
    let styles = runs.map { style.applying($0) }
    for font in Set(styles.filter(\.fontIsFile).map(\.font)) where !FileManager.default.fileExists(atPath: font) {
      throw CodecError(.io, "The font file \(font) does not exist.")
    }
    if let width = style.width, !(width >= 1) {
      throw CodecError(.invalidArgument, "The text's width must be at least 1 pixel (it is \(width)).")
    }
    let names: [UnsafeMutablePointer<CChar>?] = styles.map { strdup($0.font) }
    defer { names.forEach { free($0) } }
    guard !names.contains(nil) else { throw CodecError(.invalidArgument, "Cannot lay the text out: out of memory.") }
    var offset = 0
    var cRuns = zip(runs, styles).enumerated().map { k, pair in
      let (run, style) = pair, start = offset
      offset += run.string.utf8.count
      return fg_text_run(
        start: start, end: offset, family: style.fontIsFile ? nil : UnsafePointer(names[k]),
        font_file: style.fontIsFile ? UnsafePointer(names[k]) : nil, size: style.size,
        weight: style.weight.fontconfigWeight, italic: style.italic ? 1 : 0)
    }
    _ = FontConfiguration.loaded
    var out: OpaquePointer?
    var message = [CChar](repeating: 0, count: 512)
    let status: Int32 = runs.map(\.string).joined().utf8CString.withUnsafeBufferPointer { text in
      cRuns.withUnsafeMutableBufferPointer { cRuns in
        var settings = fg_text_settings()
        settings.text = text.baseAddress
        settings.text_length = text.count - 1
        settings.runs = UnsafePointer(cRuns.baseAddress)
        settings.run_count = cRuns.count
        settings.width = style.width ?? 0
        settings.align = Int32(TextAlignment.allCases.firstIndex(of: style.alignment) ?? 0)
        settings.line_spacing = style.lineSpacing
        settings.max_bytes = Self.maxBytes
        settings.max_side = Int32(Self.maxSide)
        settings.max_pixels = Double(Self.maxPixels)
        return fg_text_layout_create(&settings, &out, &message, message.count)
      }
    }
    guard status == FG_TEXT_OK, let out else {
      let sentence = String(cString: message) + "."
      switch Int(status) {
      case Int(FG_TEXT_NO_FONTS), Int(FG_TEXT_BAD_FONT): throw CodecError(.unsupported, sentence)
      case Int(FG_TEXT_TOO_LARGE): throw CodecError(.tooLarge, sentence)
      case Int(FG_TEXT_BAD_INPUT): throw CodecError(.invalidArgument, sentence)
      default: throw CodecError(.invalidArgument, "Cannot lay the text out: \(sentence)")
      }
    }
    handle = Locked(out)
    colors = styles.map(\.color)
    size = Size(width: Int(fg_text_layout_width(out)), height: Int(fg_text_layout_height(out)))
    lineCount = Int(fg_text_layout_line_count(out))
    firstBaseline = fg_text_layout_first_baseline(out)
    warning = fg_text_layout_warning(out).map { String(cString: $0) }
  }

  deinit { handle.withLock { fg_text_layout_free($0) } }

  /// One placed glyph (visual order, line by line).
  struct Glyph: Hashable {
    var line: Int
    /// Its run.
    var run: Int
    var fontFile: String
    var glyph: UInt32
    /// UTF-8 byte offset of its cluster in the string.
    var cluster: Int
    /// x advance, 1/1024 pixels.
    var advance: Int32
    var x: Double
    var y: Double
  }

  /// Every placed glyph.
  var glyphs: [Glyph] {
    handle.withLock { handle in
      (0..<fg_text_layout_glyph_count(handle)).map { i in
        var g = fg_text_glyph()
        fg_text_layout_glyph(handle, i, &g)
        let file = fg_text_layout_font_file(handle, g.run, g.font).map { String(cString: $0) } ?? ""
        return Glyph(line: Int(g.line), run: Int(g.run), fontFile: file, glyph: g.glyph, cluster: Int(g.cluster), advance: g.advance, x: g.x, y: g.y)
      }
    }
  }

  /// The text drawn, as `TextSourceOperation.fill(_:space:from:)` reads it, and how many glyphs
  /// FreeType could not draw (normally none):
  /// - a text of one colour without colour glyphs: its alpha alone (gray floats, the colour's
  ///   alpha included), to be multiplied by the colour when read;
  /// - any other: each run in its colour, premultiplied linear-light RGBA floats.
  func render() throws -> (PixelBuffer, failedGlyphs: Int) {
    let linear: [Float] = colors.flatMap { color -> [Float] in
      let c = color.simd
      return [SRGBCurve.decode(c.x), SRGBCurve.decode(c.y), SRGBCurve.decode(c.z), c.w]
    }
    let alphaOnly = Set(colors).count == 1 && !handle.withLock { fg_text_layout_has_color_glyphs($0) != 0 }
    let format = alphaOnly ? Self.alphaFormat : .rgbaFloatPremultiplied
    var buffer = try PixelBuffer.allocate(width: size.width, height: size.height, format: format, colorSpace: .linearSRGB, zeroed: true)
    let failed = buffer.withUnsafeMutableBaseAddress { base, rowBytes in
      handle.withLock { handle in
        let pixels = base.assumingMemoryBound(to: Float.self), rowFloats = rowBytes / MemoryLayout<Float>.stride
        if alphaOnly {
          return fg_text_layout_render_alpha(handle, 0, 0, Int32(size.width), Int32(size.height), pixels, rowFloats, linear[3])
        }
        return linear.withUnsafeBufferPointer { linear in
          fg_text_layout_render(handle, 0, 0, Int32(size.width), Int32(size.height), pixels, rowFloats, linear.baseAddress)
        }
      }
    }
    return (buffer, Int(failed))
  }

  /// The format of a text drawn as its alpha alone.
  static let alphaFormat = PixelFormat(layout: .gray, component: .float32)

  /// The text colour in linear light, straight alpha (the first run's: the one colour of a text
  /// drawn as its alpha).
  var linearColor: SIMD4<Float> {
    let c = colors[0].simd
    return SIMD4(SRGBCurve.decode(c.x), SRGBCurve.decode(c.y), SRGBCurve.decode(c.z), c.w)
  }
}
