// Recipe.swift — recipe:NAME[:NAME…], our own option: the recipes NAME.txt of the server's recipe
// folder (`--recipes`) applied in order, after the sharpen and before padding, compiled by the
// same RecipeCompiler `fgrun run` uses.

import FilterGraph

/// The recipe step.
struct RecipeStep: ImageStep {
  static let stage = Stage.recipe
  var names: [String]

  func apply(to image: Image, context: StepContext) throws -> Image {
    try names.reduce(image) { image, name in try context.resources.apply(recipe: name, to: image) }
  }
}

extension URLOption {
  static let recipe = URLOption(
    names: ["recipe"], arguments: "%name:%name…", summary: "Apply recipes NAME.txt from the server's recipe folder (ours, not imgproxy's)."
  ) { args, options in
    guard args.has(0) else { throw args.fail("needs a recipe name") }
    let names = args.values.map(String.init)
    for name in names where name.isEmpty || !name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) {
      throw args.fail("recipe name '\(name.prefix(40))' may hold only letters, digits, - and _")
    }
    options.set(RecipeStep(names: names))
  }
}
