// MetadataKinds.swift — which metadata a written file keeps (`WriteOptions.keptMetadata`,
// `fgrun --keep all|none|LIST`, `--strip`).
//
// Kept by default (`.all`): the EXIF block (made true of the written pixels: Orientation 1,
// PixelXDimension/PixelYDimension the output size, the IFD1 thumbnail dropped; `EXIF.upright`),
// the XMP packet and the comment as they were read, the IPTC records (JPEG only: PNG and WebP
// have no place for them), and the ICC profile `WriteOptions.profile` chooses. Without `.icc`,
// the output is written as sRGB with no profile (the colours stay right; the file is untagged).
// What is kept comes from the graph's base image: the first input of every filter, so the
// photo under a watermark, not the watermark.

import Foundation
import ImageCodecs
import PixelBufferModule

/// A set of metadata kinds: EXIF, XMP, IPTC, ICC profile, comment.
public struct MetadataKinds: OptionSet, Hashable, Sendable, CustomStringConvertible {
  public let rawValue: Int
  /// Creates a set from its raw bits.
  public init(rawValue: Int) { self.rawValue = rawValue }

  /// The EXIF block (JPEG APP1, PNG eXIf, WebP EXIF).
  public static let exif = MetadataKinds(rawValue: 1)
  /// The XMP packet (JPEG APP1, PNG iTXt, WebP XMP).
  public static let xmp = MetadataKinds(rawValue: 2)
  /// The IPTC-IIM records (JPEG APP13).
  public static let iptc = MetadataKinds(rawValue: 4)
  /// The ICC profile (as `WriteOptions.profile` says).
  public static let icc = MetadataKinds(rawValue: 8)
  /// The comment (JPEG COM, PNG tEXt/iTXt `Comment`).
  public static let comment = MetadataKinds(rawValue: 16)
  /// Everything (the default).
  public static let all: MetadataKinds = [.exif, .xmp, .iptc, .icc, .comment]
  /// Nothing: no metadata chunk or segment at all (an sRGB PNG keeps its one-byte sRGB chunk).
  public static let none: MetadataKinds = []

  /// The kind of a block a reader left out.
  init(_ kind: LeftOutMetadata.Kind) {
    switch kind {
    case .exif: self = .exif
    case .xmp: self = .xmp
    case .iptc: self = .iptc
    case .comment: self = .comment
    }
  }

  /// The names, in the order of `--keep`'s list.
  static let names: [(String, MetadataKinds)] = [("exif", .exif), ("xmp", .xmp), ("iptc", .iptc), ("icc", .icc), ("comment", .comment)]

  /// The set a command line names: `all`, `none`, or a comma-separated list of `exif`, `xmp`,
  /// `iptc`, `icc`, `comment`.
  ///
  /// - Throws: `.invalidArgument` naming the word that is none of these.
  public init(argument: String) throws {
    switch argument.lowercased() {
    case "all": self = .all
    case "none": self = .none
    default:
      var kinds: MetadataKinds = []
      for word in argument.lowercased().split(separator: ",", omittingEmptySubsequences: false) {
        let name = word.trimmingCharacters(in: .whitespaces)
        guard let kind = Self.names.first(where: { $0.0 == name })?.1 else {
          throw CodecError(
            .invalidArgument,
            "--keep: '\(name)' is not all, none or a list of \(Self.names.map(\.0).joined(separator: ", ")).")
        }
        kinds.insert(kind)
      }
      self = kinds
    }
  }

  /// `all`, `none`, or the list of names.
  public var description: String {
    if self == .all { return "all" }
    if isEmpty { return "none" }
    return Self.names.filter { contains($0.1) }.map(\.0).joined(separator: ",")
  }

  /// The metadata written for an image whose graph carries `carried`, of `size` (the written
  /// pixels, upright), with `profile` embedded (already decided by the output profile), into a
  /// file of `format`. A JPEG keeps an extended XMP packet as its own segments; other formats hold
  /// XMP of any size in one block and get the main packet with the extension merged into it
  /// (`XMPMerge`; the main packet alone when they cannot be merged safely).
  func written(from carried: ImageMetadata, size: Size, profile: Data?, format: ImageFileFormat) -> ImageMetadata {
    var out = ImageMetadata(iccProfile: profile)
    guard carried.hasDescriptiveBlocks else { return out }
    if contains(.exif), let exif = carried.exif, let upright = EXIF.upright(tiff: [UInt8](exif), pixelSize: size) {
      out.exif = Data(upright)
    }
    if contains(.xmp) {
      if format == .jpeg {
        out.xmp = carried.xmp
        out.xmpExtension = carried.xmpExtension
      } else {
        out.xmp = carried.xmp.map { main in carried.xmpExtension.flatMap { XMPMerge.merged(main: main, extended: $0) } ?? main }
      }
    }
    if contains(.iptc) { out.iptc = carried.iptc }
    if contains(.comment) { out.comment = carried.comment }
    return out
  }
}
