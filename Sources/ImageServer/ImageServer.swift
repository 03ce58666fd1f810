// ImageServer.swift — `fgrun serve`: the image server, its routes and its lifecycle.
//
// Routes: `/health` (the process answers), `/ready` (listening and not shutting down),
// `/metrics` (Prometheus), and every other GET path is an image URL (ImageRequest.swift),
// cancelled when its client goes away (ConnectionWatch.swift). Before any route, a connection is
// held to the connection count and request body limit (ConnectionGuard.swift) and closed when it
// completes no request head within the idle timeout (slow-header clients). HEAD answers every route as GET
// does, without the body.
// Middleware, outermost first: the access log (and requests-by-status metric), then error
// responses. The server runs in a ServiceGroup: on SIGTERM or SIGINT it stops being ready, stops
// accepting, lets requests in flight finish for up to `shutdownGrace` seconds, then ends.

import AsyncHTTPClient
import FilterGraph
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Locking
import Synchronization

/// An imgproxy-compatible image server over FilterGraph's renderer.
public final class ImageServer: Sendable {
  public let configuration: ServerConfiguration
  let renderer: Renderer
  let resources: ServerResources
  let signer: URLSigner
  let local: LocalSource?
  let remote: HTTPSource?
  let admission: Admission
  /// The requests holding their source's bytes: the renders in flight and one more being read
  /// and prepared (a batch's `--jobs` + 1). A request waiting its turn behind them holds nothing
  /// but its URL; read first, eight waiting S2 sources (12-24 MP JPEGs of 10-25 MB) held more
  /// than the two renders did.
  let sourceSlots: Admission
  let metrics = ServerMetrics()
  /// The client connections open now.
  let connections = ConnectionCount()
  let logger: Logger
  private let httpClient: HTTPClient?
  private let readiness = Atomic<Bool>(false)
  private let boundPort = Atomic<Int>(0)
  private let group = Locked<ServiceGroup?>(nil)

  /// Checks the configuration, loads the watermark and recipes, and opens nothing yet.
  ///
  /// - Throws: `ServerError` (500) for a configuration that cannot serve, naming the setting.
  public init(configuration: ServerConfiguration, logger: Logger = Logger(label: "fgrun.serve")) throws {
    guard !configuration.signingKeys.isEmpty || configuration.allowsUnsigned else {
      throw ServerError(500, "No signing key: give --key and --salt (hex), or --allow-unsigned to serve unsigned URLs.")
    }
    self.configuration = configuration
    self.logger = logger
    renderer = Renderer(options: RendererOptions(threads: configuration.threads))
    if let shortfall = renderer.workerShortfall { logger.warning("\(shortfall)") }
    do {
      resources = try ServerResources(watermarkFile: configuration.watermarkFile, recipesDirectory: configuration.recipesDirectory)
    } catch {
      throw ServerError(500, "Cannot load the watermark or recipes: \(error)")
    }
    signer = URLSigner(keys: configuration.signingKeys)
    local = try configuration.root.map { try LocalSource(root: $0, maxBytes: configuration.maxSourceBytes) }
    if configuration.allowedSourcePrefixes.isEmpty {
      httpClient = nil
      remote = nil
    } else {
      let timeout = TimeAmount.milliseconds(Int64(configuration.fetchTimeout * 1000))
      let client = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup,
        configuration: HTTPClient.Configuration(
          redirectConfiguration: .disallow, timeout: .init(connect: timeout, read: timeout), decompression: .disabled))
      httpClient = client
      remote = HTTPSource(
        client: client, allowedPrefixes: configuration.allowedSourcePrefixes,
        policy: AddressPolicy(allowed: configuration.allowedPrivateNetworks), maxBytes: configuration.maxSourceBytes,
        maxRedirects: configuration.maxRedirects, timeout: configuration.fetchTimeout)
    }
    admission = Admission(
      limit: configuration.memoryBudget, maxInFlight: configuration.maxRenders, maxWait: configuration.admissionWait, maxQueued: configuration.maxQueued)
    sourceSlots = Admission(
      limit: .max, maxInFlight: configuration.maxRenders + 1, maxWait: configuration.admissionWait, maxQueued: configuration.maxQueued)
  }

  /// The port listened on, once listening (0 before).
  public var port: Int { boundPort.load(ordering: .acquiring) }
  /// Renders started so far.
  public var renderCount: Int { metrics.renderCount }
  /// Renders running now.
  public var rendersInFlight: Int { metrics.rendersInFlight }

  /// Serves until SIGTERM/SIGINT (when `handlesSignals`) or `shutDown()`, then drains.
  /// `onListening` gets the bound port.
  public func run(handlesSignals: Bool = true, onListening: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
    let (limits, connections) = (configuration, self.connections)
    let app = Application(
      router: makeRouter(),
      server: .http1(configuration: .init(
        additionalChannelHandlers: [
          ConnectionGuard(maxBodyBytes: limits.maxRequestBodyBytes, maxConnections: limits.maxConnections, connections: connections),
          ConnectionWatch.Handler(),
        ],
        idleTimeout: .milliseconds(Int64(configuration.idleTimeout * 1000)))),
      configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port), serverName: "fgrun"),
      onServerRunning: { [self] channel in
        boundPort.store(channel.localAddress?.port ?? 0, ordering: .releasing)
        readiness.store(true, ordering: .releasing)
        onListening(self.port)
      },
      logger: logger)
    var groupConfiguration = ServiceGroupConfiguration(
      services: [.init(service: app), .init(service: ReadinessService(server: self))],
      gracefulShutdownSignals: handlesSignals ? [.sigterm, .sigint] : [], logger: logger)
    groupConfiguration.maximumGracefulShutdownDuration = .milliseconds(Int64(configuration.shutdownGrace * 1000))
    let group = ServiceGroup(configuration: groupConfiguration)
    self.group.withLock { $0 = group }
    for (name, value) in configuration.summary { logger.info("config", metadata: [name: "\(value)"]) }
    defer { readiness.store(false, ordering: .releasing) }
    do {
      try await group.run()
    } catch {
      try? await httpClient?.shutdown()
      throw error
    }
    try? await httpClient?.shutdown()
  }

  /// Starts a graceful shutdown, as SIGTERM does.
  public func shutDown() async {
    let group = self.group.withLock { $0 }
    await group?.triggerGracefulShutdown()
  }

  func markNotReady() { readiness.store(false, ordering: .releasing) }

  private func makeRouter() -> Router<ServerRequestContext> {
    // HEAD is GET's answer (status, headers, Content-Length) without the body.
    let router = Router(context: ServerRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.add(middleware: AccessLog(logger: logger, metrics: metrics))
    router.add(middleware: ErrorResponses(logger: logger))
    router.get("/health") { _, _ in "ok\n" }
    router.get("/ready") { [self] _, _ -> Response in
      guard readiness.load(ordering: .acquiring) else { throw ServerError(503, "Not ready: starting or shutting down.") }
      return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: "ready\n")))
    }
    router.get("/metrics") { [self] _, _ -> Response in
      Response(
        status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
        body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
    }
    router.get("**") { [self] request, context -> Response in
      let answer = { @Sendable [self] in
        try await withDeadline(seconds: configuration.requestTimeout, "The request took longer than \(configuration.requestTimeout) s.") {
          try await self.respond(to: request)
        }
      }
      guard let watch = ConnectionWatch.of(context.channel) else { return try await answer() }
      return try await watch.cancellingOnDeparture(answer)
    }
    return router
  }
}

/// Marks the server not ready as soon as a graceful shutdown starts (it is signalled before
/// the HTTP server, being listed after it).
private struct ReadinessService: Service {
  let server: ImageServer

  func run() async throws {
    try? await gracefulShutdown()
    server.markNotReady()
  }
}
