// SourceFilters.swift — the recipe verbs that make images from nothing: `load` and `solid`.

import Foundation
import ImageCodecs
import PixelBufferModule

/// Recipe verbs with no input image.
public enum SourceFilters {
  /// `load path=FILE [page=N …]`: an image file of any registered format, relative paths resolved
  /// against the recipe's folder (`FilterContext.baseDirectory`), with the codecs' decode options. Reads the header only; a missing, unreadable or
  /// unsupported file is an error at the recipe line, before any pixel is decoded.
  public static let load = FilterDefinition(EncodedSourceOperation.table) { _, args, context in
    guard let path = args.path("path"), !path.isEmpty else {
      throw FilterError("load needs a file: write 'load path=FILE' or 'load FILE'.")
    }
    var options = context.loadOptions
    for (name, value) in FormatOptionValues(decodeArguments: args).values { options.formatOptions[name] = value }
    return try Image(contentsOf: context.resolve(path), options: options)
  }

  /// `solid color=C size=WxH`: a rectangle of one colour.
  public static let solid = FilterDefinition(ColorSourceOperation.table) { _, args, _ in
    guard let size = args.size("size") else {
      throw FilterError("solid needs a size: write 'solid size=WIDTHxHEIGHT'.")
    }
    return Image(color: args.color("color"), size: size)
  }

  /// Every source verb.
  public static var all: [FilterDefinition] { [load, solid] }
}
