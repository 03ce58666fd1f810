// OptionTable.swift — every URL option the server understands: one line each.

/// The registered options.
enum OptionTable {
  static let all: [URLOption] = [
    .resize, .size, .resizingType, .width, .height, .enlarge, .extend,
    .gravity, .crop, .trim, .rotate,
    .blur, .sharpen, .background, .padding, .watermark,
    .quality, .format, .stripMetadata, .dpr, .cachebuster,
    .recipe,
  ]

  /// The options by each of their names.
  static let byName: [String: URLOption] = Dictionary(
    all.flatMap { option in option.names.map { ($0, option) } }, uniquingKeysWith: { first, _ in first })
}
