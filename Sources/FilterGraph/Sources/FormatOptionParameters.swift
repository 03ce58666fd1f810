// FormatOptionParameters.swift — the codecs' decode options as `load` parameters.
//
// The recipe's `load` takes every decode option of every codec (`load path=scan.tif page=2`):
// its parameter table is built from the codecs' own tables, never declared twice.

import ImageCodecs

extension ParameterSpec {
  /// The recipe parameter for a codec option: same name, kind, default and help.
  init(_ option: FormatOption) {
    let kind: ParameterKind
    switch option.kind {
    case .integer(let range): kind = .integer(range)
    case .number(let range): kind = .number(range)
    case .boolean: kind = .boolean
    case .choice(let words): kind = .choice(words)
    }
    let fallback: ParameterValue?
    switch option.defaultValue {
    case .integer(let v)?: fallback = .number(Double(v))
    case .number(let v)?: fallback = .number(v)
    case .boolean(let v)?: fallback = .boolean(v)
    case .choice(let w)?: fallback = .choice(w)
    case nil: fallback = nil
    }
    self.init(option.name, kind, default: fallback, help: option.help)
  }
}

extension FormatOptionValues {
  /// The decode options a `load` line gave, leaving out those at their default (so that a file
  /// loaded twice, once with defaults spelled out, is one source for the decode cache).
  init(decodeArguments arguments: Arguments) {
    self.init()
    for option in CodecRegistry.allDecodeOptions {
      guard let given = arguments[option.name], given != ParameterSpec(option).defaultValue else { continue }
      switch (option.kind, given) {
      case (.integer, .number(let v)): self[option.name] = .integer(Int(v.rounded()))
      case (.number, .number(let v)): self[option.name] = .number(v)
      case (.boolean, .boolean(let b)): self[option.name] = .boolean(b)
      case (.choice, .choice(let w)): self[option.name] = .choice(w)
      default: continue
      }
    }
  }
}
