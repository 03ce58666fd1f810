// Recipe+Files.swift — the files a recipe reads: every path-valued argument (`load path=`, a
// font file, a watermark), resolved as `compile` resolves it, so a caller can keep its outputs
// from replacing them.

import Foundation

extension Recipe {
  /// The files the recipe's path-valued arguments name, resolved against `context` as `compile`
  /// resolves them; nothing is opened. A path that names no file (a font family, say) is listed
  /// too: callers ask the file system what each one is.
  ///
  /// - Throws: `RecipeError` for a recipe `check` refuses.
  public func referencedFiles(context: FilterContext, filters: [FilterDefinition] = FilterRegistry.all) throws -> [URL] {
    let (resolved, _) = try resolve(filters: filters)
    return resolved.flatMap { step in
      step.arguments.values.compactMap { argument -> URL? in
        if case .path(let path) = argument.1 { return context.resolve(path) }
        return nil
      }
    }
  }
}
