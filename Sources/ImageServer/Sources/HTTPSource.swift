// HTTPSource.swift — `http(s)://` sources, fetched with async-http-client under limits.
//
// A URL must start with one of the allowed prefixes. Redirects are followed here, not by the
// client, so every hop is checked: http or https only, at most `maxRedirects`, and every address
// the hop's host resolves to must pass the AddressPolicy. A plain-http hop connects to the
// checked address itself (the Host header keeps the name), so a name cannot resolve to a public
// address for the check and a private one for the connection; an https hop connects by name
// (certificates name hosts), which leaves that DNS-rebinding window to the resolver's cache.
// The body is refused past `maxBytes` (from Content-Length when sent, else while reading), and
// the whole fetch, every hop and the body included, has one deadline.

import AsyncHTTPClient
import Foundation
import Locking
import NIOCore

/// Fetches remote sources.
struct HTTPSource: Sendable {
  let client: HTTPClient
  let allowedPrefixes: [String]
  let policy: AddressPolicy
  let maxBytes: Int
  let maxRedirects: Int
  let timeout: Double

  /// The reference for `url` (prefix and scheme checked; nothing fetched).
  func reference(_ text: String) throws -> SourceReference {
    guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
      throw ServerError.badURL("The source URL '\(text.prefix(200))' is not a valid http(s) URL.")
    }
    guard allowedPrefixes.contains(where: { text.hasPrefix($0) }) else {
      throw ServerError.forbidden("The source URL '\(text.prefix(200))' is not under an allowed prefix (--allow-source).")
    }
    return SourceReference(identity: "url:\(text)", lastModified: nil, location: .remote(url))
  }

  /// The bytes at `url`, within the limits.
  func fetch(_ url: URL) async throws -> SourceBytes {
    let deadline = NIODeadline.now() + .milliseconds(Int64(timeout * 1000))
    do {
      return try await withDeadline(seconds: timeout, "The source took longer than \(timeout) s.") {
        try await self.follow(url, deadline: deadline)
      }
    } catch let error as ServerError {
      throw error
    } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
      throw ServerError.timeout("The source took longer than \(timeout) s.")
    } catch is NIOTooManyBytesError {
      throw ServerError.tooLarge("The source is over the limit of \(maxBytes) bytes.")
    } catch {
      throw ServerError.badGateway("The source could not be fetched (\(Self.reason(error))).")
    }
  }

  /// Fetches `start`, following redirects, each hop checked.
  private func follow(_ start: URL, deadline: NIODeadline) async throws -> SourceBytes {
    var url = start
    for hop in 0...maxRedirects {
      let response = try await client.execute(try await request(for: url), deadline: deadline)
      let status = response.status.code
      if [301, 302, 303, 307, 308].contains(status) {
        guard hop < maxRedirects else { throw ServerError.badGateway("The source redirected more than \(maxRedirects) times.") }
        guard let location = response.headers.first(name: "location"), let next = URL(string: location, relativeTo: url)?.absoluteURL,
          let scheme = next.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else {
          throw ServerError.badGateway("The source sent a redirect without a valid http(s) Location.")
        }
        url = next
        continue
      }
      if status == 404 || status == 410 { throw ServerError.notFound("The source answered \(status).") }
      guard status == 200 else { throw ServerError.badGateway("The source answered \(status).") }
      if let length = response.headers.first(name: "content-length").flatMap(Int.init), length > maxBytes {
        throw ServerError.tooLarge("The source is \(length) bytes, over the limit of \(maxBytes).")
      }
      let body = try await response.body.collect(upTo: maxBytes)
      if let length = response.headers.first(name: "content-length").flatMap(Int.init), length != body.readableBytes {
        throw ServerError.badGateway("The source sent \(body.readableBytes) of \(length) bytes.")
      }
      let modified = response.headers.first(name: "last-modified").flatMap(HTTPDate.parse)
      return SourceBytes(data: Data(body.readableBytesView), lastModified: modified)
    }
    throw ServerError.badGateway("The source redirected more than \(maxRedirects) times.")
  }

  /// The request for one hop, its host's addresses checked; plain http goes to the checked address.
  private func request(for url: URL) async throws -> HTTPClientRequest {
    guard let host = url.host else { throw ServerError.badGateway("A redirect named no host.") }
    let addresses = try await AddressPolicy.resolve(host)
    guard let first = addresses.first else { throw ServerError.badGateway("The source host '\(host.prefix(100))' has no address.") }
    for address in addresses {
      if let reason = policy.refusal(address) {
        throw ServerError.forbidden("The source host '\(host.prefix(100))' is not allowed: \(reason).")
      }
    }
    var request: HTTPClientRequest
    if url.scheme?.lowercased() == "http", var parts = URLComponents(url: url, resolvingAgainstBaseURL: true) {
      let literal = IPNetwork.text(first)
      parts.host = first.count == 16 ? "[\(literal)]" : literal
      request = HTTPClientRequest(url: parts.string ?? url.absoluteString)
      request.headers.replaceOrAdd(name: "Host", value: url.port.map { "\(host):\($0)" } ?? host)
    } else {
      request = HTTPClientRequest(url: url.absoluteString)
    }
    request.headers.add(name: "User-Agent", value: "fgrun-serve")
    request.headers.add(name: "Accept", value: "image/*")
    return request
  }

  private static func reason(_ error: Error) -> String {
    let text = String(describing: error)
    return text.count > 120 ? String(text.prefix(120)) + "…" : text
  }
}

/// `Last-Modified` / `If-Modified-Since` dates (RFC 9110 §5.6.7, the IMF-fixdate form).
enum HTTPDate {
  /// One formatter (DateFormatter is not safe to share unlocked).
  private static let formatter: Locked<DateFormatter> = {
    let f = DateFormatter()
    f.locale = Locale(identifier: "en_US_POSIX")
    f.timeZone = TimeZone(identifier: "GMT")
    f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return Locked(f)
  }()

  static func format(_ date: Date) -> String { formatter.withLock { $0.string(from: date) } }
  static func parse(_ text: String) -> Date? { formatter.withLock { $0.date(from: text) } }
}
