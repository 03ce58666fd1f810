// ConnectionWatch.swift — a client that goes away cancels its request.
//
// Hummingbird does not cancel a handler when its client leaves, and its own helper for that
// (`consumeWithCancellationOnInboundClose`) closes the connection after every response, which
// would end keep-alive. So each connection gets a `ConnectionWatch`, told by a channel handler
// when the client's side of the connection ends (EOF, as nginx takes a client abort, or the
// channel closing); the request running on it then has its task cancelled, so its fetch closes
// and its render stops at its next tile, and its admission budget is given back.

import Hummingbird
import NIOCore
import Locking

/// The request context of the image server: Hummingbird's, plus the connection it came on.
struct ServerRequestContext: RequestContext {
  var coreContext: CoreRequestContextStorage
  /// The client's connection.
  let channel: any Channel

  init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
    channel = source.channel
  }
}

/// Whether a connection's client is still there, and the request to cancel when it leaves.
final class ConnectionWatch: Sendable {
  private let state = Locked<(gone: Bool, cancel: (@Sendable () -> Void)?)>((false, nil))

  /// Watches of the open connections, by channel.
  private static let open = Locked<[ObjectIdentifier: ConnectionWatch]>([:])

  /// The watch of `channel` (nil for a channel without the handler).
  static func of(_ channel: any Channel) -> ConnectionWatch? { open.withLock { $0[ObjectIdentifier(channel)] } }

  /// Runs `body` in a task of its own that is cancelled when the client leaves (or when the
  /// calling task is cancelled).
  func cancellingOnDeparture<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let task = Task { try await body() }
    let gone = state.withLock { state in
      state.cancel = { task.cancel() }
      return state.gone
    }
    if gone { task.cancel() }
    defer { state.withLock { $0.cancel = nil } }
    return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
  }

  /// The client left: cancels the request running, and any started later.
  fileprivate func clientLeft() {
    let cancel = state.withLock { state -> (@Sendable () -> Void)? in
      state.gone = true
      defer { state.cancel = nil }
      return state.cancel
    }
    cancel?()
  }

  /// The channel handler that tells a connection's watch.
  final class Handler: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = Any
    private let watch = ConnectionWatch()

    func handlerAdded(context: ChannelHandlerContext) {
      let key = ObjectIdentifier(context.channel)
      ConnectionWatch.open.withLock { $0[key] = watch }
    }

    func handlerRemoved(context: ChannelHandlerContext) { left(context) }

    func channelInactive(context: ChannelHandlerContext) {
      left(context)
      context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
      if case ChannelEvent.inputClosed = event { watch.clientLeft() }
      context.fireUserInboundEventTriggered(event)
    }

    private func left(_ context: ChannelHandlerContext) {
      let key = ObjectIdentifier(context.channel)
      ConnectionWatch.open.withLock { _ = $0.removeValue(forKey: key) }
      watch.clientLeft()
    }
  }
}
