// ImageFileInfo.swift — what a file's header says: format, size, depth, channels, colour profile,
// orientation, metadata present and page count (`fgrun info`). Reading it decodes no pixel.

import Foundation
import ImageCodecs
import PixelBufferModule

/// The facts of an image file's header (no pixel is decoded).
public struct ImageFileInfo: Sendable {
  /// The format, from the file's first bytes.
  public var format: ImageFileFormat
  /// Width and height as stored (before the EXIF orientation is applied).
  public var storedSize: Size
  /// Width and height shown upright (the orientation applied).
  public var size: Size
  /// The channels.
  public var layout: ChannelLayout
  /// The component type (8-bit, 16-bit, float).
  public var component: ComponentType
  /// The embedded ICC profile's description (for a CMYK file converted through its profile,
  /// followed by `(CMYK, converted to sRGB when decoded)`), or nil when the file has no profile.
  public var profileDescription: String?
  /// True when the file's codes are linear light by its own account and nothing else describes
  /// them (a PNG whose only colour chunk is gAMA 1.0): they are read through the sRGB curve.
  public var storesLinearLight: Bool
  /// The EXIF orientation (`.up` when the file has none).
  public var orientation: Orientation
  /// The kinds of metadata the file carries, in this order: `ICC profile`, `EXIF` (or `EXIF
  /// orientation` when only the orientation is known), `XMP`, `IPTC`, `comment`, `gAMA`, `cHRM`.
  public var metadata: [String]
  /// Pages (frames, images) in the file.
  public var pageCount: Int
  /// An animation's canvas, per-frame delays and loop count; nil for still and multi-page files.
  public var animation: AnimationInfo?
  /// What is wrong with what the header says about the pixels (`ImageHeader.warnings`: an ICC
  /// profile that is damaged or does not fit the image…), then the metadata blocks its reader left
  /// out (`ImageHeader.leftOutMetadata`), one sentence each; empty when nothing is.
  public var warnings: [String]
  /// The Ultra HDR gain map the file carries, or nil.
  public var gainMap: GainMapImage?
  /// The HDR transfer (PQ, HLG) of a file its decoder tone-maps to SDR, or nil.
  public var hdrTransfer: HDRTransfer?
  /// The content peak (cd/m²) such a file's tone mapping and gain map take, or nil.
  public var hdrPeak: Double?
  /// Whether `hdrPeak` was declared (MaxCLL, mastering display) or measured, or nil.
  public var hdrPeakSource: HDRPeakSource?

  /// Reads the header of the file at `url`, mapping the file rather than reading it whole (only
  /// the pages the header lies in are read).
  ///
  /// - Throws: `CodecError` when the file is missing, unsupported or its header is bad.
  public init(contentsOf url: URL, options: LoadOptions = LoadOptions()) throws {
    let header = try EncodedSource(contentsOf: url, options: options, mapping: true).header
    format = header.fileFormat
    storedSize = header.size
    size = header.orientedSize
    layout = header.layout
    component = header.component
    orientation = header.metadata.orientation
    pageCount = header.pageCount
    animation = header.animation
    profileDescription =
      header.metadata.iccProfile.map { data in (try? ICCProfile(data).name) ?? "unreadable ICC profile (\(data.count) bytes)" }
      ?? header.cmykProfile.map { data in "\((try? ICCProfile(data).name) ?? "CMYK profile") (CMYK, converted to sRGB when decoded)" }
    warnings = header.warnings + header.leftOutMetadata.map(\.message)
    gainMap = header.gainMap
    hdrTransfer = header.hdrTransfer
    hdrPeak = header.hdrPeak
    hdrPeakSource = header.hdrPeakSource
    storesLinearLight = profileDescription == nil && header.metadata.chromaticities == nil
      && header.metadata.gamma.map { abs($0 - 1) < 0.01 } == true
    let m = header.metadata
    var kinds: [String] = []
    if m.iccProfile != nil || header.cmykProfile != nil { kinds.append("ICC profile") }
    if m.exif != nil {
      kinds.append("EXIF")
    } else if m.orientation != .up {
      kinds.append("EXIF orientation")
    }
    if m.xmp != nil { kinds.append("XMP") }
    if m.iptc != nil { kinds.append("IPTC") }
    if m.comment != nil { kinds.append("comment") }
    if m.gamma != nil { kinds.append("gAMA") }
    if m.chromaticities != nil { kinds.append("cHRM") }
    metadata = kinds
  }

  /// Bits per component: 8, 16 or 32.
  public var bitDepth: Int { component.byteCount * 8 }

  /// The largest stored value of a component (255, 65535; 1 for float).
  public var maximumValue: Double {
    switch component {
    case .uint8: return 255
    case .uint16: return 65535
    case .float32: return 1
    }
  }
}

extension Orientation {
  /// How the EXIF orientation reads: `up`, `up mirrored`, … `left`.
  public var name: String {
    switch self {
    case .up: return "up"
    case .upMirrored: return "up mirrored"
    case .down: return "down"
    case .downMirrored: return "down mirrored"
    case .leftMirrored: return "left mirrored"
    case .right: return "right"
    case .rightMirrored: return "right mirrored"
    case .left: return "left"
    }
  }
}
