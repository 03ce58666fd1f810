// ConnectionGuard.swift — what a connection may cost before any route sees it.
//
// Every route of the server is a GET (or HEAD) that reads no body, so a request body is only
// ever a cost: a request declaring more than `maxBodyBytes` (Content-Length) is answered 413 as
// soon as its head is read, and the connection stops reading and closes a second later (closing
// with the body unread would reset the connection, and the client might lose the answer); a body
// of undeclared length (chunked) that grows past the limit closes the connection. Connections past
// `maxConnections` get 503 with Retry-After to their first request and are closed (within a
// second when they send none), so idle clients never take all the descriptors the server needs
// for its sources, fetches and logs. (Slow or idle clients within the limit are closed by
// Hummingbird's idle timeout: a connection that completes no request head within it is closed.)

import Hummingbird
import NIOCore
import NIOHTTPTypes
import Synchronization

/// The connections open now, shared by the guards of one server.
final class ConnectionCount: Sendable {
  private let count = Atomic<Int>(0)

  /// Counts a connection in; returns how many are open with it.
  func open() -> Int { count.add(1, ordering: .relaxed).newValue }
  func close() { count.subtract(1, ordering: .relaxed) }
  var current: Int { count.load(ordering: .relaxed) }
}

/// Refuses requests with bodies over the limit (413) and connections over the limit (503).
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  private let maxBodyBytes: Int
  private let maxConnections: Int
  private let connections: ConnectionCount
  private var counted = false
  private var overLimit = false
  /// Body bytes of the request being read.
  private var bodyBytes = 0
  /// A request was passed on and its response has not ended.
  private var responding = false
  /// A refusal was written: everything the client sends now is dropped.
  private var refused = false

  init(maxBodyBytes: Int, maxConnections: Int, connections: ConnectionCount) {
    self.maxBodyBytes = maxBodyBytes
    self.maxConnections = maxConnections
    self.connections = connections
  }

  func handlerAdded(context: ChannelHandlerContext) {
    counted = true
    overLimit = connections.open() > maxConnections
    // Over the limit, a client gets a second to send the request that is answered 503.
    if overLimit {
      let channel = context.channel
      _ = context.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
    }
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    if counted { connections.close() }
    counted = false
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard !refused else { return }
    let part = unwrapInboundIn(data)
    switch part {
    case .head(let head):
      bodyBytes = 0
      if overLimit {
        refuse(context, status: .serviceUnavailable, "The server has too many connections open. Retry later.", retryAfter: 1, lingering: false)
        return
      }
      if let declared = head.headerFields[.contentLength].flatMap(Int.init), declared > maxBodyBytes {
        refuse(context, status: .contentTooLarge, "A request body may have at most \(maxBodyBytes) bytes; this one declares \(declared).", lingering: true)
        return
      }
      responding = true
    case .body(let bytes):
      bodyBytes += bytes.readableBytes
      if bodyBytes > maxBodyBytes {
        // Undeclared length: the request was passed on, so its answer may be under way.
        refused = true
        context.close(promise: nil)
        return
      }
    case .end:
      break
    }
    context.fireChannelRead(data)
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    if case .end = unwrapOutboundIn(data) { responding = false }
    context.write(data, promise: promise)
  }

  /// Answers `status` when no response is under way (else only closes) and closes: at once, or,
  /// `lingering` (a body is on its way), after a second of not reading.
  private func refuse(
    _ context: ChannelHandlerContext, status: HTTPResponse.Status, _ message: String, retryAfter: Int? = nil, lingering: Bool
  ) {
    refused = true
    guard !responding else {
      context.close(promise: nil)
      return
    }
    let body = ByteBuffer(string: message + "\n")
    var fields: HTTPFields = [
      .contentType: "text/plain; charset=utf-8", .contentLength: String(body.readableBytes), .connection: "close", .cacheControl: "no-store",
    ]
    if let retryAfter { fields[.retryAfter] = String(retryAfter) }
    let channel = context.channel
    context.write(wrapOutboundOut(.head(HTTPResponse(status: status, headerFields: fields))), promise: nil)
    context.write(wrapOutboundOut(.body(body)), promise: nil)
    let written = context.eventLoop.makePromise(of: Void.self)
    context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
    guard lingering else {
      written.futureResult.whenComplete { _ in channel.close(promise: nil) }
      return
    }
    try? channel.syncOptions?.setOption(ChannelOptions.autoRead, value: false)
    _ = context.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
  }
}
