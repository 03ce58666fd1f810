// RecipeError.swift — a recipe mistake, pointed at: file:line:column, the line, a caret.
//
// Every error a recipe can contain is reported in the compiler's style:
//
//     thumbnail.txt:3:1: error: unknown filter 'blurr'; did you mean 'blur'?
//         blurr sigma=2
//         ^~~~~
//
// and, for typos, with the nearest known name (`RecipeError.suggestion(for:among:)`). A report
// stays short whatever the recipe holds: a word of the message longer than
// `RecipeError.excerptLength` characters is cut to an excerpt, and a long source line is echoed
// only around the offending token.

/// Where a token lies in a recipe's text: 1-based line and column (in characters), and length.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
  /// The physical line, from 1.
  public var line: Int
  /// The column of the token's first character, from 1.
  public var column: Int
  /// The token's length in characters (at least 1 for the caret).
  public var length: Int

  /// Creates a location.
  public init(line: Int, column: Int, length: Int = 1) {
    self.line = line
    self.column = column
    self.length = max(length, 1)
  }

  /// `line:column`.
  public var description: String { "\(line):\(column)" }
}

/// An error in a recipe: what is wrong, where, and what was expected.
///
/// `description` is the complete three-line diagnostic; `message` the first line's text after
/// `error: `. Errors thrown by a filter's `apply` (a `FilterError`, or a `CodecError` from `load`
/// when a file is missing or corrupt) are wrapped with the location of the filter's name and kept
/// in `underlying`, so callers can still tell an input error from a recipe error.
public struct RecipeError: Error, CustomStringConvertible, Sendable {
  /// The recipe file's name as given to `Recipe.parse` (nil for text with no file).
  public var file: String?
  /// Where the offending token is.
  public var location: SourceLocation
  /// The physical source line, as written (for the echo under the message).
  public var sourceLine: String
  /// What is wrong and what was expected, one sentence (no `error:` prefix).
  public var message: String
  /// The error a filter threw, when this wraps one.
  public var underlying: Error?

  /// Creates an error; words of `message` longer than `excerptLength` are cut to an excerpt.
  public init(file: String?, location: SourceLocation, sourceLine: String, message: String, underlying: Error? = nil) {
    self.file = file
    self.location = location
    self.sourceLine = sourceLine
    self.message = message.split(separator: " ", omittingEmptySubsequences: false)
      .map { Self.excerpt($0) }.joined(separator: " ")
    self.underlying = underlying
  }

  /// The longest word quoted whole in a message, and the most of a source line echoed on either
  /// side of the caret.
  public static let excerptLength = 48

  /// `text` when it has at most `excerptLength` characters, else its start, "…" and how many
  /// characters were left out.
  static func excerpt<S: StringProtocol>(_ text: S) -> String {
    guard text.count > excerptLength else { return String(text) }
    let kept = text.prefix(excerptLength - 8)
    return "\(kept)…(\(text.count - kept.count) more characters)"
  }

  /// `FILE:LINE:COLUMN: error: MESSAGE`, the line indented by four spaces, and a caret with
  /// tildes under the offending token (tabs in the line are copied so the caret lines up).
  ///
  /// A line longer than the window is echoed from at most `excerptLength` characters before the
  /// token to `excerptLength` characters after its start, with "…" where it was cut.
  public var description: String {
    let prefix = "\(file ?? "<recipe>"):\(location.line):\(location.column): error: \(message)"
    let indent = "    "
    let line = Array(sourceLine)
    let start = min(max(location.column - 1, 0), line.count)
    let from = max(0, start - Self.excerptLength)
    let to = min(line.count, start + Self.excerptLength)
    var shown = String(line[from..<to])
    var pad = from > 0 ? " " : ""
    if from > 0 { shown = "…" + shown }
    if to < line.count { shown += "…" }
    for ch in line[from..<start] { pad.append(ch == "\t" ? "\t" : " ") }
    if start < location.column - 1 { pad += String(repeating: " ", count: location.column - 1 - start) }
    let visible = max(1, min(location.length, max(to - start, 1)))
    let caret = "^" + String(repeating: "~", count: visible - 1)
    return prefix + "\n" + indent + shown + "\n" + indent + pad + caret
  }

  /// The candidate nearest to `word` when it is within a small edit distance (1 for words of up
  /// to 4 characters, 2 for longer ones; ties go to the first in `candidates`), else nil. A case
  /// difference alone always matches.
  public static func suggestion<S: Sequence>(for word: String, among candidates: S) -> String? where S.Element == String {
    let length = word.count
    let limit = length <= 4 ? 1 : 2
    var best: (String, Int)?
    let lowered = word.lowercased()
    // The distance is at least the difference in length: skip those (and huge words) early.
    for candidate in candidates where candidate != word && abs(candidate.count - length) <= limit {
      let d = candidate.lowercased() == lowered ? 0 : editDistance(lowered, candidate.lowercased())
      if d <= limit, best == nil || d < best!.1 { best = (candidate, d) }
    }
    return best?.0
  }

  /// The Levenshtein distance (insertions, deletions, substitutions; a swap of neighbours counts 1).
  static func editDistance(_ a: String, _ b: String) -> Int {
    let s = Array(a), t = Array(b)
    if s.isEmpty { return t.count }
    if t.isEmpty { return s.count }
    var previous2 = [Int](repeating: 0, count: t.count + 1)
    var previous = Array(0...t.count)
    var current = [Int](repeating: 0, count: t.count + 1)
    for i in 1...s.count {
      current[0] = i
      for j in 1...t.count {
        let cost = s[i - 1] == t[j - 1] ? 0 : 1
        var v = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        if i > 1, j > 1, s[i - 1] == t[j - 2], s[i - 2] == t[j - 1] { v = min(v, previous2[j - 2] + 1) }
        current[j] = v
      }
      (previous2, previous, current) = (previous, current, previous2)
    }
    return previous[t.count]
  }
}

extension RecipeError {
  /// "; did you mean 'x'?" or "".
  static func didYouMean(_ word: String, _ candidates: [String]) -> String {
    suggestion(for: word, among: candidates).map { "; did you mean '\($0)'?" } ?? ""
  }
}
