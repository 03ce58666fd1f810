// RecipeCompiler+Measures.swift — a source verb's percentages need the image they are of.
//
// A source (`text`) measures one image only for its percentages (`size=2%` is 2 % of that image's
// height). The image must be named with `of=`: the chain's previous image is not taken silently,
// since that could be any intermediate result (a crop, a blur) rather than the photo meant.

extension Recipe {
  /// Throws at the first percentage among `given` (a source verb's arguments with no `of=`).
  func refusePercentages(_ statement: Statement, given: [String: ParameterValue]) throws {
    for case .keyed(let key, let value) in statement.arguments {
      guard case .percent = given[key.text] else { continue }
      throw error(
        value.location,
        "\(key.text)=\(value.text) is a percentage of another image, and \(statement.verb.text) names none; "
          + "add of=NAME (of=input for the recipe's input image) or give pixels")
    }
  }
}
