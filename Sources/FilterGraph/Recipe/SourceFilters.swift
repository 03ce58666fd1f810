// SourceFilters.swift — the recipe verbs that make images from nothing: `load` and `solid`.

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

  /// Every source verb.
  public static var all: [FilterDefinition] { [load, solid] }
}
