// ErrorResponses.swift — turns whatever a handler throws into a short plain-text response:
// `ServerError`s as they say, Hummingbird's own errors (unknown route) by their status, and
// anything else as a 500 whose detail goes to the log only. No error reaches the client as a
// stack trace, and none ends the process.

import Hummingbird
import Logging

/// Maps thrown errors to responses.
struct ErrorResponses<Context: RequestContext>: RouterMiddleware {
  let logger: Logger

  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
    do {
      return try await next(request, context)
    } catch let error as ServerError {
      return Self.response(error)
    } catch let error as HTTPError {
      return Self.response(ServerError(Int(error.status.code), error.status.reasonPhrase))
    } catch is CancellationError {
      return Self.response(ServerError(503, "The request was cancelled."))
    } catch {
      logger.error("internal error", metadata: ["path": "\(request.uri.path.prefix(200))", "error": "\(error)"])
      return Self.response(ServerError(500, "The image could not be produced."))
    }
  }

  /// The response for `error`.
  static func response(_ error: ServerError) -> Response {
    var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"]
    if let seconds = error.retryAfter { headers[.retryAfter] = String(seconds) }
    return Response(
      status: HTTPResponse.Status(code: error.status), headers: headers,
      body: ResponseBody(byteBuffer: ByteBuffer(string: error.message + "\n")))
  }
}
