// ServerHarness.swift — a real ImageServer on 127.0.0.1 (an ephemeral port), a temporary root
// of fixture images, and a real HTTP client (AsyncHTTPClient) to talk to it.

import AsyncHTTPClient
import FilterGraph
import Foundation
import ImageCodecs
import Locking
import Logging
import NIOCore
import TestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

@testable import ImageServer

/// A running server and what it serves.
final class RunningServer: Sendable {
  let server: ImageServer
  let port: Int
  private let task: Task<Void, Error>

  private init(server: ImageServer, port: Int, task: Task<Void, Error>) {
    self.server = server
    self.port = port
    self.task = task
  }

  /// Starts a server configured by `configure` (unsigned, rooted at `root`, 2 threads by default).
  static func start(root: URL?, _ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> RunningServer {
    var configuration = ServerConfiguration()
    configuration.port = 0
    configuration.root = root
    configuration.allowsUnsigned = true
    configuration.threads = 2
    configure(&configuration)
    let server = try ImageServer(configuration: configuration, logger: .init(label: "test") { _ in SwiftLogNoOpLogHandler() })
    let ready = Once<Int>()
    let task = Task {
      do {
        try await server.run(handlesSignals: false) { ready.fulfil(.success($0)) }
      } catch {
        ready.fulfil(.failure(error))
        throw error
      }
    }
    let port = try await ready.value
    return RunningServer(server: server, port: port, task: task)
  }

  /// Shuts down gracefully and waits for the server's end.
  func stop() async throws {
    await server.shutDown()
    try await task.value
  }

  /// GETs `path` from the server.
  func get(_ path: String, headers: [(String, String)] = []) async throws -> HTTPResult {
    try await HTTPResult.get("http://127.0.0.1:\(port)\(path)", headers: headers)
  }

  /// Asks for `path` with HEAD.
  func head(_ path: String, headers: [(String, String)] = []) async throws -> HTTPResult {
    try await HTTPResult.get("http://127.0.0.1:\(port)\(path)", headers: headers, head: true)
  }
}

/// A response read whole.
struct HTTPResult {
  var status: Int
  var headers: [String: String]
  var body: Data

  var text: String { String(decoding: body, as: UTF8.self) }

  static func get(_ url: String, headers: [(String, String)] = [], timeout: Int64 = 60, head: Bool = false) async throws -> HTTPResult {
    var request = HTTPClientRequest(url: url)
    if head { request.method = .HEAD }
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(timeout))
    let body = try await response.body.collect(upTo: 256 << 20)
    var fields: [String: String] = [:]
    // A repeated field is one value, its values joined by ", " (RFC 9110 §5.3).
    for (name, value) in response.headers { fields[name.lowercased(), default: ""] += (fields[name.lowercased()] == nil ? "" : ", ") + value }
    return HTTPResult(status: Int(response.status.code), headers: fields, body: Data(body.readableBytesView))
  }
}

/// A value set once, awaited by anyone.
final class Once<T: Sendable>: Sendable {
  private let state = Locked<(Result<T, Error>?, [CheckedContinuation<T, Error>])>((nil, []))

  func fulfil(_ result: Result<T, Error>) {
    let waiters = state.withLock { s -> [CheckedContinuation<T, Error>] in
      guard s.0 == nil else { return [] }
      s.0 = result
      defer { s.1 = [] }
      return s.1
    }
    for w in waiters { w.resume(with: result) }
  }

  var value: T {
    get async throws {
      try await withCheckedThrowingContinuation { continuation in
        let done = state.withLock { s -> Result<T, Error>? in
          if let r = s.0 { return r }
          s.1.append(continuation)
          return nil
        }
        if let done { continuation.resume(with: done) }
      }
    }
  }
}

/// A temporary folder of images to serve.
final class ServedFolder {
  let root: URL
  let outside: URL
  private let base: URL

  init() throws {
    base = FileManager.default.temporaryDirectory.appendingPathComponent("serve-tests-\(UUID().uuidString)")
    root = base.appendingPathComponent("root")
    outside = base.appendingPathComponent("outside")
    try FileManager.default.createDirectory(at: root.appendingPathComponent("sub"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
    try Fixtures.data("jpeg/testimgari.jpg").write(to: root.appendingPathComponent("photo.jpg"))
    try Fixtures.data("pngsuite/basn6a08.png").write(to: root.appendingPathComponent("alpha.png"))
    try Fixtures.data("metadata/orient-6.jpg").write(to: root.appendingPathComponent("exif.jpg"))
    try Data("not an image\n".utf8).write(to: root.appendingPathComponent("text.jpg"))
    try Fixtures.data("jpeg/testimgari.jpg").write(to: outside.appendingPathComponent("secret.jpg"))
    try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("escape.jpg"), withDestinationURL: outside.appendingPathComponent("secret.jpg"))
    try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("sub/outer"), withDestinationURL: outside)
    try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("link.jpg"), withDestinationURL: root.appendingPathComponent("photo.jpg"))
  }

  deinit { try? FileManager.default.removeItem(at: base) }

  func url(_ name: String) -> URL { root.appendingPathComponent(name) }
}

/// Pixels of encoded bytes as the library decodes them, for exact comparisons.
func decodedPixels(_ data: Data, file: StaticString = #filePath, line: UInt = #line) throws -> (Size, [Int]) {
  let buffer = try Renderer(options: RendererOptions(threads: 1)).render(Image(data: data))
  return (Size(width: buffer.width, height: buffer.height), buffer.integerValues())
}

/// A loopback TCP port free a moment ago, for a server process to bind.
func freeLoopbackPort() -> Int {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  defer { close(fd) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  _ = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p in
      bind(fd, p, length)
      return getsockname(fd, p, &length)
    }
  }
  return Int(UInt16(bigEndian: address.sin_port))
}
