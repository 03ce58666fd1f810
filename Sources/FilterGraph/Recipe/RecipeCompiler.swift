// RecipeCompiler.swift — turns a parsed recipe into the Image graph, through FilterDefinition.apply.
//
// Two steps. `resolve` (run by both `check` and `compile`) looks every filter and parameter up,
// reads and range-checks every value, fills defaults, and resolves every image name: undefined
// names, names used before their definition, self-references and cycles are reported here,
// before any file is opened. `compile` then calls each statement's `apply` in order — the very
// methods the Swift API offers, so a recipe and Swift code build the same graph. Only `load`
// touches the disk, and only to read a header.

import Foundation
import ImageCodecs

extension Recipe {
  /// Where a statement's input image comes from.
  enum ImageReference: Hashable {
    /// The image the recipe is applied to.
    case input
    /// The result of statement `index`.
    case statement(Int)
  }

  /// A statement ready to apply: its filter, its input images and its complete arguments.
  struct ResolvedStatement {
    /// The filter, or nil for an alias (`base = input`), whose result is `inputs[0]`.
    var definition: FilterDefinition?
    /// `descriptor.inputCount` images: the positional inputs, then one per `.image` parameter
    /// in table order (image parameters are required).
    var inputs: [ImageReference]
    /// Every parameter with a default, and those without a default that were given.
    var arguments: Arguments

    /// True when input `position` is only measured, not drawn: a source verb's chain image.
    func measuresOnly(_ position: Int) -> Bool {
      position == 0 && definition?.descriptor.category == .source
    }
  }

  /// Checks the recipe against `filters` without opening any file: unknown filters or
  /// parameters, bad values, undefined names, forward references and cycles.
  ///
  /// - Throws: `RecipeError` pointing at the first mistake.
  public func check(filters: [FilterDefinition] = FilterRegistry.all) throws {
    _ = try resolve(filters: filters)
  }

  /// Builds the image the recipe describes, applied to `input`.
  ///
  /// Every statement's filter is applied in order with its checked arguments; nothing is decoded
  /// (`load` reads its file's header). The result is the statement named `output`, or the last.
  ///
  /// - Parameters:
  ///   - input: The image the name `input` (and the first chain line) refers to.
  ///   - context: The folder relative paths are resolved against, and how `load` reads files.
  ///   - filters: The filters the recipe may use (default: every registered one).
  /// - Throws: `RecipeError` for any mistake in the recipe, and for errors a filter's `apply`
  ///   throws (kept in `underlying`: a `CodecError` when a loaded file is missing or bad).
  public func compile(input: Image, context: FilterContext, filters: [FilterDefinition] = FilterRegistry.all) throws -> Image {
    try build(input: input, context: context, filters: filters)
  }

  /// Builds the image of a recipe that makes its image from nothing (it starts with `solid`,
  /// `load` or `text` and never names `input`; see `needsInput`).
  ///
  /// - Throws: `RecipeError` at the first line that uses `input`, and as `compile(input:…)` does.
  public func compile(context: FilterContext, filters: [FilterDefinition] = FilterRegistry.all) throws -> Image {
    try build(input: nil, context: context, filters: filters)
  }

  /// True when the recipe's result depends on the image it is applied to. False for a recipe
  /// that makes its image from nothing: its first line is a source (`solid`, `load`, `text`),
  /// and no line its result depends on names `input`. A `text` line's chain image is only
  /// measured (for percentage sizes), so it does not count.
  ///
  /// - Throws: `RecipeError` as `check` does.
  public func needsInput(filters: [FilterDefinition] = FilterRegistry.all) throws -> Bool {
    let (resolved, result) = try resolve(filters: filters)
    var pending = [result], seen = Set<Int>()
    while let index = pending.popLast() {
      guard seen.insert(index).inserted else { continue }
      let step = resolved[index]
      for (position, reference) in step.inputs.enumerated() {
        switch reference {
        case .input where step.measuresOnly(position): continue
        case .input: return true
        case .statement(let i): pending.append(i)
        }
      }
    }
    return false
  }

  private func build(input: Image?, context: FilterContext, filters: [FilterDefinition]) throws -> Image {
    let (resolved, result) = try resolve(filters: filters)
    var images: [Image] = []
    images.reserveCapacity(resolved.count)
    for (index, step) in resolved.enumerated() {
      var stepContext = context
      let inputs = try step.inputs.enumerated().map { position, reference -> Image in
        switch reference {
        case .statement(let i): return images[i]
        case .input:
          if let input { return input }
          guard step.measuresOnly(position) else {
            throw error(
              statements[index].verb.location,
              "this line uses the image 'input', and none was given; give an INPUT, or start the recipe with solid, load or text")
          }
          stepContext.measuredImageIsAbsent = true
          return Image(color: .clear, size: Size(width: 1, height: 1))
        }
      }
      guard let definition = step.definition else {
        images.append(inputs[0])
        continue
      }
      do {
        images.append(try definition.apply(inputs, step.arguments, stepContext))
      } catch {
        throw wrap(error, statement: statements[index], definition: definition)
      }
    }
    return images[result]
  }

  /// A filter's error, reported at its line: at the path for file errors, else at the verb.
  private func wrap(_ error: Error, statement: Statement, definition: FilterDefinition) -> RecipeError {
    if let recipeError = error as? RecipeError { return recipeError }
    let name = definition.descriptor.name
    var location = statement.verb.location
    let text: String
    if let codec = error as? CodecError {
      text = codec.message
      let pathKeys = Set(definition.descriptor.parameters.filter { $0.kind == .path }.map(\.name))
      for argument in statement.arguments {
        switch argument {
        case .keyed(let key, let value) where pathKeys.contains(key.text): location = value.location
        case .bare(let value) where !pathKeys.isEmpty && definition.descriptor.parameters.first?.kind == .path:
          location = value.location
        default: break
        }
      }
    } else if let filterError = error as? FilterError {
      text = filterError.message
    } else {
      text = String(describing: error)
    }
    return self.error(location, "\(name): \(text)", underlying: error)
  }

  /// Looks up, checks and resolves every statement; returns them and the result's index.
  func resolve(filters: [FilterDefinition]) throws -> ([ResolvedStatement], Int) {
    if statements.count > Recipe.maxStatements {
      throw error(
        statements[Recipe.maxStatements].verb.location,
        "a recipe holds at most \(Recipe.maxStatements) statements; split the work into several recipes")
    }
    var byName: [String: FilterDefinition] = [:]
    for f in filters where byName[f.descriptor.name] == nil { byName[f.descriptor.name] = f }
    let filterNames = filters.map(\.descriptor.name)

    var definedAt: [String: Int] = [:]
    for (i, s) in statements.enumerated() { if let n = s.name?.text { definedAt[n] = i } }
    func isImageName(_ token: RecipeToken) -> Bool {
      !token.isQuoted && (token.text == Recipe.inputName || definedAt[token.text] != nil)
    }

    var resolved: [ResolvedStatement] = []
    for (index, statement) in statements.enumerated() {
      let previous: ImageReference = index == 0 ? .input : .statement(index - 1)
      let ownName = statement.name?.text

      func reference(_ token: RecipeToken) throws -> ImageReference {
        if token.isQuoted {
          throw error(token.location, "expected an image name, found the string \(token.description)")
        }
        let name = token.text
        if name == Recipe.inputName { return .input }
        if let j = definedAt[name], j < index { return .statement(j) }
        if name == ownName {
          throw error(token.location, "'\(name)' refers to itself; a statement can only use images defined above it")
        }
        if let j = definedAt[name] {
          if let ownName, let path = cyclePath(from: j, to: ownName, definedAt: definedAt) {
            let chain = ([ownName] + path).map { "'\($0)'" }.joined(separator: " uses ")
            throw error(token.location, "cycle: \(chain); a recipe cannot use its own result")
          }
          throw error(
            token.location,
            "'\(name)' is used before it is defined on line \(statements[j].line); move its definition above this line")
        }
        let known = [Recipe.inputName] + statements[..<index].compactMap { $0.name?.text }
        throw error(token.location, "undefined image name '\(name)'\(RecipeError.didYouMean(name, known))")
      }

      if let ownName, byName[ownName] != nil {
        throw error(statement.name!.location, "'\(ownName)' is the name of a filter; choose another name for this image")
      }

      // `NAME = OTHER` (or a bare `OTHER` line): an alias.
      if statement.arguments.isEmpty, byName[statement.verb.text] == nil, isImageName(statement.verb) {
        resolved.append(ResolvedStatement(definition: nil, inputs: [try reference(statement.verb)], arguments: Arguments()))
        continue
      }
      guard let definition = byName[statement.verb.text] else {
        let verb = statement.verb.text
        if isImageName(statement.verb) {
          throw error(
            statement.verb.location,
            "'\(verb)' names an image, not a filter; write 'NAME = \(verb)' to copy it, or 'blur of=\(verb)' to filter it")
        }
        let hint = RecipeSynonyms.hint(forVerb: verb) ?? RecipeError.didYouMean(verb, filterNames)
        throw error(statement.verb.location, "unknown filter '\(verb)'\(hint)")
      }
      resolved.append(try resolveCall(
        statement, definition: definition, previous: previous, isImageName: isImageName, reference: reference))
    }
    let result = statements.lastIndex { $0.name?.text == Recipe.outputName } ?? statements.count - 1
    return (resolved, result)
  }

  /// Resolves one filter call's arguments and inputs.
  private func resolveCall(
    _ statement: Statement, definition: FilterDefinition, previous: ImageReference,
    isImageName: (RecipeToken) -> Bool, reference: (RecipeToken) throws -> ImageReference
  ) throws -> ResolvedStatement {
    let descriptor = definition.descriptor
    let verb = descriptor.name
    let parameters = descriptor.parameters
    let imageParameters = parameters.filter { $0.kind == .image }
    let takesImages = descriptor.inputCount > 0 || !imageParameters.isEmpty
    let firstValueParameter = parameters.first { $0.kind != .image }
    var given: [String: ParameterValue] = [:]
    var imageArguments: [String: ImageReference] = [:]
    var ofInput: ImageReference?
    var ofToken: RecipeToken?
    var positional: [(token: RecipeToken, reference: ImageReference)] = []
    var usedBareValue = false

    func parameterList() -> String {
      parameters.isEmpty ? "\(verb) takes no parameters" : "\(verb) takes " + parameters.map(\.name).joined(separator: ", ")
    }
    func read(_ token: RecipeToken, as spec: ParameterSpec) throws -> ParameterValue {
      do {
        return try RecipeValues.parse(token, as: spec)
      } catch let problem as ValueProblem {
        throw error(token.location, problem.message)
      }
    }

    for argument in statement.arguments {
      switch argument {
      case .keyed(let key, let value):
        if key.text == "of", descriptor.parameter(named: "of") == nil {
          guard descriptor.inputCount > 0 else {
            throw error(key.location, "\(verb) makes an image from nothing and takes no input; remove 'of='")
          }
          guard ofInput == nil else { throw error(key.location, "'of' is given twice") }
          ofInput = try reference(value)
          ofToken = value
          continue
        }
        guard let spec = descriptor.parameter(named: key.text) else {
          var candidates = parameters.map(\.name)
          if descriptor.inputCount > 0 { candidates.append("of") }
          let hint = RecipeSynonyms.hint(forParameter: key.text, of: verb) ?? RecipeError.didYouMean(key.text, candidates)
          throw error(key.location, "unknown parameter '\(key.text)' for \(verb)\(hint.isEmpty ? "; " + parameterList() : hint)")
        }
        guard given[spec.name] == nil else {
          throw error(key.location, "'\(spec.name)' is given twice")
        }
        if spec.kind == .image {
          imageArguments[spec.name] = try reference(value)
          given[spec.name] = .image(value.text)
        } else {
          given[spec.name] = try read(value, as: spec)
        }

      case .bare(let token):
        if takesImages, isImageName(token) {
          positional.append((token, try reference(token)))
          continue
        }
        let undefinedName: String? = {
          guard takesImages, !token.isQuoted, Recipe.isName(token.text) else { return nil }
          let known = [Recipe.inputName] + Array(statements.compactMap { $0.name?.text })
          return RecipeError.suggestion(for: token.text, among: known)
        }()
        guard !usedBareValue, let spec = firstValueParameter, given[spec.name] == nil else {
          if takesImages, !token.isQuoted, Recipe.isName(token.text) {
            let hint = undefinedName.map { "; did you mean '\($0)'?" } ?? ""
            throw error(token.location, "undefined image name '\(token.text)'\(hint)")
          }
          throw error(token.location, "unexpected '\(token.description)'; expected key=value (\(parameterList()))")
        }
        do {
          given[spec.name] = try RecipeValues.parse(token, as: spec)
        } catch let problem as ValueProblem {
          if let undefinedName {
            throw error(token.location, "undefined image name '\(token.text)'; did you mean '\(undefinedName)'?")
          }
          throw error(token.location, problem.message)
        }
        usedBareValue = true
      }
    }

    // `inputCount` counts every image `apply` receives; the `.image` parameters take the last
    // ones, so the positional inputs are the rest. `of=` comes first, then bare names; when the
    // first one is missing, the previous result takes its place.
    let count = max(0, descriptor.inputCount - imageParameters.count)
    let measuredAgainst = try measuredReference(
      of: &ofInput, token: ofToken, namedInput: !positional.isEmpty, previous: previous, given: given, descriptor: descriptor)
    var inputs: [ImageReference] = ofInput.map { [$0] } ?? []
    var rest = positional[...]
    while inputs.count < count, let next = rest.first {
      inputs.append(next.reference)
      rest = rest.dropFirst()
    }
    for spec in imageParameters where given[spec.name] == nil {
      guard let next = rest.first else { break }
      imageArguments[spec.name] = next.reference
      given[spec.name] = .image(next.token.text)
      rest = rest.dropFirst()
    }
    if let extra = rest.first {
      let takes = count == 1 ? "one input image" : "\(count) input images"
      throw error(extra.token.location, "\(verb) takes \(takes); '\(extra.token.text)' is one too many")
    }
    if inputs.count == count - 1, ofInput == nil {
      if descriptor.category == .source { try refusePercentages(statement, given: given) }
      inputs.insert(previous, at: 0)
    } else if inputs.count < count {
      throw error(
        statement.verb.location,
        "\(verb) takes \(count) input images, \(inputs.count) given; name them after the filter: \(verb) A B")
    }
    for spec in imageParameters {
      guard let r = imageArguments[spec.name] else {
        throw error(statement.verb.location, "\(verb) needs \(spec.name)=IMAGE (\(spec.help.lowercasingFirst))")
      }
      inputs.append(r)
    }
    if let measuredAgainst { inputs.append(measuredAgainst) }

    for spec in parameters where spec.isRequired && given[spec.name] == nil {
      let example = descriptor.example.isEmpty ? "" : "; for example '\(descriptor.example)'"
      throw error(
        statement.verb.location,
        "\(verb) needs \(spec.name)= (\(spec.typeName)): \(spec.help.lowercasingFirst)\(example)")
    }

    var values: [(String, ParameterValue)] = []
    for spec in parameters {
      if let v = given[spec.name] {
        values.append((spec.name, v))
      } else if let d = spec.defaultValue {
        values.append((spec.name, d))
      }
    }
    return ResolvedStatement(definition: definition, inputs: inputs, arguments: Arguments(values))
  }

  /// The names leading from statement `start` back to `target` through image references, if any.
  private func cyclePath(from start: Int, to target: String, definedAt: [String: Int]) -> [String]? {
    var visited: Set<Int> = []
    func words(_ s: Statement) -> [String] {
      var out = [s.verb.text]
      for a in s.arguments {
        switch a {
        case .keyed(_, let v) where !v.isQuoted: out.append(v.text)
        case .bare(let v) where !v.isQuoted: out.append(v.text)
        default: break
        }
      }
      return out
    }
    func search(_ i: Int) -> [String]? {
      guard visited.insert(i).inserted, let name = statements[i].name?.text else { return nil }
      for w in words(statements[i]) {
        if w == target { return [name, target] }
        if let j = definedAt[w], let rest = search(j) { return [name] + rest }
      }
      return nil
    }
    return search(start)
  }
}

extension String {
  /// The string with its first letter lowercased and a final period dropped (for help quoted mid-sentence).
  var lowercasingFirst: String {
    var text = self
    if text.hasSuffix(".") { text.removeLast() }
    guard let first = text.first else { return text }
    return first.lowercased() + text.dropFirst()
  }
}
