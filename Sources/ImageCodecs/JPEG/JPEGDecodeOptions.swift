// JPEGDecodeOptions.swift — how JPEGDecoder turns coefficients into pixels.

/// Options for decoding a JPEG.
///
/// The defaults reproduce `djpeg`'s default output byte for byte: the accurate integer inverse DCT
/// and fancy (smooth) chroma upsampling, at full size.
public struct JPEGDecodeOptions: Hashable, Sendable {
  /// The inverse DCT libjpeg uses.
  public enum DCTMethod: Hashable, Sendable {
    /// The accurate integer IDCT (libjpeg's `JDCT_ISLOW`, `djpeg -dct int`): the reference decode.
    case accurate
    /// The fast, less accurate integer IDCT (`JDCT_IFAST`, `djpeg -dct fast`).
    case fast
    /// The floating-point IDCT (`JDCT_FLOAT`); its output may differ between platforms.
    case float
  }

  /// Shrink-on-load: decode at 1/`scaleDenominator` of the stored size (1, 2, 4 or 8), done
  /// inside the inverse DCT and much cheaper than decoding at full size and resizing. Each side
  /// becomes ⌈side / scaleDenominator⌉.
  public var scaleDenominator: Int
  /// When true, corrupt-data warnings (for example “Premature end of JPEG file”) fail the decode:
  /// a truncated file throws `.truncated` and other damage `.corrupt`. When false (the default),
  /// libjpeg recovers (missing data decodes as flat gray) and the warnings are reported.
  public var isStrict: Bool
  /// The inverse DCT.
  public var dctMethod: DCTMethod
  /// Smooth (triangle-filter) chroma upsampling, libjpeg's default. `false` replicates chroma
  /// samples (`djpeg -nosmooth`), which is slightly faster.
  public var usesFancyUpsampling: Bool
  /// The intent and black-point compensation of a CMYK file's conversion through its embedded
  /// profile (default relative colorimetric without black-point compensation).
  public var colorRendering: ColorRendering

  /// Creates options; the defaults give a full-size, reference-exact, lenient decode.
  public init(
    scaleDenominator: Int = 1, isStrict: Bool = false, dctMethod: DCTMethod = .accurate,
    usesFancyUpsampling: Bool = true, colorRendering: ColorRendering = ColorRendering()
  ) {
    self.colorRendering = colorRendering
    self.scaleDenominator = scaleDenominator
    self.isStrict = isStrict
    self.dctMethod = dctMethod
    self.usesFancyUpsampling = usesFancyUpsampling
  }
}
