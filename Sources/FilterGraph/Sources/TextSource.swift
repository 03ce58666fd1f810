// TextSource.swift — the `text` source: a string set in a font, on a transparent background.
//
// Definition: the image is the layout's box (TextLayout: every line box and every glyph's ink,
// so nothing is clipped) with the text drawn in `color`: at each pixel, with c the fraction of
// the pixel a glyph's outline covers (FreeType's anti-aliased coverage, unhinted, at the exact
// pen position rounded to a pixel) and (r, g, b, a) the colour in linear light,
//     out = (r·c·a, g·c·a, b·c·a, c·a)       premultiplied, linear light,
// overlapping glyphs laid one over another. Coverage is blended as light adds up (linear), not
// in the sRGB encoding, so edges keep the weight of the stroke on any background: this is the
// gamma-correct anti-aliasing. Colour glyphs (emoji) keep their colours and take only the alpha.
//
// The text is rasterised once per render, whole (a `RasterizedSource`: on a worker at the
// render's start, through the renderer's decode cache), not per tile: a glyph
// drawn once cannot be cut or doubled at a tile's edge, and per tile every glyph across a tile
// edge is rasterised once per tile it touches, under the layout's lock (FreeType's faces are not
// thread-safe). Measured with bench/text-raster.sh (the C rasteriser at -O2, one thread, medians
// of 5, load 7): the W13 credit line (1475×141) 0.72 ms whole against 1.05 ms in 512×64 tiles and
// 12.6 ms in 64×16; the W14 title 0.39 against 0.52 and 1.42 ms; 12 wrapped sentences at 24 px
// (1000×551) 7.5 against 8.7 and 60 ms. Per tile is never faster. The render does not wait for
// the raster before its first tile, and the tiles that read it find it made (BandScheduler.swift).
// A text of one colour without colour glyphs is rasterised as its alpha alone, c·a above (4 bytes
// a pixel; the credit's 1475×141 is 0.8 MB instead of 3.3 MB of RGBA), and each tile read from it
// is the colour times that alpha: the same pixels as the RGBA raster, exactly so for white or
// black text and to float rounding for other colours (overlapping glyphs sum r·c·a + p·(1 − c·a)
// in RGBA, r·(c·a + p′·(1 − c·a)) here). Other texts keep the RGBA raster.

import Foundation
import ImageCodecs
import PixelBufferModule

/// A string set in a font; see the file comment.
public struct TextSourceOperation: RasterizedSource {
  /// The string (every run's text, in order).
  public let string: String
  /// The runs of an attributed string (one run for a plain string).
  public let runs: [TextRun]
  /// How it is set (each run's own settings over it).
  public let style: TextStyle
  let layout: TextLayout
  /// The font files the text is set in, each as it was when the text was laid out (device, inode,
  /// size, modification time): a file rewritten or replaced at its path gives the text another
  /// identity, so a renderer's cache never serves the pixels of the old font.
  let fontFiles: [String]

  /// Lays `string` out in `style` (throws as `TextLayout.init` does).
  public init(string: String, style: TextStyle) throws {
    try self.init(runs: [TextRun(string)], style: style)
  }

  /// Lays the runs of an attributed string out as one text in `style`.
  public init(runs: [TextRun], style: TextStyle) throws {
    self.runs = runs
    self.string = runs.map(\.string).joined()
    self.style = style
    fontFiles = Set(([style] + runs.map { style.applying($0) }).filter(\.fontIsFile).map(\.font)).sorted().map(Self.fileSignature)
    layout = try TextLayout(runs: runs, style: style)
  }

  /// `path` and what stat(2) says of the file (nothing more when it cannot be examined).
  static func fileSignature(_ path: String) -> String {
    var status = stat()
    guard stat(path, &status) == 0 else { return path }
    return "\(path)@\(status.st_dev):\(status.st_ino):\(status.st_size):\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)"
  }

  /// `text string=S font=sans-serif size=N|P% color=black width=N|P% align=left line-spacing=1
  /// dpi=N weight=regular style=normal`: the verb's parameters (the operation holds the laid-out
  /// text).
  public struct Parameters: FilterParameters {
    /// The text.
    @Param(text: "string", help: "The text, in any script; `\\n` starts a new line.")
    public var string: String
    /// A family name or a font file.
    @Param(text: "font", help: "A font family (fc-list lists them) or a font file (.ttf, .otf, .ttc).")
    public var font = "sans-serif"
    /// The em size.
    @Param("size", pixels: 1...4096, help: "Em size in pixels (points with dpi=), or a percentage of the of= image's height (size=3% of=input).")
    public var size: Length
    /// The text colour.
    @Param("color", help: "The text colour (emoji keep theirs).")
    public var color = Color.black
    /// The wrapping width.
    @OptionalParam(
      "width", pixels: 1...65535, help: "Wrap lines to this many pixels (UAX #14 break opportunities), or a percentage of the of= image's width.")
    public var width: Length?
    /// How lines sit in the box.
    @Param("align", help: "How lines sit in the box.")
    public var align = TextAlignment.left
    /// The line pitch.
    @Param("line-spacing", range: 0.1...10, help: "Line pitch as a multiple of the font's ascent + descent.")
    public var lineSpacing = 1.0
    /// Reads size= in points.
    @OptionalParam("dpi", range: 1...4800, help: "Reads size= in points at this resolution (pixels = points × dpi / 72).")
    public var dpi: Double?
    /// The face's weight.
    @Param("weight", help: "The weight fontconfig looks for.")
    public var weight = FontWeight.regular
    /// Upright or italic.
    @Param("style", words: ["normal", "italic"], help: "Upright, or an italic (or oblique) face.")
    public var style = "normal"

    /// The defaults; `string` and `size` must be given.
    public init() {}
  }

  /// `of`: the image percentages are of.
  static let ofNote = "percentages of size= and width= are of the image named by of= (of=input: the recipe's input)"

  /// The parameter table (`text` in `fgrun filters`).
  public static let table = OperationDescriptor(
    name: "text", category: .source,
    summary: "Text in any script (HarfBuzz shaping, bidi, fallback fonts, colour emoji) on a transparent background; "
      + ofNote + ".",
    inputCount: 1, parameters: Parameters.table,
    example: "caption = text string=\"© 2026 A. Photographer\" font=\"DejaVu Sans\" size=3% of=input color=white")

  public var descriptor: OperationDescriptor { Self.table }
  /// The string (its first 40 characters), the style as laid out, and the number of lines.
  public var arguments: Arguments {
    let rows = Parameters()
    let shown = string.count > 40 ? String(string.prefix(40)) + "…" : string
    var values: [(String, ParameterValue)] = [
      (rows.$string.name, .text(shown)), (rows.$font.name, .text(style.font)), (rows.$size.name, .number(style.size)),
      rows.$color.argument(style.color),
    ]
    if let width = style.width { values.append((rows.$width.name, .number(width))) }
    values += [rows.$align.argument(style.alignment), ("lines", .number(Double(layout.lineCount)))]
    return Arguments(values)
  }
  /// What the pixels depend on: the style, the font files as they were (`fontFiles`), the size
  /// laid out and the string (itself when short, else its length and hash), so a recipe run on many
  /// files of a batch rasterises one text once.
  public var identity: String {
    let attributes = runs.count == 1 && runs[0].identity.isEmpty ? "" : "|" + runs.map { "\($0.string.utf8.count):\($0.identity)" }.joined(separator: ";")
    let text = (string.utf8.count <= 256 ? string.debugDescription : "\(string.utf8.count) bytes #\(string.hashValue)") + attributes
    return "text:\(style.font)|\(style.size)|\(style.color.hexString)|\(style.width ?? 0)|\(style.alignment.rawValue)|"
      + "\(style.lineSpacing)|\(style.weight.rawValue)|\(style.italic)|\(fontFiles.joined(separator: ","))|\(layout.size.width)x\(layout.size.height):\(text)"
  }

  public func outputInfo(inputs: [ImageInfo]) -> ImageInfo {
    ImageInfo(size: layout.size, layout: .rgba, component: .uint8, colorSpace: .sRGB)
  }

  /// Nothing: the text is a raster the renderer asks for when a tile reads it (`rasterize`).
  public func decodePixels() throws -> PixelBuffer? { nil }

  /// The raster (`TextLayout.render`: the alpha alone, or RGBA), and warnings: a font family
  /// that is not installed, glyphs FreeType could not draw.
  public func rasterize() throws -> (pixels: PixelBuffer, warnings: [String]) {
    let (pixels, failed) = try layout.render()
    var warnings = layout.warning.map { ["text: \($0)"] } ?? []
    if failed > 0 { warnings.append("text: \(failed) glyph\(failed == 1 ? "" : "s") could not be drawn (FreeType refused them)") }
    return (pixels, warnings)
  }

  /// `tile.rect` of the text from its raster: the colour (linear light) times the alpha, or the
  /// RGBA raster's pixels; on the sRGB curve for an encoded tile.
  public func fill(_ tile: inout Tile, space: WorkingSpace, from raster: PixelBuffer) {
    let rect = tile.rect
    let part = raster.cropped(to: rect)
    guard raster.format == TextLayout.alphaFormat else {
      tile.withMutablePixels { TileConversion.load(part, into: $0, space: space) }
      return
    }
    let c = layout.linearColor
    part.withUnsafePixels(as: Float.self) { alpha in
      tile.withMutablePixels { px in
        for y in 0..<px.height {
          let a = alpha[row: y], row = px[row: y]
          for x in 0..<px.width { row[x] = SIMD4(c.x * a[x], c.y * a[x], c.z * a[x], a[x]) }
          if space == .encoded { SRGBCurve.encodeRow(row, count: px.width) }
        }
      }
    }
  }

  /// The tile from a raster made for it alone (the renderer makes one per render instead).
  public func fill(_ tile: inout Tile, space: WorkingSpace) throws {
    fill(&tile, space: space, from: try rasterize().pixels)
  }
}

extension Image {
  /// `string` set in a font: an image with alpha just large enough for the text (see
  /// TextSource.swift), to lay over another with `composited(over:)`.
  ///
  /// ```swift
  /// let credit = try Image(text: "© 2026 A. Photographer", font: "DejaVu Sans", size: 24, color: .white)
  /// let marked = credit.composited(over: photo, gravity: .southEast, margin: 24)
  /// ```
  ///
  /// - Throws: `CodecError` when no font is installed (the message names the package to
  ///   install), the font file is missing or not a font, the text is not valid UTF-8 or would
  ///   be larger than 65535 pixels a side or 16 MP.
  public init(
    text: String, font: String = "sans-serif", size: Double, color: Color = .black, width: Double? = nil,
    alignment: TextAlignment = .left, lineSpacing: Double = 1, weight: FontWeight = .regular, italic: Bool = false
  ) throws {
    let style = TextStyle(
      font: font, size: size, color: color, width: width, alignment: alignment, lineSpacing: lineSpacing, weight: weight,
      italic: italic)
    try self.init(text: text, style: style)
  }

  /// `text` set in `style`.
  public init(text: String, style: TextStyle) throws {
    self.init(node: ImageNode(operation: try TextSourceOperation(string: text, style: style), inputs: []))
  }

  /// An attributed string: its runs set as one text in `style`, each run's own font, size,
  /// colour, weight or slant over it (TextRun.swift). Lines wrap, align and justify across runs.
  ///
  /// ```swift
  /// let title = try Image(
  ///   attributedText: [TextRun("Roses ", weight: .bold), TextRun("of the Summer Garden", color: Color(white: 0.8), italic: true)],
  ///   style: TextStyle(font: "DejaVu Sans", size: 48, color: .white))
  /// ```
  ///
  /// - Throws: as `init(text:font:size:…)` does, for any run's font.
  public init(attributedText runs: [TextRun], style: TextStyle) throws {
    self.init(node: ImageNode(operation: try TextSourceOperation(runs: runs, style: style), inputs: []))
  }
}
