// JPEGEncodeOptions.swift — quality, chroma subsampling and coding options for JPEG output.

/// Options for encoding a JPEG.
///
/// The defaults — quality 90, 4:2:0 chroma subsampling, baseline, optimized Huffman tables, ICC
/// profile embedded when the image has one — suit photographs. 4:2:0 is what libjpeg's `cjpeg`,
/// libvips and most cameras use at every quality; choose `.s444` for graphics, text or
/// saturated edges, where halved chroma resolution shows.
public struct JPEGEncodeOptions: Hashable, Sendable {
  /// How much colour (chroma) resolution is kept relative to luma. Ignored for gray images.
  public enum ChromaSubsampling: Hashable, Sendable {
    /// Full chroma resolution (sampling factors 1×1).
    case s444
    /// Chroma halved horizontally (2×1).
    case s422
    /// Chroma halved horizontally and vertically (2×2): the smallest files.
    case s420
    /// The `.small` encoder keeps 4:4:4 when the image's colour has detail that 4:2:0 would blur
    /// and uses 4:2:0 otherwise; the `.fast` encoder uses 4:2:0.
    case automatic
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

  /// libjpeg quality, 1 (smallest, worst) … 100 (largest, best), scaling the standard
  /// quantization tables.
  public var quality: Int
  /// Chroma subsampling for RGB input.
  public var chromaSubsampling: ChromaSubsampling
  /// Writes a progressive JPEG (libjpeg's standard scan script), which displays coarse-to-fine
  /// while downloading and is usually a few percent smaller.
  public var isProgressive: Bool
  /// Computes optimal Huffman tables (an extra pass over the coefficients; smaller files, same
  /// pixels). Always on for progressive output and for the `.small` encoder.
  public var optimizesHuffmanCoding: Bool
  /// The encoder; `.fast` by default.
  public var encoder: Encoder
  /// Embeds the image's ICC profile (from `metadata.iccProfile` or an `.icc` colour space) as
  /// APP2 `ICC_PROFILE` segments.
  public var embedsICCProfile: Bool

  /// Creates options.
  public init(
    quality: Int = 90, chromaSubsampling: ChromaSubsampling = .s420, isProgressive: Bool = false,
    optimizesHuffmanCoding: Bool = true, embedsICCProfile: Bool = true, encoder: Encoder = .fast
  ) {
    self.encoder = encoder
    self.quality = quality
    self.chromaSubsampling = chromaSubsampling
    self.isProgressive = isProgressive
    self.optimizesHuffmanCoding = optimizesHuffmanCoding
    self.embedsICCProfile = embedsICCProfile
  }
}
