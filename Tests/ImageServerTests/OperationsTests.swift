// OperationsTests.swift — running the server: /health, /ready, /metrics; the admission limit
// (429 with Retry-After); a graceful shutdown that lets a request in flight finish; a client that
// goes away mid-request leaves no render, no budget held and a working server; errors never stop
// the process.

import Foundation
import Glibc
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

  func testClientDisconnectLeavesNothing() async throws {
    let folder = try ServedFolder()
    let running = try await RunningServer.start(root: folder.root)
    for _ in 0..<3 {
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = in_port_t(UInt16(running.port).bigEndian)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
      }
      XCTAssertEqual(connected, 0)
      let request = "GET /_/s:1200:1200:1/plain/local:///photo.jpg@png HTTP/1.1\r\nHost: x\r\n\r\n"
      _ = request.withCString { send(fd, $0, strlen($0), 0) }
      close(fd)
    }
    // Every render ends and gives its budget back; the server still answers.
    var load = await running.server.admission.load
    for _ in 0..<6000 where load.inFlight > 0 || running.server.rendersInFlight > 0 {
      try await Task.sleep(nanoseconds: 10_000_000)
      load = await running.server.admission.load
    }
    XCTAssertEqual(load.inFlight, 0)
    XCTAssertEqual(load.heldBytes, 0)
    XCTAssertEqual(running.server.rendersInFlight, 0)
    let after = try await running.get("/_/w:10/plain/local:///photo.jpg@png")
    XCTAssertEqual(after.status, 200)
    try await running.stop()
  }
}
