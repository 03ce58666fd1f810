// ImageFileFormat.swift — a file format's name, and what a file's header says.
import Foundation
import PixelBufferModule

/// A file format FilterGraph knows: a name (`jpeg`, `png`, `webp`…) that the registry maps to its
/// codec. Each codec declares its constant next to itself (`ImageFileFormat.jpeg` in `JPEG/`).
public struct ImageFileFormat: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  /// The format's name, lowercase: `jpeg`, `png`, `webp`, `gif`, `tiff`, `heif`.
  public let rawValue: String

  /// The format named `rawValue` (a name, not an extension: see `init?(pathExtension:)`).
  public init(rawValue: String) { self.rawValue = rawValue }

  /// The name.
  public var description: String { rawValue }

  /// Every registered format, in registration order.
  public static var allCases: [ImageFileFormat] { CodecRegistry.codecs.map { $0.format } }

  /// The codec of this format. Every format value made by the registry or a codec has one.
  public var codec: (any ImageCodec.Type)? { CodecRegistry.codec(for: self) }

  /// Recognises a format from a file's first bytes (up to `CodecRegistry.sniffLength` are looked
  /// at), or nil.
  public static func sniff<C: Collection>(_ bytes: C) -> ImageFileFormat? where C.Element == UInt8 {
    CodecRegistry.sniff(bytes)?.format
  }

  /// The format a file name's extension names (`jpg`, `png`, `webp`, `tif`…; any case), or nil.
  public init?(pathExtension: String) {
    guard let codec = CodecRegistry.codec(forExtension: pathExtension) else { return nil }
    self = codec.format
  }

  /// The usual file extension (`jpg`, `png`, `webp`…).
  public var fileExtension: String { codec?.fileExtensions.first ?? rawValue }
}

/// What a file's header says, read without decoding pixels.
public struct ImageHeader: Hashable, Sendable {
  /// The file format.
  public var fileFormat: ImageFileFormat
  /// The stored size (before EXIF orientation is applied) of the page read.
  public var size: Size
  /// The channels a full decode produces (for example `.rgb` for a YCbCr or CMYK JPEG).
  public var layout: ChannelLayout
  /// The component type a full decode produces (`.uint16` for 16-bit PNGs).
  public var component: ComponentType
  /// Orientation, ICC profile, gamma.
  public var metadata: ImageMetadata
  /// The number of pages (images, frames) in the file; 1 for single-image formats.
  public var pageCount: Int
  /// For an animated file (more than one frame, `pageCount` of them): its canvas, delays and loop
  /// count; nil for still and multi-page files.
  public var animation: AnimationInfo?
  /// The sizes of the reduced-resolution copies of the page the file also stores (a pyramidal
  /// TIFF's levels), largest first; empty when it stores none. The codec decodes from them at
  /// reduced scales (`ImageCodec.reducedScaleDenominators(for:)`).
  public var reducedLevelSizes: [Size]
  /// The CMYK ICC profile a CMYK file's decoder converts its pixels through into sRGB (with the
  /// request's `colorRendering`), or nil. The decoded pixels are then sRGB: `metadata` carries
  /// no profile.
  public var cmykProfile: Data?
  /// Whether the pixels are stored as four inks (a CMYK or YCCK JPEG) and decoded to RGB.
  public var isStoredAsCMYK = false
  /// Problems with what the file says about its pixels that the decoder worked around, in
  /// sentences (an ICC profile that is damaged, split over segments that do not fit together, or
  /// for another colour model: the image is read as sRGB). A strict load makes them errors.
  public var warnings: [String]
  /// The descriptive metadata blocks (EXIF, XMP, IPTC, comment) the reader left out of `metadata`,
  /// each with the sentence that says so: worth a warning where the output would have kept them.
  public var leftOutMetadata: [LeftOutMetadata] = []
  /// The gain map an Ultra HDR JPEG carries after its primary image (`UltraHDR`), or nil.
  public var gainMap: GainMapImage?
  /// The HDR transfer of a file whose decoder tone-maps it to SDR sRGB (`HDRToneMapping`), or nil.
  public var hdrTransfer: HDRTransfer?
  /// The content peak (cd/m²) of an HDR file, and of the gain map decoded from one: ITU-R BT.2446
  /// method A's L_HDR and the map's headroom (`HDRSignal.peak`), or nil.
  public var hdrPeak: Double?
  /// Whether `hdrPeak` was declared by the file (MaxCLL, mastering display) or measured, or nil.
  public var hdrPeakSource: HDRPeakSource?
  /// The bytes a decoder of this page holds of its own while it decodes, besides the rows it
  /// hands out (a GIF's screen pages under its frames): counted in a render's memory estimate.
  public var decoderHeldBytes = 0

  /// Creates a header.
  public init(
    fileFormat: ImageFileFormat, size: Size, layout: ChannelLayout, component: ComponentType,
    metadata: ImageMetadata, pageCount: Int = 1, reducedLevelSizes: [Size] = [], cmykProfile: Data? = nil,
    warnings: [String] = [], leftOutMetadata: [LeftOutMetadata] = [], animation: AnimationInfo? = nil, hdrTransfer: HDRTransfer? = nil, hdrPeak: Double? = nil,
    hdrPeakSource: HDRPeakSource? = nil
  ) {
    self.hdrTransfer = hdrTransfer
    self.hdrPeak = hdrPeak
    self.hdrPeakSource = hdrPeakSource
    self.fileFormat = fileFormat
    self.size = size
    self.layout = layout
    self.component = component
    self.metadata = metadata
    self.pageCount = pageCount
    self.reducedLevelSizes = reducedLevelSizes
    self.cmykProfile = cmykProfile
    self.warnings = warnings
    self.leftOutMetadata = leftOutMetadata
    self.animation = animation
  }

  /// The size once EXIF orientation is applied.
  public var orientedSize: Size { metadata.orientation.swapsAxes ? size.transposed : size }
}
