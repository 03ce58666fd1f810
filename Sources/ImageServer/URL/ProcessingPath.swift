// ProcessingPath.swift — imgproxy's URL grammar, split into its parts before anything is read.
//
//   /SIGNATURE/OPTION/OPTION/…/plain/SOURCE_URL[@EXTENSION]
//   /SIGNATURE/OPTION/OPTION/…/BASE64_SOURCE_URL[.EXTENSION]     (Base64 may be split by "/")
//
// An option is `name:arg:arg…` (a colon in every option, none in Base64 text), so the options
// are the leading segments holding a colon. A plain source URL is percent-decoded; its extension
// follows the last "@". Source: https://docs.imgproxy.net/usage/processing (the grammar).

import Foundation

/// A request path split into signature, options, source and extension.
struct ProcessingPath: Equatable {
  /// The first segment.
  var signature: String
  /// Everything after the signature, from its "/": what the signature signs.
  var signedPart: String
  /// The option segments, in order, as `[name, arg, arg…]`.
  var options: [[Substring]]
  /// The source URL (`local:///…`, `http(s)://…`).
  var source: String
  /// The extension after `@` (plain) or `.` (Base64), lowercased, if any.
  var fileExtension: String?

  /// The first segment of `path` and everything after it (from its "/"): what a signature is
  /// checked against before anything else of the URL is read.
  static func signature(of path: String) -> (signature: Substring, signedPart: Substring) {
    let rest = path.dropFirst()
    guard let slash = rest.firstIndex(of: "/") else { return (rest, "") }
    return (rest[..<slash], rest[slash...])
  }

  /// Splits `path` (the request path as sent, percent-encoded).
  ///
  /// - Throws: `ServerError` 400 naming the part that is wrong.
  init(_ path: String) throws {
    var segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
    guard path.hasPrefix("/"), let signature = segments.popFirst(), !signature.isEmpty else {
      throw ServerError.badURL("The URL has no signature segment: expected /SIGNATURE/OPTIONS/plain/SOURCE.")
    }
    self.signature = String(signature)
    self.signedPart = String(path.dropFirst(signature.count + 1))
    var options: [[Substring]] = []
    while let next = segments.first, next != "plain", next != "enc", next.contains(":") {
      options.append(next.split(separator: ":", omittingEmptySubsequences: false))
      segments.removeFirst()
    }
    self.options = options
    switch segments.first {
    case nil:
      throw ServerError.badURL("The URL has no source: expected …/plain/SOURCE_URL or a Base64 source after the options.")
    case "enc":
      throw ServerError.badURL("Encrypted source URLs (enc/) are not supported: use plain/ or Base64.")
    case "plain":
      let rest = segments.dropFirst().joined(separator: "/")
      var url = rest
      var ext: String?
      if let at = rest.lastIndex(of: "@") {
        url = String(rest[..<at])
        ext = String(rest[rest.index(after: at)...])
      }
      guard let decoded = url.removingPercentEncoding, !decoded.isEmpty else {
        throw ServerError.badURL("The plain source URL '\(url)' is empty or badly percent-encoded.")
      }
      self.source = decoded
      self.fileExtension = try Self.checkedExtension(ext)
    default:
      let joined = segments.joined()
      var text = Substring(joined)
      var ext: String?
      if let dot = joined.lastIndex(of: ".") {
        text = joined[..<dot]
        ext = String(joined[joined.index(after: dot)...])
      }
      guard let bytes = URLSigner.decodeBase64URL(text), let decoded = String(bytes: bytes, encoding: .utf8), !decoded.isEmpty else {
        throw ServerError.badURL("The source '\(joined.prefix(80))' is neither plain/… nor valid URL-safe Base64.")
      }
      self.source = decoded
      self.fileExtension = try Self.checkedExtension(ext)
    }
  }

  private static func checkedExtension(_ ext: String?) throws -> String? {
    guard let ext else { return nil }
    guard !ext.isEmpty, ext.count <= 8, ext.allSatisfy({ $0.isLetter || $0.isNumber }) else {
      throw ServerError.badURL("The extension '\(ext.prefix(20))' is not a format name.")
    }
    return ext.lowercased()
  }
}
