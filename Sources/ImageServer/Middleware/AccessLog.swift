// AccessLog.swift — one structured log line per request (method, path without its signature,
// status, response bytes, milliseconds) and the requests-by-status metric.

import Hummingbird
import Logging

/// Logs and counts every request.
struct AccessLog<Context: RequestContext>: RouterMiddleware {
  let logger: Logger
  let metrics: ServerMetrics

  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
    let clock = ContinuousClock(), start = clock.now
    let response = try await next(request, context)
    let elapsed = clock.now - start
    let status = Int(response.status.code)
    metrics.request(status: status)
    if let bytes = response.body.contentLength, status == 200, request.method != .head { metrics.responseBytes(bytes) }
    let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    logger.info(
      "request",
      metadata: [
        "method": "\(request.method)", "path": "\(Self.redacted(request.uri.path))", "status": "\(status)",
        "bytes": "\(response.body.contentLength ?? 0)", "ms": "\((ms * 10).rounded() / 10)",
      ])
    return response
  }

  /// The path with its signature segment replaced (signatures are credentials of a kind).
  static func redacted(_ path: String) -> String {
    let parts = path.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
    guard parts.count == 2, let rest = parts.last, let slash = rest.firstIndex(of: "/") else { return String(path.prefix(300)) }
    return String(("/-" + rest[slash...]).prefix(300))
  }
}
