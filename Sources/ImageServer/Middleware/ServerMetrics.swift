// ServerMetrics.swift — what `/metrics` shows, in Prometheus text format: requests by status,
// render seconds, queue wait seconds, bytes in and out, renders in flight, 304s, source errors.
//
// Each server has its own registry (swift-prometheus), reached through swift-metrics' API with
// that registry's factory, so several servers (tests) never share counts and nothing global is
// bootstrapped.

import CoreMetrics
import Foundation
import Prometheus
import Synchronization

/// The server's metrics.
final class ServerMetrics: Sendable {
  let registry = PrometheusCollectorRegistry()
  private let factory: PrometheusMetricsFactory
  private let renderSeconds: CoreMetrics.Timer
  private let queueSeconds: CoreMetrics.Timer
  private let bytesIn: CoreMetrics.Counter
  private let bytesOut: CoreMetrics.Counter
  private let inFlight: CoreMetrics.Gauge
  private let notModified: CoreMetrics.Counter
  /// Renders started, for tests (`/metrics` has it as fgrun_serve_renders_total).
  private let renders = Atomic<Int>(0)
  private let rendersCounter: CoreMetrics.Counter
  private let flying = Atomic<Int>(0)

  init() {
    var factory = PrometheusMetricsFactory(registry: registry)
    let seconds: [Duration] = [.milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10)]
    factory.defaultDurationHistogramBuckets = seconds
    self.factory = factory
    renderSeconds = Timer(label: "fgrun_serve_render_seconds", factory: factory)
    queueSeconds = Timer(label: "fgrun_serve_queue_wait_seconds", factory: factory)
    bytesIn = Counter(label: "fgrun_serve_source_bytes_total", factory: factory)
    bytesOut = Counter(label: "fgrun_serve_response_bytes_total", factory: factory)
    inFlight = Gauge(label: "fgrun_serve_renders_in_flight", factory: factory)
    notModified = Counter(label: "fgrun_serve_not_modified_total", factory: factory)
    rendersCounter = Counter(label: "fgrun_serve_renders_total", factory: factory)
  }

  /// Renders started so far.
  var renderCount: Int { renders.load(ordering: .relaxed) }
  /// Renders running now.
  var rendersInFlight: Int { flying.load(ordering: .relaxed) }

  func request(status: Int) {
    Counter(label: "fgrun_serve_requests_total", dimensions: [("status", String(status))], factory: factory).increment()
  }

  func sourceError(_ kind: String) {
    Counter(label: "fgrun_serve_source_errors_total", dimensions: [("kind", kind)], factory: factory).increment()
  }

  func notModifiedResponse() { notModified.increment() }
  func sourceBytes(_ count: Int) { bytesIn.increment(by: count) }
  func responseBytes(_ count: Int) { bytesOut.increment(by: count) }
  func queueWait(_ duration: Duration) { queueSeconds.recordNanoseconds(Self.nanoseconds(duration)) }

  /// Runs `body` counted as a render in flight and timed.
  func render<T>(_ body: () async throws -> T) async rethrows -> T {
    renders.add(1, ordering: .relaxed)
    rendersCounter.increment()
    inFlight.record(flying.add(1, ordering: .relaxed).newValue)
    let clock = ContinuousClock(), start = clock.now
    defer {
      renderSeconds.recordNanoseconds(Self.nanoseconds(clock.now - start))
      inFlight.record(flying.subtract(1, ordering: .relaxed).newValue)
    }
    return try await body()
  }

  /// The Prometheus text exposition.
  func exposition() -> [UInt8] {
    var buffer: [UInt8] = []
    registry.emit(into: &buffer)
    return buffer
  }

  private static func nanoseconds(_ d: Duration) -> Int64 {
    d.components.seconds * 1_000_000_000 + d.components.attoseconds / 1_000_000_000
  }
}
