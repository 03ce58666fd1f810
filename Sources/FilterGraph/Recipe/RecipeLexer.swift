// RecipeLexer.swift — splits recipe text into statements of tokens (words, quoted strings, `=`).
//
// Lines end statements, and so does `;`. A `#` starts a comment at the start of a line, or after
// a blank unless it begins a colour (`#F80`, `#FF8000`, `#FF800080`); comments run to the end of
// the physical line. Quoted strings keep blanks, `=`, `;` and `#` and understand `\"` and `\\`.

/// One word of a recipe, where it was written.
public struct RecipeToken: Hashable, Sendable, CustomStringConvertible {
  /// The text, without quotes and with escapes undone for quoted strings.
  public var text: String
  /// Where the token (including any quotes) lies.
  public var location: SourceLocation
  /// True for a quoted string: never a name, a key or a filter, always a value.
  public var isQuoted: Bool

  /// Creates a token.
  public init(text: String, location: SourceLocation, isQuoted: Bool = false) {
    self.text = text
    self.location = location
    self.isQuoted = isQuoted
  }

  /// The text as written (quoted strings in quotes).
  public var description: String { isQuoted ? "\"\(text)\"" : text }
}

/// The lexer's output: one entry per statement.
struct LexedStatement {
  enum Piece {
    case word(RecipeToken)
    case equals(SourceLocation)
  }
  var pieces: [Piece]
  var line: Int
}

enum RecipeLexer {
  /// Splits `text` into statements; `lines` receives the physical lines for diagnostics.
  static func lex(_ text: String, file: String?, lines: inout [String]) throws -> [LexedStatement] {
    var body = Substring(text)
    if body.hasPrefix("\u{FEFF}") { body = body.dropFirst() }
    // "\r\n" is one Character in Swift: split on every newline character.
    lines = body.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
    var statements: [LexedStatement] = []
    for (index, line) in lines.enumerated() {
      try lexLine(Array(line), number: index + 1, file: file, source: line, into: &statements)
    }
    return statements
  }

  private static func lexLine(
    _ chars: [Character], number: Int, file: String?, source: String, into statements: inout [LexedStatement]
  ) throws {
    var current = LexedStatement(pieces: [], line: number)
    func finish() {
      if !current.pieces.isEmpty { statements.append(current) }
      current = LexedStatement(pieces: [], line: number)
    }
    var i = 0
    let n = chars.count
    func isBlank(_ c: Character) -> Bool { c == " " || c == "\t" }
    func isHexColorAt(_ start: Int) -> Bool {
      var j = start + 1
      while j < n, chars[j].isHexDigit { j += 1 }
      let digits = j - start - 1
      let ends = j == n || isBlank(chars[j]) || chars[j] == ";"
      return ends && [3, 4, 6, 8].contains(digits)
    }
    while i < n {
      let c = chars[i]
      if isBlank(c) {
        i += 1
        continue
      }
      if c == "#" {
        let atLineStart = chars[..<i].allSatisfy(isBlank)
        let afterBlank = i == 0 || isBlank(chars[i - 1]) || chars[i - 1] == ";"
        if atLineStart || (afterBlank && !isHexColorAt(i)) { break }
      }
      if c == ";" {
        finish()
        i += 1
        continue
      }
      if c == "=" {
        current.pieces.append(.equals(SourceLocation(line: number, column: i + 1)))
        i += 1
        continue
      }
      if c == "\"" {
        let start = i
        var text = ""
        i += 1
        var closed = false
        while i < n {
          let d = chars[i]
          if d == "\\", i + 1 < n, chars[i + 1] == "\"" || chars[i + 1] == "\\" {
            text.append(chars[i + 1])
            i += 2
            continue
          }
          if d == "\"" {
            closed = true
            i += 1
            break
          }
          text.append(d)
          i += 1
        }
        guard closed else {
          throw RecipeError(
            file: file, location: SourceLocation(line: number, column: start + 1, length: n - start),
            sourceLine: source, message: "unterminated quoted string; expected a closing '\"' on the same line")
        }
        current.pieces.append(.word(RecipeToken(
          text: text, location: SourceLocation(line: number, column: start + 1, length: i - start), isQuoted: true)))
        continue
      }
      let start = i
      while i < n, !isBlank(chars[i]), chars[i] != "=", chars[i] != ";", chars[i] != "\"" { i += 1 }
      current.pieces.append(.word(RecipeToken(
        text: String(chars[start..<i]), location: SourceLocation(line: number, column: start + 1, length: i - start))))
    }
    finish()
  }
}
