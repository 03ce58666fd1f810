// UltraHDR.swift — finding the gain map of an Ultra HDR (gain-map) JPEG: the primary JPEG's APP2
// Multi-Picture index locates a second JPEG after it, whose XMP (`hdrgm:`) and ISO 21496-1 APP2
// segment carry the metadata (`GainMapMetadata`). When both are present and disagree, ISO 21496-1
// wins (it is the standard, and libultrahdr and Android read it first) and the header says so.
//
// Bounds, each a clear error rather than a crash or an unbounded read: the index's entries must lie
// inside the file (`MultiPictureIndex`); at most `MultiPictureIndex.maxImages` images are looked at,
// each header once; the map must be a JPEG no larger than the base in either dimension and within
// the decode limits; a map that itself names a gain map (its own MPF index listing more images, or
// its own Container:Directory) is refused rather than followed; NaN, infinite or inconsistent
// metadata is refused (`GainMapMetadata.problem`).
import Foundation
import PixelBufferModule

/// An Ultra HDR file's gain map: where it is and what it means.
public struct GainMapImage: Hashable, Sendable {
  /// Its metadata (the ISO 21496-1 block's when there is one, else the XMP's).
  public var metadata: GainMapMetadata
  /// Which encoding `metadata` came from: "ISO 21496-1" or "XMP".
  public var metadataSource: String
  /// The map's stored size.
  public var size: Size
  /// `.gray` for a single-channel map, `.rgb` for a colour one.
  public var layout: ChannelLayout
  /// The bytes of the file holding the map's JPEG.
  public var range: Range<Int>
}

/// Reads the gain-map structure of JPEG files.
public enum UltraHDR {
  /// The gain map of the JPEG in `data` whose primary image is `baseSize`, or nil when the file
  /// declares none (no `hdrgm:` XMP, ISO 21496-1 block or MPF image carrying gain-map metadata).
  ///
  /// - Throws: `CodecError` (`.corrupt`, `.unsupported`, `.tooLarge`) naming what is wrong with a
  ///   gain map the file does declare.
  public static func gainMap(in data: Data, baseSize: Size, limits: DecodeLimits = .default) throws -> GainMapImage? {
    let primary = segments(of: data, from: 0)
    // A JPEG carrying gain-map values is itself a gain map, and has none of its own.
    guard primary.iso == nil, (try? primary.xmp.flatMap(GainMapXMP.metadata)) == nil || primary.xmp.flatMap(GainMapXMP.gainMapItemLength) != nil else {
      return nil
    }
    let declared = primary.isoVersion || primary.xmp.flatMap(GainMapXMP.version) != nil
    guard let (mpfPayload, tiffStart) = primary.mpf else {
      guard !declared else {
        throw CodecError(.corrupt, "The JPEG declares a gain map (hdrgm/ISO 21496-1) but has no Multi-Picture index (MPF) locating it.")
      }
      return nil
    }
    let index = try MultiPictureIndex(payload: mpfPayload, tiffStart: tiffStart, fileLength: data.count)
    for image in index.images.dropFirst() {
      let found = segments(of: data, from: image.range.lowerBound, end: image.range.upperBound)
      guard found.isJPEG, found.xmp.flatMap(GainMapXMP.version) != nil || found.isoVersion else { continue }
      return try describe(found, range: image.range, in: data, baseSize: baseSize, limits: limits)
    }
    guard !declared else { throw CodecError(.corrupt, "The JPEG declares a gain map, but no image its MPF index lists carries gain-map metadata.") }
    return nil
  }

  /// The gain map whose segments are `map`, after checking its size and that it leads nowhere.
  private static func describe(_ map: Segments, range: Range<Int>, in data: Data, baseSize: Size, limits: DecodeLimits) throws -> GainMapImage {
    if let (payload, tiffStart) = map.mpf, let own = try? MultiPictureIndex(payload: payload, tiffStart: tiffStart, fileLength: data.count), own.images.count > 1 {
      throw CodecError(.corrupt, "The JPEG's gain map lists further images in its own MPF index (a gain map chained to a gain map); it is not read.")
    }
    if let xmp = map.xmp, GainMapXMP.gainMapItemLength(xmp) != nil {
      throw CodecError(.corrupt, "The JPEG's gain map names a gain map of its own (a gain map chained to a gain map); it is not read.")
    }
    let fromXMP = try map.xmp.flatMap(GainMapXMP.metadata)
    let fromISO = try map.iso.flatMap { try GainMapISO.metadata(ArraySlice($0)) }
    guard let metadata = fromISO ?? fromXMP else {
      throw CodecError(.corrupt, "The JPEG's gain map carries no gain-map values (only a version).")
    }
    let header = try JPEGDecoder(data: data.subdata(in: range), limits: limits).header
    guard header.size.width <= baseSize.width, header.size.height <= baseSize.height else {
      throw CodecError(
        .corrupt, "The JPEG's gain map is \(header.size.width)×\(header.size.height), larger than its \(baseSize.width)×\(baseSize.height) image.")
    }
    var image = GainMapImage(
      metadata: metadata, metadataSource: fromISO != nil ? "ISO 21496-1" : "XMP", size: header.size, layout: header.layout, range: range)
    if let fromISO, let fromXMP, !fromISO.agrees(with: fromXMP) {
      image.metadataSource = "ISO 21496-1 (its XMP disagrees and is ignored)"
    }
    return image
  }

  /// What the segments of the JPEG starting at `start` say about gain maps.
  struct Segments {
    var isJPEG = false
    var xmp: Data?
    /// The ISO 21496-1 block (after its signature), and whether one was seen at all.
    var iso: [UInt8]?
    var isoVersion = false
    /// The MPF payload (after `MPF\0`) and the file offset of its first byte.
    var mpf: ([UInt8], Int)?
  }

  static func segments(of data: Data, from start: Int, end: Int? = nil) -> Segments {
    var found = Segments()
    data.withUnsafeBytes { all in
      let bytes = UnsafeRawBufferPointer(rebasing: all[start..<(end ?? all.count)])
      found.isJPEG = bytes.count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF
      JPEGMetadata.forEachSegment(in: bytes) { marker, payload in
        switch marker {
        case 0xE1 where found.xmp == nil && payload.starts(with: JPEGMetadata.xmpSignature):
          found.xmp = Data(payload.dropFirst(JPEGMetadata.xmpSignature.count))
        case 0xE2 where found.mpf == nil && payload.starts(with: MultiPictureIndex.signature):
          let offset = payload.baseAddress! - all.baseAddress! + MultiPictureIndex.signature.count
          found.mpf = (Array(payload.dropFirst(MultiPictureIndex.signature.count)), offset)
        case 0xE2 where !found.isoVersion && payload.starts(with: GainMapISO.signature):
          found.isoVersion = true
          let block = Array(payload.dropFirst(GainMapISO.signature.count))
          if block.count > GainMapISO.versionBlock.count { found.iso = block }
        default: break
        }
      }
    }
    return found
  }

  /// The map's JPEG in `data` without its APP1 and APP2 segments (XMP, EXIF, ICC profile, MPF,
  /// ISO 21496-1): a plain JPEG of the map's stored samples, which a graph reads with no colour
  /// conversion and no gain-map structure of its own.
  public static func plainMapJPEG(_ map: GainMapImage, in data: Data) -> Data {
    let bytes = [UInt8](data.subdata(in: map.range))
    var out: [UInt8] = [0xFF, 0xD8]
    var i = 2
    while i + 4 <= bytes.count, bytes[i] == 0xFF, bytes[i + 1] != 0xDA {
      let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
      guard length >= 2, i + 2 + length <= bytes.count else { break }
      if bytes[i + 1] != 0xE1 && bytes[i + 1] != 0xE2 { out += bytes[i..<(i + 2 + length)] }
      i += 2 + length
    }
    out += bytes[min(i, bytes.count)...]
    return Data(out)
  }

  /// The gain map's pixels: its JPEG decoded at full size (gray or RGB, 8-bit).
  public static func decodeMap(_ map: GainMapImage, in data: Data, limits: DecodeLimits = .default) throws -> PixelBuffer {
    let decoder = try JPEGDecoder(data: data.subdata(in: map.range), limits: limits)
    try decoder.start()
    var buffer = try decoder.makeBuffer()
    _ = try decoder.readRows(decoder.outputSize.height, into: &buffer)
    return buffer
  }
}
