// Filters.swift — `fgrun filters [NAME]`: every recipe verb with its parameter table.

import ArgumentParser
import FilterGraph

/// Lists the registered filters by family, or shows one.
struct Filters: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Lists every filter with its parameters, or shows one.",
    discussion: "Parameter tables come from the filters themselves (the same tables recipes are checked against).")

  @Argument(help: ArgumentHelp("A filter's name.", valueName: "name"))
  var name: String?

  func run() throws {
    try runReportingFailures {
      let all = FilterRegistry.all
      if let name {
        guard let definition = all.first(where: { $0.descriptor.name == name }) else {
          let hint = RecipeError.suggestion(for: name, among: all.map(\.descriptor.name)).map { "; did you mean '\($0)'?" } ?? ""
          throw Failure(status: ExitStatus.usage, message: "unknown filter '\(name)'\(hint) ('fgrun filters' lists them all)")
        }
        Console.out(Filters.describe(definition.descriptor).joined(separator: "\n"))
        return ExitStatus.ok
      }
      var lines: [String] = []
      for category in OperationCategory.allCases {
        let members = all.filter { $0.descriptor.category == category }
        guard !members.isEmpty else { continue }
        if !lines.isEmpty { lines.append("") }
        lines.append("\(category.rawValue):")
        for definition in members {
          lines.append(contentsOf: Filters.describe(definition.descriptor).map { "  " + $0 })
        }
      }
      lines.append("")
      lines.append("Every filter taking an image also accepts of=NAME (its input). Recipe syntax: docs/Recipes.md.")
      Console.out(lines.joined(separator: "\n"))
      return ExitStatus.ok
    }
  }

  /// A filter's name and summary, one row per parameter, and its example.
  static func describe(_ d: OperationDescriptor) -> [String] {
    var lines = ["\(d.name) — \(d.summary)"]
    let inputs = d.inputCount == 0 ? "no input image" : d.inputCount == 1 ? "1 input image" : "\(d.inputCount) input images"
    lines.append("    takes \(inputs)")
    let nameWidth = max(d.parameters.map(\.name.count).max() ?? 0, 4)
    let typeWidth = max(d.parameters.map(\.typeName.count).max() ?? 0, 4)
    let values = d.parameters.map { p in p.defaultValue.map { "default \($0)" } ?? (p.isRequired ? "required" : "optional") }
    let valueWidth = values.map(\.count).max() ?? 0
    for (p, value) in zip(d.parameters, values) {
      lines.append(
        "    " + p.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  "
          + p.typeName.padding(toLength: typeWidth, withPad: " ", startingAt: 0) + "  "
          + value.padding(toLength: valueWidth, withPad: " ", startingAt: 0) + "  " + p.help)
    }
    if !d.example.isEmpty { lines.append("    example: \(d.example)") }
    return lines
  }
}
