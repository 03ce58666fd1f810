// DisconnectTests.swift — a client that goes away leaves nothing behind: a request waiting for
// admission or for its source is cancelled (nothing rendered, no budget held, the origin's
// connection closed), a client that hangs up after the first bytes of a response leaves no
// render in flight and no temporary file, and the server keeps serving. The clients are raw
// sockets on 127.0.0.1, so the test decides exactly when they close.

import Foundation
import Glibc
import TestSupport
import XCTest

@testable import ImageServer

final class DisconnectTests: XCTestCase {
  func testClientLeavingWhileQueuedForAdmission() async throws {
    let folder = try ServedFolder()
    let running = try await RunningServer.start(root: folder.root) {
      $0.memoryBudget = 1
      $0.admissionWait = 600
    }
    // A render in flight (held directly), so the request waits for admission.
    try await running.server.admission.acquire(1)
    let client = try LoopbackClient(port: running.port)
    try client.send("GET /_/w:10/plain/local:///photo.jpg@png HTTP/1.1\r\nHost: x\r\n\r\n")
    try await until("the request waits for admission") { await running.server.admission.load.waiting == 1 }
    client.close()
    try await until("the request leaves the queue when its client goes") { await running.server.admission.load.waiting == 0 }
    let load = await running.server.admission.load
    XCTAssertEqual(load.inFlight, 1, "only the render the test holds")
    await running.server.admission.release(1)
    try await until("the request is answered as cancelled") { try await running.metrics().contains("fgrun_serve_requests_total{status=\"503\"} 1") }
    XCTAssertEqual(running.server.renderCount, 0, "nothing was rendered for it")
    let after = try await running.get("/_/w:10/plain/local:///photo.jpg@png")
    XCTAssertEqual(after.status, 200)
    try await running.stop()
  }

  func testClientLeavingWhileTheSourceIsFetched() async throws {
    let folder = try ServedFolder()
    let origin = try await SourceServer.start(image: try Data(contentsOf: folder.url("photo.jpg")))
    let running = try await RunningServer.start(root: nil) {
      $0.allowedSourcePrefixes = ["http://127.0.0.1:\(origin.port)/"]
      $0.allowedPrivateNetworks = [IPNetwork("127.0.0.1/32")!]
      $0.requestTimeout = 600
      $0.fetchTimeout = 600
    }
    let client = try LoopbackClient(port: running.port)
    try client.send("GET /_/w:10/plain/\(origin.url("/gate.jpg"))@png HTTP/1.1\r\nHost: x\r\n\r\n")
    try await origin.gateReached.value
    client.close()
    // The cancelled fetch may end as 503 (cancelled) or 502 (the origin's connection closed).
    try await until("the request ends without its source") { try await running.metrics().contains("fgrun_serve_requests_total{status=") }
    XCTAssertEqual(running.server.renderCount, 0)
    origin.gate.fulfil(.success(()))
    try await running.stop()
    try await origin.stop()
  }

  func testClientHangingUpMidResponseLeavesNothing() async throws {
    let folder = try ServedFolder()
    let before = try Self.entries(folder.root)
    let running = try await RunningServer.start(root: folder.root)
    for _ in 0..<3 {
      let client = try LoopbackClient(port: running.port)
      try client.send("GET /_/s:1600:1600:1/plain/local:///photo.jpg@png HTTP/1.1\r\nHost: x\r\n\r\n")
      let first = try await client.receiveSome()
      XCTAssertTrue(String(decoding: first.prefix(12), as: UTF8.self).hasPrefix("HTTP/1.1 200"), String(decoding: first.prefix(200), as: UTF8.self))
      client.close()
    }
    try await until("every render has ended") {
      let load = await running.server.admission.load
      return load.inFlight == 0 && load.waiting == 0 && running.server.rendersInFlight == 0
    }
    let load = await running.server.admission.load
    XCTAssertEqual(load.heldBytes, 0)
    XCTAssertEqual(try Self.entries(folder.root), before, "nothing written beside the sources")
    let temporaries = try Self.entries(FileManager.default.temporaryDirectory).filter { $0.contains(".fgrun-\(getpid()).") }
    XCTAssertEqual(temporaries, [], "no temporary file left")
    let after = try await running.get("/_/w:10/plain/local:///photo.jpg@png")
    XCTAssertEqual(after.status, 200)
    try await running.stop()
  }

  /// Names in `folder`, sorted.
  static func entries(_ folder: URL) throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() }
}

extension RunningServer {
  /// The /metrics page.
  func metrics() async throws -> String { try await get("/metrics").text }
}

/// Polls `condition` every 10 ms, failing after a minute: waits for what another task does,
/// bounded, without depending on how fast it happens.
func until(_ what: String, _ condition: () async throws -> Bool) async throws {
  for _ in 0..<6000 {
    if try await condition() { return }
    try await Task.sleep(nanoseconds: 10_000_000)
  }
  XCTFail("timed out waiting until \(what)")
  throw CancellationError()
}

/// An HTTP client on a raw TCP socket to 127.0.0.1, closed when the test says.
final class LoopbackClient: @unchecked Sendable {  // the socket is used by one task at a time
  let fd: Int32

  init(port: Int) throws {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    // A receive waits a minute at most.
    var limit = timeval(tv_sec: 60, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
      Glibc.close(fd)
      throw POSIXError(.ECONNREFUSED)
    }
  }

  func send(_ text: String) throws {
    let sent = text.withCString { Glibc.send(fd, $0, strlen($0), 0) }
    guard sent == text.utf8.count else { throw POSIXError(.EIO) }
  }

  /// The first bytes the server sends (read on a thread of its own: the wait blocks).
  func receiveSome() async throws -> Data {
    let fd = self.fd
    return try await withCheckedThrowingContinuation { continuation in
      Thread {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        continuation.resume(with: count > 0 ? .success(Data(buffer.prefix(count))) : .failure(POSIXError(.EIO)))
      }.start()
    }
  }

  func close() { Glibc.close(fd) }
}
