// UltraHDRFile.swift — an Ultra HDR JPEG put together from two encoded JPEGs, as Android's Ultra
// HDR format 1.1 and ISO 21496-1 lay it out:
//
//   primary: SOI, its APP0/APP1 (JFIF, EXIF), APP1 XMP (the primary packet: hdrgm:Version and the
//            Container:Directory with the map's length, merged into the image's own XMP),
//            APP2 ISO 21496-1 version block, APP2 MPF (2 images), then the rest of the primary
//   map:     SOI, APP1 XMP (the hdrgm: values), APP2 ISO 21496-1 (the values), the rest of the map
//
// Any XMP, MPF or ISO 21496-1 segment either JPEG already had is replaced (an earlier gain map's
// description would otherwise contradict this one).
import Foundation

/// Writes Ultra HDR JPEGs.
public enum UltraHDRFile {
  /// The Ultra HDR JPEG of `primary` (the base) and `map` (the gain map), both complete JPEG
  /// files, with `metadata`.
  ///
  /// - Throws: `.invalidArgument` when either is not a JPEG, the metadata describes no gain map, or
  ///   an XMP packet does not fit one segment.
  public static func assemble(primary: Data, map: Data, metadata: GainMapMetadata) throws -> Data {
    if let problem = metadata.problem { throw CodecError(.invalidArgument, "The gain-map metadata cannot be written: \(problem)") }
    let mapSegments = [
      try segment(0xE1, JPEGMetadata.xmpSignature + [UInt8](GainMapXMP.gainMapPacket(metadata))),
      try segment(0xE2, GainMapISO.signature + GainMapISO.block(metadata)),
    ]
    let (mapHead, _, mapRest) = try split(map, "gain map")
    let mapFile = mapHead + mapSegments.flatMap { $0 } + mapRest

    let (head, ownXMP, rest) = try split(primary, "base image")
    let xmp = GainMapXMP.primaryPacket(gainMapLength: mapFile.count, merging: ownXMP)
    let before = head + (try segment(0xE1, JPEGMetadata.xmpSignature + [UInt8](xmp))) + (try segment(0xE2, GainMapISO.signature + GainMapISO.versionBlock))
    // The MPF segment's payload starts 4 bytes (marker, length) after its position; the index
    // counts offsets from the byte after `MPF\0`.
    let tiffStart = before.count + 4 + MultiPictureIndex.signature.count
    let primaryLength = before.count + 4 + MultiPictureIndex.payloadLength + rest.count
    let mpf = try segment(0xE2, MultiPictureIndex.payload(primaryLength: primaryLength, gainMapLength: mapFile.count, tiffStart: tiffStart))
    var out = Data(capacity: primaryLength + mapFile.count)
    out.append(contentsOf: before)
    out.append(contentsOf: mpf)
    out.append(contentsOf: rest)
    out.append(contentsOf: mapFile)
    return out
  }

  /// A marker segment: FF, marker, big-endian length (payload + 2), payload.
  static func segment(_ marker: UInt8, _ payload: [UInt8]) throws -> [UInt8] {
    guard payload.count <= JPEGMetadata.maxPayload else {
      throw CodecError(.invalidArgument, "A gain-map segment of \(payload.count) bytes does not fit a JPEG segment.")
    }
    let length = payload.count + 2
    return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
  }

  /// The JPEG's bytes cut where the new segments go: SOI and its leading APP0/APP1-EXIF segments;
  /// its XMP packet (removed from the bytes); and everything after, less any XMP, MPF or
  /// ISO 21496-1 segment before the first scan.
  static func split(_ jpeg: Data, _ what: String) throws -> (head: [UInt8], xmp: Data?, rest: [UInt8]) {
    let bytes = [UInt8](jpeg)
    guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF else {
      throw CodecError(.invalidArgument, "The \(what) to put in an Ultra HDR file is not a JPEG.")
    }
    var head: [UInt8] = [0xFF, 0xD8], rest: [UInt8] = []
    var xmp: Data?
    var i = 2
    var leading = true
    while i + 4 <= bytes.count, bytes[i] == 0xFF {
      let marker = bytes[i + 1]
      // The first scan (SOS) and everything after it are copied as they are.
      guard marker != 0xDA, marker != 0xD9 else { break }
      let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
      guard length >= 2, i + 2 + length <= bytes.count else { throw CodecError(.invalidArgument, "The \(what)'s segments run past its end.") }
      let whole = Array(bytes[i..<(i + 2 + length)])
      let payload = whole[4...]
      let isXMP = marker == 0xE1 && payload.starts(with: JPEGMetadata.xmpSignature)
      let isDropped = marker == 0xE2 && (payload.starts(with: MultiPictureIndex.signature) || payload.starts(with: GainMapISO.signature))
      if isXMP {
        if xmp == nil { xmp = Data(payload.dropFirst(JPEGMetadata.xmpSignature.count)) }
      } else if !isDropped {
        leading = leading && (marker == 0xE0 || (marker == 0xE1 && payload.starts(with: EXIF.app1Signature)))
        if leading { head += whole } else { rest += whole }
      }
      i += 2 + length
    }
    rest += bytes[i...]
    return (head, xmp, rest)
  }
}
