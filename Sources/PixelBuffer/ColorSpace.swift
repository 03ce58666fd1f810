// ColorSpace.swift — what the numbers in a buffer mean as colours.
import Foundation

/// The colour space a buffer's values are expressed in.
///
/// Display P3 uses the sRGB transfer curve with wider (DCI-P3, D65) primaries. A file whose ICC
/// profile is not one we recognise keeps the profile's bytes in `.icc`, so it can be written back
/// unchanged.
public enum ColorSpace: Hashable, Sendable, CustomStringConvertible {
  /// sRGB primaries, sRGB transfer curve (IEC 61966-2-1). Also the default for untagged files.
  case sRGB
  /// sRGB primaries, linear light.
  case linearSRGB
  /// Display P3 primaries, sRGB transfer curve.
  case displayP3
  /// Display P3 primaries, linear light.
  case linearDisplayP3
  /// Described by an embedded ICC profile this library does not interpret.
  case icc(Data)

  /// True when values are proportional to light.
  public var isLinear: Bool { self == .linearSRGB || self == .linearDisplayP3 }

  /// The same primaries with the sRGB transfer curve (unchanged for `.icc`).
  public var encoded: ColorSpace {
    switch self {
    case .linearSRGB: return .sRGB
    case .linearDisplayP3: return .displayP3
    default: return self
    }
  }

  /// The same primaries in linear light (unchanged for `.icc`, which is treated as sRGB-like).
  public var linear: ColorSpace {
    switch self {
    case .sRGB: return .linearSRGB
    case .displayP3: return .linearDisplayP3
    default: return self
    }
  }

  /// A short name.
  public var description: String {
    switch self {
    case .sRGB: return "sRGB"
    case .linearSRGB: return "linear sRGB"
    case .displayP3: return "Display P3"
    case .linearDisplayP3: return "linear Display P3"
    case .icc(let data): return "ICC profile (\(data.count) bytes)"
    }
  }
}

/// The EXIF orientation of stored pixels: how to turn them to show the picture upright.
///
/// Raw values are the EXIF tag's (1…8).
public enum Orientation: Int, Hashable, Sendable, CaseIterable {
  /// Stored upright.
  case up = 1
  /// Mirrored left–right.
  case upMirrored = 2
  /// Upside down.
  case down = 3
  /// Mirrored top–bottom.
  case downMirrored = 4
  /// Mirrored along the main diagonal (transposed).
  case leftMirrored = 5
  /// Stored rotated: turn 90° clockwise to show upright.
  case right = 6
  /// Mirrored along the anti-diagonal (transversed).
  case rightMirrored = 7
  /// Stored rotated: turn 90° counter-clockwise to show upright.
  case left = 8

  /// True when showing the picture upright exchanges width and height.
  public var swapsAxes: Bool { rawValue >= 5 }
}

/// What a file said about its pixels beyond the pixels themselves.
///
/// The blocks are kept as the file stored them, so they can be written back unchanged:
/// `exif` is the TIFF structure (byte-order mark first, without JPEG's `Exif\0\0` prefix),
/// `xmp` the XMP packet's XML, `xmpExtension` a JPEG's extended XMP (the part of a large packet
/// that did not fit one segment), `iptc` the IPTC-IIM records (the Photoshop resource 0x0404 of a
/// JPEG APP13 segment), `comment` the JPEG COM or PNG `Comment` text.
public struct ImageMetadata: Hashable, Sendable {
  /// The EXIF (JPEG APP1, PNG eXIf) orientation; `.up` when the file has none.
  public var orientation: Orientation
  /// The embedded ICC profile's bytes, if any.
  public var iccProfile: Data?
  /// The PNG gAMA value (file gamma, for example 0.45455), if any.
  public var gamma: Double?
  /// The PNG cHRM chromaticities (white x, y; red x, y; green x, y; blue x, y), if any.
  public var chromaticities: [Double]?
  /// The EXIF block: a TIFF structure starting with `II` or `MM`.
  public var exif: Data?
  /// The XMP packet (UTF-8 XML).
  public var xmp: Data?
  /// A JPEG's extended XMP: a second serialized packet (UTF-8 XML), carried in pieces by
  /// `http://ns.adobe.com/xmp/extension/` APP1 segments and named in `xmp` by its GUID
  /// (`xmpNote:HasExtendedXMP`, XMP specification part 3). Written back only to JPEG.
  public var xmpExtension: Data?
  /// The IPTC-IIM records.
  public var iptc: Data?
  /// The comment (JPEG COM, PNG `Comment` text chunk).
  public var comment: String?

  /// Creates metadata.
  public init(
    orientation: Orientation = .up, iccProfile: Data? = nil, gamma: Double? = nil, chromaticities: [Double]? = nil,
    exif: Data? = nil, xmp: Data? = nil, iptc: Data? = nil, comment: String? = nil, xmpExtension: Data? = nil
  ) {
    self.orientation = orientation
    self.iccProfile = iccProfile
    self.gamma = gamma
    self.chromaticities = chromaticities
    self.exif = exif
    self.xmp = xmp
    self.xmpExtension = xmpExtension
    self.iptc = iptc
    self.comment = comment
  }

  /// True when there is an EXIF, XMP, IPTC or comment block to write.
  public var hasDescriptiveBlocks: Bool { exif != nil || xmp != nil || xmpExtension != nil || iptc != nil || comment != nil }
}

/// The EXIF fields FilterGraph interprets (parsed by `EXIF.fields(tiff:)` in ImageCodecs).
public struct EXIFFields: Hashable, Sendable {
  /// The Orientation tag, when present and valid (1…8).
  public var orientation: Orientation?
  /// PixelXDimension × PixelYDimension, when both are present.
  public var pixelSize: Size?
  /// DateTimeOriginal (else DateTime), as stored: `YYYY:MM:DD HH:MM:SS`.
  public var captureTime: String?
  /// The camera's maker (Make).
  public var cameraMake: String?
  /// The camera's model (Model).
  public var cameraModel: String?

  /// Creates fields.
  public init(
    orientation: Orientation? = nil, pixelSize: Size? = nil, captureTime: String? = nil, cameraMake: String? = nil,
    cameraModel: String? = nil
  ) {
    self.orientation = orientation
    self.pixelSize = pixelSize
    self.captureTime = captureTime
    self.cameraMake = cameraMake
    self.cameraModel = cameraModel
  }
}
