// ImageFileFormat.swift — which codec a file or a path belongs to.
import PixelBufferModule

/// The file formats FilterGraph reads and writes.
public enum ImageFileFormat: String, Hashable, Sendable, CaseIterable {
  /// JPEG (JFIF/EXIF), through libjpeg-turbo.
  case jpeg
  /// PNG: read through libpng, written by our own segmented libdeflate writer (PNGStreamEncoder).
  case png

  /// Recognises a format from a file's first bytes, or nil.
  public static func sniff<C: Collection>(_ bytes: C) -> ImageFileFormat? where C.Element == UInt8 {
    let head = Array(bytes.prefix(8))
    if head.count >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF { return .jpeg }
    if head == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return .png }
    return nil
  }

  /// The format a file name's extension names (`.jpg`, `.jpeg`, `.png`; any case), or nil.
  public init?(pathExtension: String) {
    switch pathExtension.lowercased() {
    case "jpg", "jpeg", "jpe", "jfif": self = .jpeg
    case "png": self = .png
    default: return nil
    }
  }
}

/// What a file's header says, read without decoding pixels.
public struct ImageHeader: Hashable, Sendable {
  /// The file format.
  public var fileFormat: ImageFileFormat
  /// The stored size (before EXIF orientation is applied).
  public var size: Size
  /// The channels a full decode produces (for example `.rgb` for a YCbCr or CMYK JPEG).
  public var layout: ChannelLayout
  /// The component type a full decode produces (`.uint16` for 16-bit PNGs).
  public var component: ComponentType
  /// Orientation, ICC profile, gamma.
  public var metadata: ImageMetadata

  /// Creates a header.
  public init(
    fileFormat: ImageFileFormat, size: Size, layout: ChannelLayout, component: ComponentType,
    metadata: ImageMetadata
  ) {
    self.fileFormat = fileFormat
    self.size = size
    self.layout = layout
    self.component = component
    self.metadata = metadata
  }

  /// The size once EXIF orientation is applied.
  public var orientedSize: Size { metadata.orientation.swapsAxes ? size.transposed : size }
}
