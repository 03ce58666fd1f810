// FilterRegistry.swift — every recipe verb, joined from the families' lists.

/// The filters recipes, `fgrun filters` and the docs know, in family order.
public enum FilterRegistry {
  /// Every filter definition. Names are unique.
  public static var all: [FilterDefinition] {
    // MARK: - Families: one list per folder; a new family's `all` is added here.
    SourceFilters.all
      + ResampleFilters.all
      + ConvolutionFilters.all
      + ColorFilters.all
      + GeometryFilters.all
      + CompositingFilters.all
  }

  /// The definition whose recipe name is `name`, or nil.
  public static func definition(named name: String) -> FilterDefinition? {
    all.first { $0.descriptor.name == name }
  }
}
