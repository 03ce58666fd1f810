// RecipeCompiler+Measures.swift — percentages need the image they are of.
//
// A source (`text`) measures one image only for its percentages (`size=2%` is 2 % of that image's
// height). The image must be named with `of=`: the chain's previous image is not taken silently,
// since that could be any intermediate result (a crop, a blur) rather than the photo meant.
// A filter that `measuresAgainstReference` (`scale`) reads `of=` as that reference when its input
// is named before it (`scale logo width=15% of=photo`); alone, `of=` is the input and the
// reference both. A percentage with `of=` alone on a later line is refused as ambiguous: the
// previous result would be dropped while it was probably the image meant.

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

  /// The reference image a `measuresAgainstReference` filter's percentages are of, when `of=`
  /// names it beside a named input (`ofInput` is then cleared: it is not the input); nil otherwise.
  func measuredReference(
    of ofInput: inout ImageReference?, token: RecipeToken?, namedInput: Bool, previous: ImageReference,
    given: [String: ParameterValue], descriptor: OperationDescriptor
  ) throws -> ImageReference? {
    guard descriptor.measuresAgainstReference, let of = ofInput, let token else { return nil }
    if namedInput {
      ofInput = nil
      return of
    }
    if of != previous, given.values.contains(where: { if case .percent = $0 { true } else { false } }) {
      let verb = descriptor.name
      throw error(
        token.location,
        "of=\(token.text) alone makes \(token.text) the input and leaves the previous result unused; write '\(verb) IMAGE … of=\(token.text)' "
          + "to measure IMAGE's percentages against \(token.text), or '\(verb) \(token.text) …' to work on \(token.text) itself")
    }
    return nil
  }
}
