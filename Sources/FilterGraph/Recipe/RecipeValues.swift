// RecipeValues.swift — reads a recipe word as a value of a parameter's kind, range-checked.
//
//   number    0.5  -3  1e3; with `%` as the parameter's table says (PercentReading): refused,
//             30% = 0.3 (a fraction), or 99% = 99 (a percent parameter)
//                                                 integer   3  -2  4.0
//             (decimal only: `Recipe.isDecimalNumber`; no hex, no inf/nan, no "5." or "1_000")
//   size      800x600  800×600  800X600           colour    #F80  #FF8000  #FF800080  orange
//   choice    one of the table's words            boolean   true|false  yes|no  on|off  1|0
//   path      logo.png  "my logo.png"             point     12,-4
//   text      Hello  "© 2026 A. Photographer"     (any word; quoted when it has spaces)
//   numbers   1,0,0,0,0 (exactly the table's count, or a count in the table's range)
//   pairs     0:0,0.5:0.6,1:1 (as many pairs as the table's range allows)

import PixelBufferModule

/// Why a word is not a value of a kind: the message names the expected form.
struct ValueProblem: Error {
  var message: String
}

enum RecipeValues {
  /// `word` read as a value of `kind` (not `.image`: the compiler resolves those).
  static func parse(_ word: RecipeToken, as spec: ParameterSpec) throws -> ParameterValue {
    let text = word.text, kind = spec.kind, parameter = spec.name
    switch kind {
    case .number(let range):
      if text.hasSuffix("%"), spec.percent == .refused, number(String(text.dropLast()), allowPercent: false) != nil {
        throw ValueProblem(message: "\(parameter)=\(text): \(parameter) takes no '%' (\(spec.help.lowercasingFirst)); write a \(kind.typeName)")
      }
      guard let read = number(text, allowPercent: spec.percent != .refused) else {
        let like = spec.percent == .refused ? "like 0.5 or 2" : "like 0.5, 2 or 30%"
        throw ValueProblem(message: "'\(word.description)' is not a number; \(parameter) expects a \(spec.typeName) (\(like))")
      }
      // A percent parameter reads `99%` as 99: the grammar's ÷ 100 is undone.
      let v = spec.percent == .percent && text.hasSuffix("%") ? read * 100 : read
      guard range.contains(v) else {
        throw ValueProblem(message: "\(parameter)=\(text) is out of range; expected a \(spec.typeName)")
      }
      return .number(v)

    case .integer(let range):
      guard let v = number(text, allowPercent: false), v.isFinite, v == v.rounded(), abs(v) < 1e15 else {
        throw ValueProblem(message: "'\(word.description)' is not a whole number; \(parameter) expects an \(kind.typeName)")
      }
      guard range.contains(Int(v)) else {
        throw ValueProblem(message: "\(parameter)=\(text) is out of range; expected an \(kind.typeName)")
      }
      return .number(v)

    case .length(let range):
      if text.hasSuffix("%") {
        guard let v = number(String(text.dropLast()), allowPercent: false), (0...100).contains(v) else {
          throw ValueProblem(message: "\(parameter)=\(text) is not a percentage 0…100; \(parameter) expects a \(kind.typeName)")
        }
        return .percent(v)
      }
      return try parse(word, as: ParameterSpec(parameter, .integer(range), help: spec.help))

    case .size(let range):
      let parts = text.split(omittingEmptySubsequences: false) { $0 == "x" || $0 == "X" || $0 == "×" }
      guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]) else {
        throw ValueProblem(message: "'\(word.description)' is not a size; \(parameter) expects WIDTHxHEIGHT like 800x600")
      }
      guard range.contains(w), range.contains(h) else {
        throw ValueProblem(message: "\(parameter)=\(text) is out of range; each side must be \(range.lowerBound)…\(range.upperBound)")
      }
      return .size(Size(width: w, height: h))

    case .color:
      guard !word.isQuoted || !text.isEmpty, let c = Color(hex: text) else {
        let names = Color.named.keys.sorted()
        let hint = RecipeError.suggestion(for: text.lowercased(), among: names).map { " (did you mean '\($0)'?)" } ?? ""
        throw ValueProblem(message: "'\(word.description)' is not a colour\(hint); \(parameter) expects #RGB, #RRGGBB, #RRGGBBAA or a name: \(names.joined(separator: ", "))")
      }
      return .color(c)

    case .choice(let words):
      let lowered = text.lowercased(), respelt = RecipeSynonyms.spellings[lowered]
      if let match = words.first(where: { $0 == text }) ?? words.first(where: { $0.lowercased() == lowered || $0 == respelt }) {
        return .choice(match)
      }
      if let reason = RecipeSynonyms.omission(of: text, for: parameter) {
        throw ValueProblem(message: "\(parameter)=\(text) is not available: \(reason)")
      }
      let hint = RecipeError.didYouMean(text, words)
      throw ValueProblem(message: "'\(word.description)' is not a valid value for \(parameter) (expected one of \(words.joined(separator: ", ")))\(hint)")

    case .boolean:
      switch text.lowercased() {
      case "true", "yes", "on", "1": return .boolean(true)
      case "false", "no", "off", "0": return .boolean(false)
      default:
        throw ValueProblem(message: "'\(word.description)' is not a boolean; \(parameter) expects true or false (also yes/no, on/off)")
      }

    case .path:
      guard !text.isEmpty else { throw ValueProblem(message: "\(parameter) expects a file path, found an empty string") }
      return .path(text)

    case .text:
      return .text(text)

    case .point:
      let parts = text.split(separator: ",", omittingEmptySubsequences: false)
      guard parts.count == 2, let x = Int(parts[0].trimmingBlanks), let y = Int(parts[1].trimmingBlanks) else {
        throw ValueProblem(message: "'\(word.description)' is not a point; \(parameter) expects X,Y in whole pixels like 24,-8")
      }
      return .point(Point(x: x, y: y))

    case .choiceOrPoint(let words):
      if text.contains(",") { return try parse(word, as: ParameterSpec(parameter, .point, help: spec.help)) }
      do {
        return try parse(word, as: ParameterSpec(parameter, .choice(words), help: spec.help))
      } catch let problem as ValueProblem {
        throw ValueProblem(message: problem.message.replacingOccurrences(of: words.joined(separator: ", ") + ")", with: words.joined(separator: ", ") + ", or a point X,Y)"))
      }

    case .numbers(let count):
      return try numbers(word, parameter: parameter, counts: count...count, expected: "exactly \(count)")

    case .numberList(let counts):
      return try numbers(word, parameter: parameter, counts: counts, expected: "\(counts.lowerBound) to \(counts.upperBound)")

    case .pairs(let count):
      let pairs = text.split(separator: ",", omittingEmptySubsequences: false).map { pair -> SIMD2<Double>? in
        let sides = pair.split(separator: ":", omittingEmptySubsequences: false)
        guard sides.count == 2, let a = number(String(sides[0].trimmingBlanks), allowPercent: false),
          let b = number(String(sides[1].trimmingBlanks), allowPercent: false)
        else { return nil }
        return SIMD2(a, b)
      }
      let values = pairs.compactMap { $0 }
      guard values.count == pairs.count else {
        throw ValueProblem(message: "'\(word.description)' is not a list of pairs; \(parameter) expects A:B pairs separated by commas, like 0:0,0.5:0.6,1:1")
      }
      guard count.contains(values.count) else {
        throw ValueProblem(message: "\(parameter) has \(values.count) pairs; expected \(count.lowerBound) to \(count.upperBound)")
      }
      return .pairs(values)

    case .image:
      return .image(text)
    }
  }

  /// `word` read as comma-separated numbers, as many as `counts` allows (`expected` says how many
  /// in messages).
  private static func numbers(_ word: RecipeToken, parameter: String, counts: ClosedRange<Int>, expected: String) throws -> ParameterValue {
    let parts = word.text.split(separator: ",", omittingEmptySubsequences: false)
    let values = parts.compactMap { number(String($0.trimmingBlanks), allowPercent: false) }
    guard values.count == parts.count else {
      throw ValueProblem(message: "'\(word.description)' is not a list of numbers; \(parameter) expects \(expected) numbers separated by commas")
    }
    guard counts.contains(values.count) else {
      throw ValueProblem(message: "\(parameter) has \(values.count) numbers; expected \(expected), separated by commas")
    }
    return .numbers(values)
  }

  /// A decimal number, or a fraction written as a percentage (`30%` = 0.3) when allowed; nil
  /// otherwise.
  static func number(_ text: String, allowPercent: Bool = true) -> Double? {
    var body = Substring(text)
    var scale = 1.0
    if allowPercent, body.hasSuffix("%") {
      body = body.dropLast()
      scale = 0.01
    }
    guard isDecimalNumber(body), let v = Double(body), v.isFinite else { return nil }
    return v * scale
  }

  /// True when `text` is a number in the recipe syntax (docs/Recipes.md, "Numbers"):
  ///
  ///     number   = [ "+" | "-" ] ( digits [ "." digits ] | "." digits ) [ exponent ] ;
  ///     exponent = ( "e" | "E" ) [ "+" | "-" ] digits ;
  ///     digits   = "0"…"9" { "0"…"9" } ;
  ///
  /// Only ASCII digits: hexadecimal (`0x10`, `0x1p4`), `inf`, `nan`, `5.`, `1_000` and other
  /// spellings Swift's `Double(_:)` would also read are refused.
  static func isDecimalNumber(_ text: Substring) -> Bool {
    let bytes = Array(text.utf8)
    var i = 0
    func digits() -> Int {
      let start = i
      while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
      return i - start
    }
    if i < bytes.count, bytes[i] == 0x2B || bytes[i] == 0x2D { i += 1 }
    let whole = digits()
    if i < bytes.count, bytes[i] == 0x2E {
      i += 1
      guard digits() > 0 else { return false }
    } else if whole == 0 {
      return false
    }
    if i < bytes.count, bytes[i] == 0x65 || bytes[i] == 0x45 {
      i += 1
      if i < bytes.count, bytes[i] == 0x2B || bytes[i] == 0x2D { i += 1 }
      guard digits() > 0 else { return false }
    }
    return i == bytes.count
  }
}

extension Substring {
  fileprivate var trimmingBlanks: Substring {
    var s = self
    while s.first == " " { s = s.dropFirst() }
    while s.last == " " { s = s.dropLast() }
    return s
  }
}
