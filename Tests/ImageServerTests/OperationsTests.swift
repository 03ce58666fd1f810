// OperationsTests.swift — running the server: /health, /ready, /metrics; the admission limit
// (429 with Retry-After), and requests waiting for it holding no source bytes; a graceful
// shutdown that lets a request in flight finish; a request timeout. Clients that go away:
// DisconnectTests.swift.

import Foundation
import TestSupport
import XCTest

@testable import ImageServer

final class OperationsTests: XCTestCase {
  func testHealthReadyAndMetrics() async throws {
    let folder = try ServedFolder()
    let running = try await RunningServer.start(root: folder.root)
    let health = try await running.get("/health")
    XCTAssertEqual(health.status, 200)
    let ready = try await running.get("/ready")
    XCTAssertEqual(ready.status, 200)
    _ = try await running.get("/_/w:10/plain/local:///photo.jpg@png")
    _ = try await running.get("/_/w:10/plain/local:///nope.jpg@png")
    let metrics = try await running.get("/metrics")
    for line in [
      "fgrun_serve_requests_total{status=\"200\"}", "fgrun_serve_requests_total{status=\"404\"} 1", "fgrun_serve_renders_total 1",
      "fgrun_serve_render_seconds_bucket", "fgrun_serve_queue_wait_seconds_bucket", "fgrun_serve_source_bytes_total 5126",
      "fgrun_serve_renders_in_flight 0", "fgrun_serve_source_errors_total{kind=\"404\"} 1", "fgrun_serve_response_bytes_total",
    ] {
      XCTAssertTrue(metrics.text.contains(line), "\(line) in\n\(metrics.text)")
    }
    try await running.stop()
  }

  func testAdmissionLimit() async throws {
    let folder = try ServedFolder()
    let running = try await RunningServer.start(root: folder.root) {
      $0.memoryBudget = 1
      $0.admissionWait = 0.2
    }
    // A render in flight (held directly: deterministic, whatever the machine's speed).
    try await running.server.admission.acquire(1)
    let busy = try await running.get("/_/w:10/plain/local:///photo.jpg@png")
    XCTAssertEqual(busy.status, 429, busy.text)
    XCTAssertEqual(busy.headers["retry-after"], "1")
    XCTAssertEqual(running.server.renderCount, 0)
    await running.server.admission.release(1)
    let free = try await running.get("/_/w:10/plain/local:///photo.jpg@png")
    XCTAssertEqual(free.status, 200)
    let load = await running.server.admission.load
    XCTAssertEqual(load.inFlight, 0)
    XCTAssertEqual(load.waiting, 0)
    try await running.stop()
  }

  func testRendersInFlightAreCappedWhateverTheMemory() async throws {
    let folder = try ServedFolder()
    let running = try await RunningServer.start(root: folder.root) {
      $0.maxRenders = 1
      $0.admissionWait = 0.2
    }
    // One render in flight, far inside the 1 GiB budget: the second waits for the count, then 429.
    try await running.server.admission.acquire(1)
    let busy = try await running.get("/_/w:10/plain/local:///photo.jpg@png")
    XCTAssertEqual(busy.status, 429, busy.text)
    await running.server.admission.release(1)
    let free = try await running.get("/_/w:10/plain/local:///photo.jpg@png")
    XCTAssertEqual(free.status, 200)
    try await running.stop()
  }

  func testQueuedRequestIsAdmittedWhenRoomFrees() async throws {
    let folder = try ServedFolder()
    let running = try await RunningServer.start(root: folder.root) {
      $0.memoryBudget = 1
      $0.admissionWait = 60
    }
    try await running.server.admission.acquire(1)
    async let queued = running.get("/_/w:10/plain/local:///photo.jpg@png")
    while await running.server.admission.load.waiting == 0 { try await Task.sleep(nanoseconds: 10_000_000) }
    await running.server.admission.release(1)
    let response = try await queued
    XCTAssertEqual(response.status, 200)
    try await running.stop()
  }

  func testRequestsWaitingForARenderHoldNoSourceBytes() async throws {
    let folder = try ServedFolder()
    let size = try Data(contentsOf: folder.url("photo.jpg")).count
    let running = try await RunningServer.start(root: folder.root) {
      $0.maxRenders = 1
      $0.admissionWait = 60
    }
    // The one render slot taken: two requests read their sources (the render's and one more,
    // prepared to start next); the other two wait without reading theirs.
    try await running.server.admission.acquire(1)
    let path = "/_/w:10/plain/local:///photo.jpg@png"
    async let a = running.get(path), b = running.get(path), c = running.get(path), d = running.get(path)
    while await running.server.admission.load.waiting + running.server.sourceSlots.load.waiting < 4 {
      try await Task.sleep(nanoseconds: 10_000_000)
    }
    let read = await running.server.admission.load.waiting
    XCTAssertEqual(read, 2, "requests holding a source while they wait for the render")
    let metrics = try await running.get("/metrics")
    XCTAssertTrue(metrics.text.contains("fgrun_serve_source_bytes_total \(2 * size)\n"), metrics.text)
    await running.server.admission.release(1)
    let statuses = try await [a, b, c, d].map(\.status)
    XCTAssertEqual(statuses, [200, 200, 200, 200])
    try await running.stop()
  }

  func testGracefulShutdownFinishesRequestsInFlight() async throws {
    let folder = try ServedFolder()
    let origin = try await SourceServer.start(image: try Data(contentsOf: folder.url("photo.jpg")))
    let running = try await RunningServer.start(root: nil) {
      $0.allowedSourcePrefixes = ["http://127.0.0.1:\(origin.port)/"]
      $0.allowedPrivateNetworks = [IPNetwork("127.0.0.1/32")!]
    }
    async let inFlight = running.get("/_/w:10/plain/\(origin.url("/gate.jpg"))@png")
    try await origin.gateReached.value
    let stopping = Task { try await running.stop() }
    // Not ready once the shutdown starts (a load balancer stops sending).
    var readiness = 200
    for _ in 0..<200 where readiness == 200 {
      readiness = (try? await HTTPResult.get("http://127.0.0.1:\(running.port)/ready", timeout: 2).status) ?? 0
      if readiness == 200 { try await Task.sleep(nanoseconds: 10_000_000) }
    }
    XCTAssertNotEqual(readiness, 200, "not ready while draining")
    origin.gate.fulfil(.success(()))
    let response = try await inFlight
    XCTAssertEqual(response.status, 200, "the request in flight completes")
    try await stopping.value
    let after = try? await HTTPResult.get("http://127.0.0.1:\(running.port)/health", timeout: 5)
    XCTAssertNil(after, "nothing listens after the drain")
    try await origin.stop()
  }

  func testRequestTimeout() async throws {
    let folder = try ServedFolder()
    let origin = try await SourceServer.start(image: try Data(contentsOf: folder.url("photo.jpg")))
    let running = try await RunningServer.start(root: nil) {
      $0.allowedSourcePrefixes = ["http://127.0.0.1:\(origin.port)/"]
      $0.allowedPrivateNetworks = [IPNetwork("127.0.0.1/32")!]
      $0.requestTimeout = 0.5
    }
    let response = try await running.get("/_/w:10/plain/\(origin.url("/gate.jpg"))@png")
    XCTAssertEqual(response.status, 504, response.text)
    XCTAssertEqual(response.text, "The request took longer than 0.5 s.\n")
    try await running.stop()
    try await origin.stop()
  }
}
