// Image+Metadata.swift — reading what an image's file said about it.

import Foundation
import ImageCodecs
import PixelBufferModule

extension Image {
  /// What an image's source file says about it beyond its pixels: the parsed EXIF fields and the
  /// blocks a written file keeps (see `MetadataKinds`).
  public struct Metadata: Hashable, Sendable {
    /// The EXIF fields FilterGraph interprets (orientation, pixel dimensions, capture time, camera
    /// make and model), nil without an EXIF block.
    public var exif: EXIFFields?
    /// The EXIF block as stored (a TIFF structure).
    public var exifBlock: Data?
    /// The XMP packet as text (nil when absent or not UTF-8).
    public var xmp: String?
    /// A JPEG's extended XMP packet as text (the part of a large XMP that `xmp` names by its GUID;
    /// nil when absent or not UTF-8).
    public var xmpExtension: String?
    /// The IPTC-IIM records, raw.
    public var iptc: Data?
    /// The comment.
    public var comment: String?
    /// The ICC profile the pixels are described by, if any.
    public var iccProfile: Data?
  }

  /// What this image's file says about it: the source's metadata, carried through filters from
  /// their first input (the base of a composite, not the overlay). Known without decoding pixels.
  ///
  /// ```swift
  /// let photo = try Image(contentsOf: url)
  /// print(photo.metadata.exif?.cameraModel ?? "unknown camera", photo.metadata.exif?.captureTime ?? "")
  /// ```
  public var metadata: Metadata {
    let m = info.metadata
    return Metadata(
      exif: m.exif.flatMap { EXIF.fields(tiff: [UInt8]($0)) }, exifBlock: m.exif,
      xmp: m.xmp.flatMap { String(validating: [UInt8]($0), as: UTF8.self) },
      xmpExtension: m.xmpExtension.flatMap { String(validating: [UInt8]($0), as: UTF8.self) }, iptc: m.iptc, comment: m.comment,
      iccProfile: m.iccProfile)
  }
}

extension Image {
  /// What is wrong with what the source files say about their colours, one sentence each, named
  /// by file: an ICC profile that is damaged, for another colour model, or split over segments
  /// that do not fit together (the pixels are then read as sRGB), a CMYK profile that cannot be
  /// used. Known from the headers, before any decode; a render reports the same through the
  /// renderer's warning handler, and fails on them for sources loaded with `LoadOptions.strict`.
  public var sourceWarnings: [String] {
    var warnings: [String] = []
    var seen: Set<ObjectIdentifier> = []
    var pending = [node]
    while let next = pending.popLast() {
      guard seen.insert(ObjectIdentifier(next)).inserted else { continue }
      pending.append(contentsOf: next.inputs.reversed())
      guard let encoded = next.operation as? EncodedSourceOperation else { continue }
      warnings += encoded.source.header.warnings.map { "\(encoded.source.name): \($0)" }
      if let problem = SourceColor.problem(encoded) { warnings.append(problem) }
    }
    return warnings
  }
}

extension EncodedSource {
  /// The sentences, named by file, for the descriptive blocks its reader left out
  /// (`ImageHeader.leftOutMetadata`) that a file keeping `kept` would have written; those of
  /// other kinds are lost to nothing and not mentioned (`fgrun --strip` drops them all anyway).
  ///
  /// - Throws: `.corrupt` with the first of them for a source loaded with `LoadOptions.strict`.
  func leftOutMetadataWarnings(kept: MetadataKinds) throws -> [String] {
    let warnings = header.leftOutMetadata.filter { kept.contains(MetadataKinds($0.kind)) }.map { "\(name): \($0.message)" }
    if options.strict, let first = warnings.first { throw CodecError(.corrupt, first) }
    return warnings
  }
}

extension Image {
  /// The file this image's metadata comes from (every filter's first input, down to a source),
  /// or nil when that source is not a file.
  var metadataSource: EncodedSource? {
    var node = self.node
    while let first = node.inputs.first { node = first }
    return (node.operation as? EncodedSourceOperation)?.source
  }
}

