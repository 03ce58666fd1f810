// URLSigner.swift — imgproxy's URL signatures, so existing signing code works unchanged.
//
// A URL `/SIGNATURE/REST` is signed when SIGNATURE is the URL-safe Base64 (no padding) of
// HMAC-SHA256(key, salt ‖ "/REST") for one of the configured key/salt pairs (several pairs are
// tried, so keys can be rotated without downtime). Comparison runs in constant time over the
// 32 digest bytes. Sources: https://docs.imgproxy.net/usage/signing_url (the scheme) and
// RFC 4648 §5 (the alphabet).

import Crypto
import Foundation

/// Checks and makes imgproxy-style signatures.
public struct URLSigner: Sendable {
  /// The pairs a signature may be made with.
  public let keys: [SigningKey]

  public init(keys: [SigningKey]) { self.keys = keys }

  /// The signature of `path` (which starts with "/", the part after the signature) with `key`.
  public static func signature(of path: String, key: SigningKey) -> String {
    base64URL(digest(of: path, key: key))
  }

  /// True when `signature` signs `path` with one of the keys.
  public func isValid(signature: some StringProtocol, path: some StringProtocol) -> Bool {
    guard let given = Self.decodeBase64URL(signature), given.count == SHA256.byteCount else { return false }
    var matched = false
    for key in keys where Self.constantTimeEqual(Self.digest(of: path, key: key), given) {
      matched = true
    }
    return matched
  }

  private static func digest(of path: some StringProtocol, key: SigningKey) -> [UInt8] {
    var hmac = HMAC<SHA256>(key: SymmetricKey(data: key.key))
    hmac.update(data: key.salt)
    hmac.update(data: Array(path.utf8))
    return Array(hmac.finalize())
  }

  /// Equal length and bytes, taking the same time whichever byte differs.
  static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for i in a.indices { difference |= a[i] ^ b[i] }
    return difference == 0
  }

  /// URL-safe Base64 without padding.
  static func base64URL(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString()
      .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
      .replacingOccurrences(of: "=", with: "")
  }

  /// The bytes of URL-safe (or standard) Base64 text with or without padding, or nil.
  static func decodeBase64URL(_ text: some StringProtocol) -> [UInt8]? {
    var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while let last = standard.last, last == "=" { standard.removeLast() }
    guard standard.count % 4 != 1 else { return nil }
    standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
    return Data(base64Encoded: standard).map { Array($0) }
  }
}
