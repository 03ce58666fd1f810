// ServerResources.swift — what the server loads once at start and every request may use: the
// watermark image and the recipe folder's recipes (parsed and checked at start, so a broken
// recipe stops the server from starting instead of failing requests).

import Foundation
import FilterGraph

/// The watermark and recipes, shared by all requests.
struct ServerResources: Sendable {
  /// The watermark (header read; decoded once, then kept by the renderer's decode cache).
  let watermark: Image?
  /// Recipes by name (file name without `.txt`).
  let recipes: [String: Recipe]
  /// The folder recipe paths are relative to.
  let recipesDirectory: URL?

  /// Loads the watermark's header and parses every `*.txt` recipe of `recipesDirectory`.
  ///
  /// - Throws: the codec's or the recipe's error, naming the file.
  init(watermarkFile: URL?, recipesDirectory: URL?) throws {
    watermark = try watermarkFile.map { try Image(contentsOf: $0) }
    self.recipesDirectory = recipesDirectory
    var recipes: [String: Recipe] = [:]
    if let recipesDirectory {
      let files = try FileManager.default.contentsOfDirectory(at: recipesDirectory, includingPropertiesForKeys: nil)
      for file in files where file.pathExtension == "txt" {
        let recipe = try Recipe.load(contentsOf: file)
        try recipe.check()
        recipes[file.deletingPathExtension().lastPathComponent] = recipe
      }
    }
    self.recipes = recipes
  }

  /// `image` with the recipe `name` applied.
  ///
  /// - Throws: 400 when there is no such recipe; the recipe's error (a 500: it was checked at start).
  func apply(recipe name: String, to image: Image) throws -> Image {
    guard let recipe = recipes[name], let directory = recipesDirectory else {
      throw ServerError.badURL("Option 'recipe': there is no recipe '\(name)' on this server.")
    }
    return try recipe.compile(input: image, context: FilterContext(baseDirectory: directory))
  }
}
