// SourceBytes.swift — what a source gives the pipeline: the encoded bytes, and what identifies
// them for ETags.

import Foundation

/// Where a URL's source is, known before any byte is read (what an ETag is made of).
struct SourceReference: Sendable {
  /// Identifies the bytes: a local file's path, size and modification time; a remote source's
  /// URL (remote sources are taken as immutable per URL, as a CDN takes them).
  var identity: String
  /// The local file's modification time, for `Last-Modified`.
  var lastModified: Date?
  /// How to read the bytes.
  var location: Location

  enum Location: Sendable {
    case file(URL)
    case remote(URL)
  }
}

/// A source's bytes.
struct SourceBytes: Sendable {
  var data: Data
  /// `Last-Modified` of a remote source, when it sent one.
  var lastModified: Date?
}
