// TextRun.swift — the runs of an attributed string: text with its own font, size, colour,
// weight or slant over the text's style.
//
// An attributed text is set as one text (TextLayout): one bidi pass, one line-breaking pass and
// one layout over all its runs; a run boundary only starts a new shaping run (HarfBuzz shapes
// each with the text around it as context). A line is as tall as the largest ascent and descent
// of its runs' fonts, and its runs share its baseline.

import PixelBufferModule

/// A run of an attributed string: its text, and what it sets differently from the style of the
/// text it is part of (nil: the style's).
public struct TextRun: Hashable, Sendable {
  /// The run's text.
  public var string: String
  /// A fontconfig family or a font file's path.
  public var font: String?
  /// The em size in pixels.
  public var size: Double?
  /// The colour (colour glyphs keep theirs and take only its alpha).
  public var color: Color?
  /// The weight fontconfig looks for.
  public var weight: FontWeight?
  /// True for an italic (or oblique) face, false for an upright one.
  public var italic: Bool?

  /// Creates a run; the settings left nil are the text's style's.
  public init(
    _ string: String, font: String? = nil, size: Double? = nil, color: Color? = nil, weight: FontWeight? = nil,
    italic: Bool? = nil
  ) {
    self.string = string
    self.font = font
    self.size = size
    self.color = color
    self.weight = weight
    self.italic = italic
  }

  /// The run's settings that differ from its text's style, as a cache key part ("" for none).
  var identity: String {
    [font.map { "font=\($0)" }, size.map { "size=\($0)" }, color.map { "color=\($0.hexString)" },
     weight.map { "weight=\($0)" }, italic.map { "italic=\($0)" }].compactMap { $0 }.joined(separator: ",")
  }
}

extension TextStyle {
  /// This style with `run`'s own settings over it.
  func applying(_ run: TextRun) -> TextStyle {
    var style = self
    if let font = run.font { style.font = font }
    if let size = run.size { style.size = size }
    if let color = run.color { style.color = color }
    if let weight = run.weight { style.weight = weight }
    if let italic = run.italic { style.italic = italic }
    return style
  }
}
