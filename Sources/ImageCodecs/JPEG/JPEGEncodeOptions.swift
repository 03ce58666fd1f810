// JPEGEncodeOptions.swift — quality, chroma subsampling and coding options for JPEG output.

/// Options for encoding a JPEG.
///
/// The defaults — quality 90, automatic chroma subsampling (4:2:0 with the fast encoder),
/// baseline, standard Huffman tables, ICC profile embedded when the image has one — suit
/// photographs; they are also the defaults of fgrun's flags and the recipe's `save`, whose table
/// (`fields`) is built from them. 4:2:0 is what libjpeg's `cjpeg`, libvips and most cameras use at
/// every quality; choose `.s444` for graphics, text or saturated edges, where halved chroma
/// resolution shows.
public struct JPEGEncodeOptions: Hashable, Sendable {
  /// How much colour (chroma) resolution is kept relative to luma. Ignored for gray images.
  public enum ChromaSubsampling: String, Hashable, Sendable, CaseIterable {
    /// The `.small` encoder keeps 4:4:4 when the image's colour has detail that 4:2:0 would blur
    /// and uses 4:2:0 otherwise; the `.fast` encoder uses 4:2:0.
    case automatic = "auto"
    /// Chroma halved horizontally and vertically (2×2): the smallest files.
    case s420 = "420"
    /// Chroma halved horizontally (2×1).
    case s422 = "422"
    /// Full chroma resolution (sampling factors 1×1).
    case s444 = "444"
  }

  /// Which encoder chooses the coefficients.
  public enum Encoder: String, Hashable, Sendable, CaseIterable {
    /// libjpeg-turbo's own: its DCT and rounding to the quality's tables. Streams strips (in
    /// parallel for baseline files) and holds no more than a few strips.
    case fast
    /// FilterGraph's perceptual encoder: its own DCT, trellis quantisation weighed by a local
    /// masking model, libjpeg-turbo's entropy coder with optimised Huffman tables
    /// (Sources/CJPEG/small.h). Fewer bytes for the same look; always progressive (ignores
    /// `isProgressive`); holds the whole image and runs on one thread.
    case small
  }

  /// The qualities libjpeg accepts (JPEG files, and TIFF's JPEG compression).
  public static let qualityRange = 1...100
  /// The default quality (JPEG files, and TIFF's JPEG compression).
  public static let defaultQuality = 90

  /// libjpeg quality, 1 (smallest, worst) … 100 (largest, best), scaling the standard
  /// quantization tables.
  public var quality: Int
  /// Chroma subsampling for RGB input.
  public var chromaSubsampling: ChromaSubsampling
  /// Writes a progressive JPEG (libjpeg's standard scan script), which displays coarse-to-fine
  /// while downloading and is usually a few percent smaller.
  public var isProgressive: Bool
  /// Computes optimal Huffman tables (an extra pass over the coefficients; a few percent smaller,
  /// same pixels). Off by default: the whole image's coefficients are then held and compressed on
  /// one thread. Always on for progressive output and for the `.small` encoder.
  public var optimizesHuffmanCoding: Bool
  /// The encoder; `.fast` by default.
  public var encoder: Encoder
  /// Embeds the image's ICC profile (from `metadata.iccProfile` or an `.icc` colour space) as
  /// APP2 `ICC_PROFILE` segments.
  public var embedsICCProfile: Bool

  /// Creates options.
  public init(
    quality: Int = defaultQuality, chromaSubsampling: ChromaSubsampling = .automatic, isProgressive: Bool = false,
    optimizesHuffmanCoding: Bool = false, embedsICCProfile: Bool = true, encoder: Encoder = .fast
  ) {
    self.encoder = encoder
    self.quality = quality
    self.chromaSubsampling = chromaSubsampling
    self.isProgressive = isProgressive
    self.optimizesHuffmanCoding = optimizesHuffmanCoding
    self.embedsICCProfile = embedsICCProfile
  }
}

extension JPEGEncodeOptions: FormatOptionSet {
  /// The defaults.
  public init() { self.init(quality: Self.defaultQuality) }

  /// The JPEG option table (`quality`, `chroma`, `encoder`, `progressive`, `optimize-coding`).
  public static let fields: [FormatField<JPEGEncodeOptions>] = [
    .integer("quality", \.quality, in: qualityRange, help: "Quality: higher is better and larger."),
    .choice(
      "chroma", \.chromaSubsampling, ChromaSubsampling.allCases,
      help: "Chroma subsampling: 420 halves colour resolution both ways, 422 horizontally, 444 keeps it; auto is 420 for the fast encoder and, for the small one, 444 when the image's colour detail needs it."),
    .choice(
      "encoder", \.encoder, Encoder.allCases,
      help: "fast: libjpeg-turbo's own quantisation, streamed in parallel strips. small: FilterGraph's perceptual encoder (trellis quantisation, masking, progressive, optimised Huffman tables): fewer bytes for the same look, one thread, the whole image held."),
    .boolean("progressive", \.isProgressive, help: "Write a progressive JPEG (compressed on one thread)."),
    .boolean(
      "optimize-coding", \.optimizesHuffmanCoding,
      help: "Optimal Huffman tables: a few percent smaller, but the whole image's coefficients are held (72 MB for 24 MP) and compressed on one thread."),
  ]
}
