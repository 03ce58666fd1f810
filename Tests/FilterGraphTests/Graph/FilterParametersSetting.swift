// FilterParametersSetting.swift — the tests' shorthand for an operation's parameters.

@testable import FilterGraph

extension FilterParameters {
  /// The defaults with what `set` changes: `GaussianBlurOperation(.setting { $0.sigma = 2 })`.
  static func setting(_ set: (inout Self) -> Void) -> Self {
    var parameters = Self()
    set(&parameters)
    return parameters
  }
}
