// LeftOutMetadata.swift — a descriptive metadata block a reader did not read (over
// `MetadataLimits.maxBlockBytes`, or not laid out as its format says), and the sentence that says
// so. The image is read without it. Kept apart from `ImageHeader.warnings` (problems with what the
// file says about its pixels) because it matters only where the block would have been written:
// a render whose output keeps no metadata of that kind (`fgrun --strip`, `--keep icc`) loses
// nothing by it and says nothing; one that keeps it warns; `info` always lists it.
import Foundation

/// A metadata block left out of what a file's header gives (`ImageHeader.leftOutMetadata`).
public struct LeftOutMetadata: Hashable, Sendable {
  /// The kinds of descriptive block a reader may leave out.
  public enum Kind: String, Hashable, Sendable {
    case exif, xmp, iptc, comment
  }

  /// Which block.
  public var kind: Kind
  /// What was left out and why, as a sentence ("The WebP's XMP chunk is 2300000 bytes, over the
  /// 1 MiB limit for a metadata block; it is left out.").
  public var message: String

  /// Creates a record.
  public init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }
}
