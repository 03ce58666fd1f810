// ServerError.swift — every way a request can fail, as the status and short text a client gets.
//
// Handlers throw these; ErrorMiddleware turns them (and anything else) into a plain-text response.
// The message names the part of the URL or the limit at fault and never carries a stack trace,
// a file system path outside the URL, or a secret.

import ImageCodecs

/// A failed request: an HTTP status, a one-line reason, and for 429/503 when to come back.
public struct ServerError: Error, Sendable, CustomStringConvertible {
  /// The HTTP status code.
  public var status: Int
  /// The response body (one line).
  public var message: String
  /// Seconds a client should wait before retrying (`Retry-After`).
  public var retryAfter: Int?

  public init(_ status: Int, _ message: String, retryAfter: Int? = nil) {
    self.status = status
    self.message = message
    self.retryAfter = retryAfter
  }

  public var description: String { "\(status) \(message)" }

  /// 400: the URL is malformed.
  static func badURL(_ message: String) -> ServerError { ServerError(400, message) }
  /// 403: the signature is missing or wrong, or the source is not allowed.
  static func forbidden(_ message: String) -> ServerError { ServerError(403, message) }
  /// 404: the source does not exist.
  static func notFound(_ message: String) -> ServerError { ServerError(404, message) }
  /// 413: the source is over a size limit.
  static func tooLarge(_ message: String) -> ServerError { ServerError(413, message) }
  /// 422: the source is not an image this server reads, or the request asks too much of it.
  static func unprocessable(_ message: String) -> ServerError { ServerError(422, message) }
  /// 502: the remote source failed.
  static func badGateway(_ message: String) -> ServerError { ServerError(502, message) }
  /// 504: the remote source (or the whole request) took too long.
  static func timeout(_ message: String) -> ServerError { ServerError(504, message) }

  /// The response for an error a codec or the renderer raised while reading the source or
  /// rendering: bad or unsupported bytes are the source's fault (422), limits are 413.
  static func from(codec error: CodecError) -> ServerError {
    switch error.kind {
    case .tooLarge: return tooLarge("The source is too large: \(error.message)")
    case .corrupt, .truncated, .unsupported: return unprocessable("The source cannot be read as an image: \(error.message)")
    case .invalidArgument: return badURL(error.message)
    case .io: return ServerError(500, "The image could not be produced.")
    }
  }
}
