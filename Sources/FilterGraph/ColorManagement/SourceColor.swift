// SourceColor.swift — how a source's pixels enter the working space.
//
// Every source is read into linear light with the sRGB primaries (extended range). Untagged
// sources, and sources whose profile is sRGB or indistinguishable from it, take the ordinary sRGB
// paths (tables, pass-through copies, shrink-on-load: nothing changes for them). Any other RGB or
// gray profile makes the source's colour space `.icc(profile)`, and its tiles are converted by an
// lcms2 transform as they are loaded (`TileConversion.loadConverting`). A profile that cannot be
// used (unreadable, truncated, for another colour model such as CMYK on an RGB image) leaves the
// pixels sRGB and gives a warning, or an error for a strict load. A PNG without iCCP or sRGB chunk
// but with cHRM (and gAMA) is read through a profile lcms2 builds from them (`impliedProfile`).
// CMYK JPEGs and TIFFs are converted to sRGB by their decoder, through their CMYK profile
// (`CMYKConversion`, which uses the profile up and is named by the header's `cmykProfile`; with
// the render's intent and black-point compensation) or, untagged or with a profile it cannot
// use, naively (see docs/Colour.md).

import Foundation
import Locking
import ImageCodecs
import PixelBufferModule

enum SourceColor {
  /// The profile a PNG's cHRM (and gAMA) chunks describe when it has no iCCP or sRGB chunk (the
  /// decoder keeps `chromaticities` only then): those primaries and white, and the power curve
  /// 1/gAMA (the sRGB curve's 2.2 without gAMA); gray images take the white and the curve. Nil
  /// without cHRM (a lone gAMA is not interpreted, except 1.0: the decoder tags those codes
  /// linear and tiles read them so) or for values lcms2 refuses.
  static func impliedProfile(_ metadata: ImageMetadata, layout: ChannelLayout) -> Data? {
    guard metadata.iccProfile == nil, let c = metadata.chromaticities, c.count == 8,
      c.allSatisfy({ $0.isFinite && $0 > 0 && $0 < 1 })
    else { return nil }
    let gamma = metadata.gamma.flatMap { $0.isFinite && $0 > 0.05 && $0 < 20 ? $0 : nil } ?? 1 / 2.2
    let key = c + [gamma, layout.isGray ? 1 : 3]
    return impliedProfiles.withLock { cache in
      if let known = cache[key] { return known }
      let made = ICCProfile.gammaProfile(exponent: 1 / gamma, white: Array(c[0..<2]), primaries: layout.isGray ? nil : Array(c[2..<8]))
      if cache.count < 64 { cache[key] = made }
      return made
    }
  }

  /// Profiles made by `impliedProfile`, by (chromaticities, gamma, channels).
  private static let impliedProfiles = Locked<[[Double]: Data?]>([:])

  /// The colour space of a source with `profile` and decoded `layout`.
  static func colorSpace(profile: Data?, layout: ChannelLayout) -> ColorSpace {
    guard let profile else { return .sRGB }
    switch TransformCache.sourceProfile(profile, channels: layout.channelCount >= 3 ? 3 : 1) {
    case .profile: return .icc(profile)
    case .sRGB, .unusable: return .sRGB
    }
  }

  /// Why `source`'s embedded profile is ignored, or nil when it is used (or there is none).
  static func problem(_ source: EncodedSourceOperation) -> String? {
    let h = source.source.header
    guard let profile = h.metadata.iccProfile else { return nil }
    if source.source.isCMYK {
      // The JPEG decoder removes a CMYK profile it converts through; this one it could not use.
      return "\(source.source.name): its ICC profile cannot be used for its CMYK pixels; they are converted to RGB without it"
    }
    guard case .unusable(let reason) = TransformCache.sourceProfile(profile, channels: h.layout.channelCount >= 3 ? 3 : 1) else {
      return nil
    }
    return "\(source.source.name): \(reason); its colours are read as sRGB"
  }

  /// What happens to `node`'s colours when it is loaded, for `fgrun explain` (nil: untagged sRGB);
  /// a CMYK file's decoder converts with `rendering`.
  static func explanation(_ node: ImageNode, rendering: ColorRendering) -> String? {
    if let header = (node.operation as? EncodedSourceOperation)?.source.header, let hdr = header.hdrTransfer {
      return "HDR " + hdr.toneMappingSummary(peak: header.hdrPeak ?? HDRToneMapping.nominalPeak)
    }
    if let cmyk = (node.operation as? EncodedSourceOperation)?.source.header.cmykProfile {
      let name = (try? ICCProfile(cmyk)).map { "'\($0.name)'" } ?? "profile"
      return "CMYK ICC \(name) → sRGB by the decoder (lcms2, \(rendering.label))"
    }
    guard let data = node.info.metadata.iccProfile ?? { if case .icc(let d) = node.info.colorSpace { return d } else { return nil } }()
    else { return nil }
    switch TransformCache.sourceProfile(data, channels: node.info.layout.channelCount >= 3 ? 3 : 1) {
    case .profile(let profile): return "ICC '\(profile.name)' → linear sRGB per tile at load (lcms2)"
    case .sRGB: return "ICC profile equivalent to sRGB: read as sRGB"
    case .unusable(let reason): return "ICC profile ignored (\(reason)): read as sRGB"
    }
  }

  /// The transform that loads `node`'s pixels (stored in `format`), or nil for sRGB pixels.
  static func transform(for node: ImageNode, format: PixelFormat, intent: RenderingIntent, bpc: Bool) throws -> ColorTransform? {
    guard case .icc(let data) = node.info.colorSpace, format.component != .float32,
      case .profile(let profile) = TransformCache.sourceProfile(data, channels: format.layout.channelCount >= 3 ? 3 : 1)
    else { return nil }
    return try TransformCache.transform(profile, .toWorking, format: format, intent: intent, bpc: bpc)
  }
}
