// FormatChoice.swift — which format a response is written in.
//
// A format the URL names (`@webp`, `f:webp`) is used as it is. Otherwise the first of the
// server's negotiated formats (`--accept-formats`, best first) whose media type the request's
// `Accept` lists explicitly (q > 0) is chosen, and the response says `Vary: Accept`; failing
// that, the source's own format when it is one browsers show, else JPEG.

import Foundation
import ImageCodecs

/// The output format decided for a request (the source's format may still be needed).
enum FormatChoice: Equatable, Sendable {
  /// Named by the URL.
  case named(ImageFileFormat)
  /// Chosen from `Accept`.
  case negotiated(ImageFileFormat)
  /// The source's format (or JPEG), decided once its header is read.
  case sameAsSource

  /// Whether the response depends on `Accept`.
  var variesWithAccept: Bool { if case .named = self { return false } else { return true } }

  /// The part of the ETag this choice contributes.
  var key: String {
    switch self {
    case .named(let f): return "named:\(f.rawValue)"
    case .negotiated(let f): return "accept:\(f.rawValue)"
    case .sameAsSource: return "source"
    }
  }

  /// Formats a browser shows, kept when the URL names none and `Accept` picks none.
  static let webFormats: [ImageFileFormat] = [.jpeg, .png, .webp, .gif, .avif]

  /// Decides from the URL's extension or `f:` option, the `Accept` header and the server's order.
  ///
  /// - Throws: 400 for a format the server cannot write.
  static func decide(named: String?, accept: String?, offered: [ImageFileFormat]) throws -> FormatChoice {
    if let named {
      guard let format = ImageFileFormat(pathExtension: named), writable(format) else {
        let known = ImageFileFormat.allCases.filter(writable).map { $0.rawValue }.joined(separator: ", ")
        throw ServerError.badURL("The output format '\(named.prefix(20))' is not one this server writes (\(known)).")
      }
      return .named(format)
    }
    let listed = Set(acceptedMediaTypes(accept))
    if let format = offered.first(where: { listed.contains(mediaType($0)) && writable($0) }) {
      return .negotiated(format)
    }
    return .sameAsSource
  }

  /// The format to write once the source's is known.
  func resolved(source: ImageFileFormat) -> ImageFileFormat {
    switch self {
    case .named(let f), .negotiated(let f): return f
    case .sameAsSource: return Self.webFormats.contains(source) && Self.writable(source) ? source : .jpeg
    }
  }

  /// True when this build can encode `format`.
  static func writable(_ format: ImageFileFormat) -> Bool {
    guard let codec = format.codec else { return false }
    return codec.encoderUnavailableReason == nil
  }

  /// `image/…` of a format.
  static func mediaType(_ format: ImageFileFormat) -> String { "image/" + format.rawValue }

  /// The media types an `Accept` header lists with q > 0, lowercased.
  static func acceptedMediaTypes(_ header: String?) -> [String] {
    guard let header else { return [] }
    return header.split(separator: ",").compactMap { part in
      let fields = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
      guard let type = fields.first?.lowercased(), !type.isEmpty else { return nil }
      let q = fields.dropFirst().first { $0.lowercased().hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
      return q > 0 ? type : nil
    }
  }
}
