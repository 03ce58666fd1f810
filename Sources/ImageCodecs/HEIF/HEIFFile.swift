// HEIFFile.swift — what one image of a HEIF file (AVIF or HEIC) holds, read through libheif
// (CHEIF shim) without decoding pixels, and how its colour is described.
//
// Colour: an ICC profile (`colr` type `prof`/`rICC`) is used as it is. An nclx `colr` box gives
// primaries and a transfer curve by code (ITU-T H.273); FilterGraph's colour management reads ICC
// profiles, so the nclx description is turned into the matrix/shaper profile it defines
// (`HEIFColor`): none at all for sRGB (BT.709 primaries with the sRGB or an unspecified curve),
// which keeps such files on the plain sRGB paths. (The nclx matrix coefficients and range are
// libheif's business: it converts YCbCr to RGB with them.) An HDR transfer (PQ, HLG) is not a
// profile: the decoder tone-maps such images to SDR sRGB (`hdrTransfer`, `HDRToneMapping`).
//
// Geometry: libheif applies `irot`, `imir` and `clap` while decoding, so the size here is the
// upright one and the orientation is always `.up`. An Exif block's orientation tag is not applied
// on top (HEIF's transformation boxes are authoritative; libvips and browsers agree).
import CHEIF
import Foundation
import PixelBufferModule

/// One top-level image of a HEIF file, described without decoding it.
public struct HEIFFile: Sendable {
  /// The upright size (after libheif's irot/imir/clap).
  public var size: Size
  /// True when the image has an alpha plane.
  public var hasAlpha: Bool
  /// True when the file says its colour is premultiplied by alpha (decoding divides it back).
  public var isPremultiplied: Bool
  /// Bits per luma sample: 8, 10 or 12.
  public var bitDepth: Int
  /// The number of top-level images (pages).
  public var imageCount: Int
  /// The ICC profile of the `colr` box, as stored.
  public var iccProfile: Data?
  /// The nclx description, when the file has one.
  public var nclx: HEIFColor?
  /// The Exif block (as stored: a 4-byte offset to the TIFF header first; see `exifTIFF`) and
  /// the XMP packet.
  public var exif: Data?, xmp: Data?
  /// The Exif or XMP items left out for being over `MetadataLimits.maxBlockBytes`.
  public var leftOutMetadata: [LeftOutMetadata] = []
  /// The content's MaxCLL (`clli`, CTA-861.3) and the mastering display's maximum luminance
  /// (`mdcv`, SMPTE ST 2086), cd/m², where this image's item has them (HEIFItemProperties.swift).
  var maxCLL: Double?, masteringMax: Double?

  /// Reads image `page` (0: the primary image, then the other top-level images in file order),
  /// checking its size against `limits`.
  ///
  /// - Throws: `CodecError` — `.corrupt`, `.truncated`, `.unsupported`, `.tooLarge`, or
  ///   `.invalidArgument` for a page that does not exist.
  public init(_ data: Data, page: Int = 0, limits: DecodeLimits = .default) throws {
    var info = cheif_info()
    var message = [CChar](repeating: 0, count: 512)
    let status = data.withUnsafeBytes { raw in
      cheif_read_info(
        raw.bindMemory(to: UInt8.self).baseAddress, raw.count, Int32(clamping: page), Int64(limits.maxPixels), &info,
        &message, message.count)
    }
    defer { cheif_info_free(&info) }
    try HEIFFile.check(status, message)
    try limits.check(width: Int(info.width), height: Int(info.height), what: "HEIF image")
    // An item over the metadata limit is left out, with a warning.
    let limit = MetadataLimits.maxBlockBytes
    leftOutMetadata = [(LeftOutMetadata.Kind.exif, "Exif", Int(info.exif_length)), (.xmp, "XMP", Int(info.xmp_length))].filter { $0.2 > limit }
      .map { MetadataLimits.leftOut($0.0, "The HEIF's \($0.1) item", bytes: $0.2) }
    size = Size(width: Int(info.width), height: Int(info.height))
    hasAlpha = info.has_alpha != 0
    isPremultiplied = info.premultiplied_alpha != 0
    bitDepth = Int(info.luma_bits)
    imageCount = Int(info.image_count)
    func copy(_ pointer: UnsafeMutablePointer<UInt8>?, _ length: Int) -> Data? {
      guard let pointer, length > 0 else { return nil }
      return Data(bytes: pointer, count: length)
    }
    iccProfile = copy(info.icc, info.icc_length)
    exif = info.exif_length > limit ? nil : copy(info.exif, info.exif_length)
    xmp = info.xmp_length > limit ? nil : copy(info.xmp, info.xmp_length)
    (maxCLL, masteringMax) = HEIFItemProperties.lightLevels(data, item: info.item_id)
    if info.has_nclx != 0 {
      let xy = withUnsafeBytes(of: info.nclx_xy) { Array($0.bindMemory(to: Float.self)) }.map { Double($0) }
      nclx = HEIFColor(
        primaries: Int(info.nclx_primaries), transfer: Int(info.nclx_transfer), matrix: Int(info.nclx_matrix),
        isFullRange: info.nclx_full_range != 0, chromaticities: xy)
    }
  }

  /// The Exif block's TIFF structure (from `II` or `MM`), without HEIF's 4-byte offset to it,
  /// or nil when there is none or the offset does not lead to one.
  public var exifTIFF: Data? {
    guard let exif, exif.count > 8 else { return nil }
    let bytes = [UInt8](exif)
    let offset = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
    guard offset >= 0, offset < bytes.count - 8 else { return nil }
    let tiff = bytes[(4 + offset)...]
    guard tiff.starts(with: [0x49, 0x49, 0x2A, 0x00]) || tiff.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) else { return nil }
    return Data(tiff)
  }

  /// The profile describing the decoded RGB values: the ICC profile, else the one the nclx box
  /// defines, else nil (sRGB — also for an HDR image, which the decoder tone-maps to sRGB).
  public var colorProfile: Data? { iccProfile ?? (hdrTransfer == nil ? nclx?.iccProfile : nil) }

  /// The HDR transfer (PQ or HLG) of an image described by nclx alone, which the decoder tone-maps
  /// to SDR sRGB (`HDRToneMapping`); nil for SDR images and for images with an ICC profile (the
  /// profile describes their values).
  public var hdrTransfer: HDRTransfer? { iccProfile == nil ? nclx.flatMap { HDRTransfer(code: $0.transfer) } : nil }

  /// The matrix from the image's primaries to BT.2020's (identity when the nclx chromaticities are
  /// missing or unusable).
  var primariesToBT2020: [SIMD3<Double>] {
    nclx.flatMap { HDRToneMapping.toBT2020(chromaticities: $0.chromaticities) } ?? [SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)]
  }

  /// The text of a NUL-terminated C buffer.
  static func string(_ chars: [CChar]) -> String {
    String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Throws the CodecError for a shim status.
  static func check(_ status: Int32, _ message: [CChar]) throws {
    guard Int(status) != Int(CHEIF_OK) else { return }
    let text = string(message)
    switch Int(status) {
    case Int(CHEIF_TRUNCATED): throw CodecError(.truncated, text)
    case Int(CHEIF_UNSUPPORTED), Int(CHEIF_NO_ENCODER): throw CodecError(.unsupported, text)
    case Int(CHEIF_TOO_LARGE), Int(CHEIF_NO_MEMORY): throw CodecError(.tooLarge, text)
    case Int(CHEIF_INVALID): throw CodecError(.invalidArgument, text)
    default: throw CodecError(.corrupt, text)
    }
  }
}

/// An nclx colour description (ITU-T H.273 code points) and the ICC profile it defines.
public struct HEIFColor: Hashable, Sendable {
  /// `colour_primaries` (1: BT.709/sRGB, 9: BT.2020, 12: Display P3…).
  public var primaries: Int
  /// `transfer_characteristics` (13: sRGB, 1/6/14/15: BT.709's curve, 8: linear…).
  public var transfer: Int
  /// `matrix_coefficients` (libheif converts YCbCr to RGB with them).
  public var matrix: Int
  /// Full-range (not video-range) samples.
  public var isFullRange: Bool
  /// Red, green, blue and white (x, y) chromaticities libheif derived from `primaries`.
  public var chromaticities: [Double]

  /// A description with these code points and chromaticities.
  public init(primaries: Int, transfer: Int, matrix: Int, isFullRange: Bool, chromaticities: [Double]) {
    self.primaries = primaries
    self.transfer = transfer
    self.matrix = matrix
    self.isFullRange = isFullRange
    self.chromaticities = chromaticities
  }

  /// The transfer curve as ICC parametric curve type 4 parameters (g, a, b, c, d:
  /// Y = (aX + b)^g for X ≥ d, else cX), or nil for a curve a profile does not model (PQ and HLG,
  /// which are tone-mapped instead, and legacy curves, read with the sRGB curve).
  public var curveParameters: [Double]? {
    switch transfer {
    case 0, 2, 13:  // unspecified: sRGB, as for untagged files
      return [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
    case 1, 6, 14, 15:  // BT.709 / BT.601 / BT.2020 OETF, inverted: V = 1.099 L^0.45 − 0.099 for L ≥ 0.018, else 4.5 L
      return [1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081]
    case 4: return [2.2, 1, 0, 0, 0]  // BT.470 M: gamma 2.2
    case 5: return [2.8, 1, 0, 0, 0]  // BT.470 B/G: gamma 2.8
    case 8: return [1, 1, 0, 0, 0]  // linear
    default: return nil
    }
  }

  /// True for sRGB itself: BT.709 (or unspecified) primaries with the sRGB (or an unspecified)
  /// curve. Such images need no profile.
  /// (A curve this library does not model with those primaries also counts as sRGB.)
  public var isSRGB: Bool { [1, 2].contains(primaries) && ([0, 2, 13].contains(transfer) || curveParameters == nil) }

  /// The matrix/shaper ICC profile with these primaries, white point and curve (made by lcms2 in
  /// the shim), or nil when the colours are sRGB or the chromaticities are missing.
  public var iccProfile: Data? {
    guard !isSRGB, chromaticities.count == 8, chromaticities.allSatisfy({ $0 > 0 && $0 < 1 }) else { return nil }
    let curve = curveParameters ?? [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
    var buffer = [UInt8](repeating: 0, count: 4096)
    let name = "HEIF nclx \(primaries)/\(transfer)"
    let n = cheif_nclx_profile(chromaticities, curve, name, &buffer, buffer.count)
    return n > 0 ? Data(buffer[0..<n]) : nil
  }
}
