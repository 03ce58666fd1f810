// OptionArguments.swift — an option's arguments read by position, each mistake a 400 that names
// the option and the argument.

import FilterGraph

/// The arguments of one URL option (`name:a:b:c` gives a, b, c).
struct OptionArguments {
  /// The option's name as written.
  let name: Substring
  /// The arguments as written (empty strings for omitted ones).
  let values: [Substring]

  /// True when argument `index` is present and not empty.
  func has(_ index: Int) -> Bool { index < values.count && !values[index].isEmpty }

  /// Fails when there are more than `count` arguments.
  func expect(atMost count: Int) throws {
    if values.count > count {
      throw fail("takes at most \(count) argument\(count == 1 ? "" : "s"), not \(values.count)")
    }
  }

  /// Argument `index` as a whole number in `range`, or `fallback` when omitted.
  func integer(_ index: Int, in range: ClosedRange<Int>, default fallback: Int) throws -> Int {
    guard has(index) else { return fallback }
    guard let value = Int(values[index]), range.contains(value) else {
      throw fail("argument \(index + 1) ('\(values[index].prefix(20))') must be a whole number in \(range.lowerBound)…\(range.upperBound)")
    }
    return value
  }

  /// Argument `index` as a number in `range`, or `fallback` when omitted.
  func number(_ index: Int, in range: ClosedRange<Double>, default fallback: Double) throws -> Double {
    guard has(index) else { return fallback }
    guard let value = Double(values[index]), value.isFinite, range.contains(value) else {
      throw fail("argument \(index + 1) ('\(values[index].prefix(20))') must be a number in \(range.lowerBound)…\(range.upperBound)")
    }
    return value
  }

  /// Argument `index` as imgproxy's boolean (`1`, `t`, `true`; `0`, `f`, `false`).
  func boolean(_ index: Int, default fallback: Bool) throws -> Bool {
    guard has(index) else { return fallback }
    switch values[index].lowercased() {
    case "1", "t", "true": return true
    case "0", "f", "false": return false
    default: throw fail("argument \(index + 1) ('\(values[index].prefix(20))') must be 1, t, true, 0, f or false")
    }
  }

  /// Argument `index` as a hex colour (`RRGGBB`, `RGB`, with or without `#`).
  func color(_ index: Int) throws -> Color {
    let text = values[index].hasPrefix("#") ? String(values[index]) : "#" + values[index]
    guard let color = Color(hex: text) else {
      throw fail("argument \(index + 1) ('\(values[index].prefix(20))') must be a hex colour such as ff8000")
    }
    return color
  }

  /// A 400 naming this option.
  func fail(_ reason: String) -> ServerError {
    ServerError.badURL("Option '\(name)': \(reason).")
  }
}
