// PNGEncodeOptions.swift — the choices a PNG encoder offers.

/// How a PNG is compressed and which colour chunks it gets.
public struct PNGEncodeOptions: Hashable, Sendable {
  /// The PNG row filters (PNG spec, section 9).
  public enum Filter: String, Hashable, Sendable, CaseIterable {
    /// No filtering (type 0).
    case none
    /// Difference from the pixel on the left (type 1).
    case sub
    /// Difference from the pixel above (type 2).
    case up
    /// Difference from the mean of left and above (type 3).
    case average
    /// Paeth predictor (type 4).
    case paeth
    /// The best of all five for every row, by the smallest sum of absolute residuals (libpng's
    /// heuristic; the default: smallest files).
    case adaptive

    /// The CPNG_FILTER_* mask.
    var shimMask: Int32 {
      switch self {
      case .none: return 0x08
      case .sub: return 0x10
      case .up: return 0x20
      case .average: return 0x40
      case .paeth: return 0x80
      case .adaptive: return 0xF8
      }
    }
  }

  /// The compression levels: 0 (store) … 9 (smallest).
  public static let compressionRange = 0...9

  /// Compression level, 0 (store) … 9 (smallest); default 6. The segments are compressed with
  /// libdeflate at this level (its scale is zlib-like: at 6 about zlib 6's size, much faster).
  public var compressionLevel: Int
  /// The row filter; default `.adaptive`.
  public var filter: Filter
  /// When true (the default), a buffer tagged `.sRGB` without an ICC profile gets an sRGB chunk
  /// (perceptual intent), so viewers need not guess. Buffers tagged `.icc(profile)` get an iCCP
  /// chunk instead; other colour spaces (linear, Display P3 without a profile) get no colour chunk.
  public var writeSRGBChunk: Bool
  /// An HDR signal's description: when set, the PNG gets cICP, mDCv and cLLi chunks (PNG 3rd
  /// edition) saying so, and no other colour chunk (cICP outranks them). The samples must be
  /// encoded as it says.
  public var hdrSignal: HDRSignalMetadata?

  /// Creates options.
  public init(compressionLevel: Int = 6, filter: Filter = .adaptive, writeSRGBChunk: Bool = true, hdrSignal: HDRSignalMetadata? = nil) {
    self.compressionLevel = compressionLevel
    self.filter = filter
    self.writeSRGBChunk = writeSRGBChunk
    self.hdrSignal = hdrSignal
  }

  /// Level 6, adaptive filtering, sRGB chunk for sRGB buffers.
  public static let `default` = PNGEncodeOptions()

  /// Throws `.invalidArgument` for a compression level outside 0…9.
  public func validate() throws {
    guard Self.compressionRange.contains(compressionLevel) else {
      throw CodecError(
        .invalidArgument, "The PNG compression level must be 0 to 9, not \(compressionLevel).")
    }
  }
}
