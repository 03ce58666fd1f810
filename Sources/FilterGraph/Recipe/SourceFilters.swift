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
  public static let load = FilterDefinition(EncodedSourceOperation.table) { _, args, context in
    var options = context.loadOptions
    for (name, value) in FormatOptionValues(decodeArguments: args.values).values { options.formatOptions[name] = value }
    return try Image(contentsOf: context.resolve(args[EncodedSourceOperation.path]), options: options)
  }

  /// `solid color=C size=WxH`: a rectangle of one colour.
  public static let solid = FilterDefinition(ColorSourceOperation.table) { _, args, _ in
    Image(color: args[ColorSourceOperation.color], size: args[ColorSourceOperation.size])
  }

  /// `text string=S [font=] size=N|P% [of=IMAGE] [color=] [width=] [align=] [line-spacing=] [dpi=]
  /// [weight=] [style=]` (TextSource.swift). The input image is only measured: sizes below 1
  /// (percentages) are fractions of its height (size=) or width (width=).
  public static let text = FilterDefinition(TextSourceOperation.table) { inputs, args, context in
    typealias Text = TextSourceOperation
    let reference = inputs[0].size
    var size = args[Text.size]
    if context.measuredImageIsAbsent, size < 1 || args.given(Text.width).map({ $0 < 1 }) == true {
      throw FilterError(
        "percentages of size= and width= are of the of= image, and this recipe has no input image; give pixels, of=NAME, or an INPUT")
    }
    if size < 1 { size *= Double(reference.height) } else if let dpi = args.given(Text.dpi) { size *= dpi / 72 }
    let width = args.given(Text.width).map { $0 < 1 ? $0 * Double(reference.width) : $0 }
    var font = args[Text.font]
    let style = TextStyle(font: font, size: size, color: .black)
    if style.fontIsFile { font = context.resolve(font).path }
    let string = args[Text.string].replacingOccurrences(of: "\\n", with: "\n")
    return try Image(
      text: string, font: font, size: max(size, 1), color: args[Text.color], width: width, alignment: args[Text.align],
      lineSpacing: args[Text.lineSpacing], weight: args[Text.weight], italic: args[Text.fontStyle] == "italic")
  }

  /// Every source verb.
  public static var all: [FilterDefinition] { [load, solid, text] }
}
