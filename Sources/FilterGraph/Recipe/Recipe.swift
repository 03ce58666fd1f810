// Recipe.swift — a parsed plain-text recipe (grammar: docs/Recipes.md).
//
// A recipe is a list of statements, one a line (or separated by `;`):
//
//     scale fit=800x800                 a chain: each line filters the previous line's result
//     soft = blur sigma=3 of=base       a named node; `of=` names the input
//     glow = blend mode=screen soft base    bare names are positional image inputs
//     base = input                      an alias; `input` is the image the recipe is applied to
//
// `parse` checks the syntax and the names' definitions (duplicates, `input` redefined);
// `compile` looks filters and parameters up, checks values, references and cycles, and builds
// the graph by calling each filter's `apply` — the same code the Swift API runs.

import Foundation

/// A parsed recipe: its statements and its source text, ready to compile against an input image.
///
/// ```swift
/// let recipe = try Recipe.parse("scale fit=800x800\nblur sigma=2", file: "thumb.txt")
/// let image = try recipe.compile(input: try Image(contentsOf: photoURL),
///                                context: FilterContext(baseDirectory: recipeFolder))
/// ```
public struct Recipe: Sendable {
  /// One statement: `[NAME =] VERB ARGUMENT…`, or the alias `NAME = OTHER`.
  public struct Statement: Sendable {
    /// An argument after the verb.
    public enum Argument: Sendable {
      /// `key=value`.
      case keyed(key: RecipeToken, value: RecipeToken)
      /// A bare value: an image name, or the value of the filter's first parameter.
      case bare(RecipeToken)
    }

    /// The name the result is given (`soft` in `soft = blur …`), or nil for a chain line.
    public var name: RecipeToken?
    /// The filter's name, or, for an alias (`base = input`), the name aliased.
    public var verb: RecipeToken
    /// The arguments in the order written.
    public var arguments: [Argument]
    /// The physical line (several statements may share one through `;`).
    public var line: Int
  }

  /// The recipe file's name as given to `parse`, used in error messages.
  public let file: String?
  /// The statements in order.
  public let statements: [Statement]
  /// The physical lines of the text (for error messages).
  public let sourceLines: [String]

  /// The name `input`, reserved for the image the recipe is applied to.
  public static let inputName = "input"
  /// The name whose node is the result (otherwise the last statement's is).
  public static let outputName = "output"
  /// The most statements a recipe may hold: far above any real recipe, low enough that building
  /// its graph stays within `Renderer`'s node limit and takes no noticeable memory.
  public static let maxStatements = 10_000

  /// Parses recipe text. `file` names the text in error messages (nil: `<recipe>`).
  ///
  /// - Throws: `RecipeError` for a syntax error, an empty recipe, a name defined twice, or a
  ///   definition of the reserved name `input`.
  public static func parse(_ text: String, file: String?) throws -> Recipe {
    var lines: [String] = []
    let lexed = try RecipeLexer.lex(text, file: file, lines: &lines)
    func fail(_ location: SourceLocation, _ message: String) -> RecipeError {
      RecipeError(file: file, location: location, sourceLine: lines[location.line - 1], message: message)
    }
    var statements: [Statement] = []
    var definitions: [String: Int] = [:]
    for item in lexed {
      var pieces = item.pieces[...]
      var name: RecipeToken?
      // `NAME = …`
      if pieces.count >= 2, case .word(let first) = pieces[pieces.startIndex],
        case .equals = pieces[pieces.startIndex + 1]
      {
        guard !first.isQuoted, isName(first.text) else {
          throw fail(first.location, "'\(first.description)' cannot be a name; expected letters, digits, '_' or '-', starting with a letter")
        }
        if first.text == inputName {
          throw fail(first.location, "'input' is the image the recipe is applied to and cannot be redefined; choose another name")
        }
        if let earlier = definitions[first.text] {
          throw fail(first.location, "'\(first.text)' is already defined on line \(earlier); each name can be defined once")
        }
        name = first
        pieces = pieces.dropFirst(2)
      }
      guard let head = pieces.first else {
        let loc: SourceLocation
        if case .equals(let l) = item.pieces.last! { loc = l } else { loc = item.pieces.last!.location }
        throw fail(SourceLocation(line: loc.line, column: loc.column + loc.length, length: 1),
                   "expected a filter (or an image name) after '='")
      }
      guard case .word(let verb) = head, !verb.isQuoted, isName(verb.text) else {
        throw fail(head.location, "expected a filter name at the start of a statement, found '\(head.text)'")
      }
      pieces = pieces.dropFirst()
      var arguments: [Statement.Argument] = []
      while let piece = pieces.first {
        pieces = pieces.dropFirst()
        switch piece {
        case .equals(let l):
          throw fail(l, "unexpected '='; expected key=value with a parameter name before '='")
        case .word(let word):
          guard case .equals(let eq)? = pieces.first else {
            arguments.append(.bare(word))
            continue
          }
          pieces = pieces.dropFirst()
          guard !word.isQuoted, isName(word.text) else {
            throw fail(word.location, "'\(word.description)' cannot be a parameter name; expected key=value")
          }
          guard case .word(let value)? = pieces.first else {
            throw fail(SourceLocation(line: eq.line, column: eq.column + 1), "expected a value after '\(word.text)='")
          }
          pieces = pieces.dropFirst()
          arguments.append(.keyed(key: word, value: value))
        }
      }
      if let name { definitions[name.text] = item.line }
      statements.append(Statement(name: name, verb: verb, arguments: arguments, line: item.line))
    }
    guard !statements.isEmpty else {
      throw RecipeError(
        file: file, location: SourceLocation(line: 1, column: 1), sourceLine: lines.first ?? "",
        message: "the recipe is empty; expected at least one filter line such as 'blur sigma=2'")
    }
    return Recipe(file: file, statements: statements, sourceLines: lines)
  }

  /// Reads and parses the recipe file at `url`; errors name the file as `url.path` relative to
  /// the current directory when it lies inside it.
  ///
  /// - Throws: `RecipeError` for recipe mistakes, or the file system's error when unreadable.
  public static func load(contentsOf url: URL) throws -> Recipe {
    let text = try String(contentsOf: url, encoding: .utf8)
    return try parse(text, file: url.relativePath)
  }

  /// True for `letter (letter | digit | _ | -)*`, the shape of names, filters and keys.
  static func isName(_ text: String) -> Bool {
    guard let first = text.unicodeScalars.first, CharacterSet.letters.contains(first) || first == "_" else { return false }
    return text.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-" }
  }

  func error(_ location: SourceLocation, _ message: String, underlying: Error? = nil) -> RecipeError {
    RecipeError(
      file: file, location: location, sourceLine: sourceLines[location.line - 1], message: message,
      underlying: underlying)
  }
}

extension LexedStatement.Piece {
  var location: SourceLocation {
    switch self {
    case .word(let t): return t.location
    case .equals(let l): return l
    }
  }
  var text: String {
    switch self {
    case .word(let t): return t.description
    case .equals: return "="
    }
  }
}
