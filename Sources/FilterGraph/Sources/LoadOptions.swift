// LoadOptions.swift — how an encoded source is read.

import ImageCodecs

/// How a file or encoded bytes become an image source.
public struct LoadOptions: Hashable, Sendable {
  /// Turn the picture upright according to its EXIF orientation (default true).
  public var autoOrient: Bool
  /// Treat corrupt-data warnings (a truncated JPEG, a bad ancillary PNG chunk) as errors.
  public var strict: Bool
  /// Limits checked against the header before any pixel memory is allocated.
  public var limits: DecodeLimits
  /// Values for the file's codec's decode options (`["page": 2]`; see `fgrun formats`).
  public var formatOptions: FormatOptionValues

  /// Creates options.
  public init(
    autoOrient: Bool = true, strict: Bool = false, limits: DecodeLimits = .default, formatOptions: FormatOptionValues = [:]
  ) {
    self.autoOrient = autoOrient
    self.strict = strict
    self.limits = limits
    self.formatOptions = formatOptions
  }
}
