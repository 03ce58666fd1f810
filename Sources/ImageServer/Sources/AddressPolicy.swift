// AddressPolicy.swift — which addresses a remote source may be fetched from (SSRF protection).
//
// Every address a host name resolves to must be public: loopback, link-local (cloud metadata
// services live at 169.254.169.254), private, carrier-grade NAT, multicast, reserved and
// unspecified ranges are refused, for IPv4 and IPv6 (IPv4-mapped IPv6 is judged as IPv4), unless
// the address lies in a network the operator allowed (`--allow-network`). Ranges: RFC 1122,
// RFC 1918, RFC 3927, RFC 4193, RFC 4291, RFC 6598, RFC 6890.

import Foundation

/// An IPv4 or IPv6 network: an address and a prefix length.
public struct IPNetwork: Sendable, Equatable, CustomStringConvertible {
  /// 4 or 16 bytes.
  let address: [UInt8]
  let prefix: Int

  /// Parses `ADDRESS` or `ADDRESS/PREFIX` (IPv4 or IPv6); nil when it is neither.
  public init?(_ text: String) {
    let parts = text.split(separator: "/", maxSplits: 1)
    guard let first = parts.first, let address = Self.bytes(String(first)) else { return nil }
    let bits = address.count * 8
    let prefix = parts.count == 2 ? Int(parts[1]) : bits
    guard let prefix, (0...bits).contains(prefix) else { return nil }
    self.address = address
    self.prefix = prefix
  }

  public var description: String { Self.text(address) + "/\(prefix)" }

  /// True when `bytes` (of the same family) lie in this network.
  func contains(_ bytes: [UInt8]) -> Bool {
    guard bytes.count == address.count else { return false }
    var remaining = prefix
    for i in bytes.indices where remaining > 0 {
      let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
      if bytes[i] & mask != address[i] & mask { return false }
      remaining -= 8
    }
    return true
  }

  /// The bytes of an IPv4 or IPv6 address in text, or nil.
  static func bytes(_ text: String) -> [UInt8]? {
    var v4 = in_addr()
    if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
    var v6 = in6_addr()
    if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
    return nil
  }
}

/// Decides whether an address may be connected to.
struct AddressPolicy: Sendable {
  /// Networks allowed although not public.
  let allowed: [IPNetwork]

  /// The ranges that are not public.
  static let refused: [IPNetwork] = [
    "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
    "192.0.0.0/24", "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24",
    "224.0.0.0/4", "240.0.0.0/4",
    "::/128", "::1/128", "fc00::/7", "fe80::/10", "ff00::/8", "2001:db8::/32", "64:ff9b::/96",
  ].compactMap { IPNetwork($0) }

  /// Nil when `bytes` may be connected to, else why not.
  func refusal(_ bytes: [UInt8]) -> String? {
    var address = bytes
    // IPv4-mapped IPv6 (::ffff:a.b.c.d) is the IPv4 address.
    if bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
      address = Array(bytes[12...])
    }
    if allowed.contains(where: { $0.contains(address) }) { return nil }
    if let range = Self.refused.first(where: { $0.contains(address) }) {
      return "it resolves to \(IPNetwork.text(address)), in the non-public range \(range)"
    }
    return nil
  }

  /// The addresses `host` resolves to (an address literal is itself), resolved off the caller's
  /// thread.
  static func resolve(_ host: String) async throws -> [[UInt8]] {
    let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    if let literal = IPNetwork.bytes(bare) { return [literal] }
    return try await withCheckedThrowingContinuation { continuation in
      DispatchQueue.global().async {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(bare, nil, &hints, &list) == 0, let first = list else {
          continuation.resume(throwing: ServerError.badGateway("The source host '\(bare.prefix(100))' cannot be resolved."))
          return
        }
        defer { freeaddrinfo(list) }
        var result: [[UInt8]] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let e = entry {
          if e.pointee.ai_family == AF_INET, let sa = e.pointee.ai_addr {
            var a = sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            result.append(withUnsafeBytes(of: &a) { Array($0) })
          } else if e.pointee.ai_family == AF_INET6, let sa = e.pointee.ai_addr {
            var a = sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            result.append(withUnsafeBytes(of: &a) { Array($0) })
          }
          entry = e.pointee.ai_next
        }
        continuation.resume(returning: result)
      }
    }
  }
}

extension IPNetwork {
  /// An address's text form.
  static func text(_ bytes: [UInt8]) -> String {
    var buffer = [CChar](repeating: 0, count: 64)
    _ = bytes.withUnsafeBytes { inet_ntop(bytes.count == 4 ? AF_INET : AF_INET6, $0.baseAddress, &buffer, 64) }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
