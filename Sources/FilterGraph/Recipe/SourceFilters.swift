// SourceFilters.swift — the recipe verbs that make images from nothing: `load`, `solid`, `text`.

import Foundation
import ImageCodecs
import PixelBufferModule

/// Recipe verbs with no input image.
public enum SourceFilters {
  /// `load path=FILE [page=N …]`: an image file of any registered format, relative paths resolved
  /// against the recipe's folder (`FilterContext.baseDirectory`), with the codecs' decode options.
  /// Reads the header only; a missing, unreadable or unsupported file is an error at the recipe
  /// line, before any pixel is decoded.
  public static let load = FilterDefinition(EncodedSourceOperation.table, reading: EncodedSourceOperation.Parameters.self) {
    _, p, decodeOptions, context in
    var options = context.loadOptions
    for (name, value) in FormatOptionValues(decodeArguments: decodeOptions).values { options.formatOptions[name] = value }
    return try Image(contentsOf: context.resolve(p.path), options: options)
  }

  /// `solid color=C size=WxH`: a rectangle of one colour.
  public static let solid = FilterDefinition(ColorSourceOperation.table, reading: ColorSourceOperation.Parameters.self) { _, p, _ in
    Image(color: p.color, size: p.size)
  }

  /// `text string=S [font=] size=N|P% [of=IMAGE] [color=] [width=N|P%] [align=] [line-spacing=]
  /// [dpi=] [weight=] [style=]` (TextSource.swift). The of= image is only measured: a percentage
  /// is of its height (size=) or width (width=); the compiler refuses a percentage without of=.
  public static let text = FilterDefinition(TextSourceOperation.table, reading: TextSourceOperation.Parameters.self) {
    inputs, p, context in
    let reference = inputs[0].size
    let percentages = [p.size, p.width].contains { if case .percent = $0 { true } else { false } }
    if context.measuredImageIsAbsent, percentages {
      throw FilterError(
        "percentages of size= and width= are of the of= image, and this recipe has no input image; give pixels, of=NAME, or an INPUT")
    }
    var size: Double
    switch p.size {
    case .pixels(let n): size = Double(n) * (p.dpi ?? 72) / 72
    case .percent(let percent): size = Double(reference.height) * percent / 100
    }
    let width = p.width.map { Double($0.pixels(of: reference.width)) }
    var font = p.font
    if TextStyle(font: font, size: 1).fontIsFile { font = context.resolve(font).path }
    let string = p.string.replacingOccurrences(of: "\\n", with: "\n")
    return try Image(
      text: string, font: font, size: max(size, 1), color: p.color, width: width.map { max($0, 1) },
      alignment: p.align, lineSpacing: p.lineSpacing, weight: p.weight, italic: p.style == "italic")
  }

  /// Every source verb.
  public static var all: [FilterDefinition] { [load, solid, text] }
}
