// SourceServer.swift — a misbehaving origin on 127.0.0.1 for the remote-source tests: good
// images, redirects (to itself, to another loopback address, to the metadata address), a slow
// answer, a body cut short, one too large (declared and not), a body that never ends (fast, or a
// byte at a time), a PNG declaring 60000×60000 pixels in 67 bytes, text, 404, and a gate the test
// opens.

import Foundation
import Hummingbird
import Locking
import Logging
import NIOCore
import ServiceLifecycle
import TestSupport

/// The origin server.
final class SourceServer: Sendable {
  let port: Int
  /// Requests the origin received, by path.
  let hits = Locked<[String]>([])
  /// Opened by a test to let `/gate.jpg` answer.
  let gate = Once<Void>()
  /// Fulfilled when `/gate.jpg` is requested.
  let gateReached = Once<Void>()
  private let group: ServiceGroup
  private let task: Task<Void, Error>

  private init(port: Int, group: ServiceGroup, task: Task<Void, Error>) {
    self.port = port
    self.group = group
    self.task = task
  }

  static func start(image: Data) async throws -> SourceServer {
    let holder = Holder()
    let router = Router()
    let ready = Once<Int>()
    @Sendable func log(_ request: Request) { holder.server?.hits.withLock { $0.append(request.uri.path) } }
    router.get("/img.jpg") { request, _ -> Response in
      log(request)
      return Response(status: .ok, headers: [.contentType: "image/jpeg", .lastModified: "Tue, 03 Nov 2026 10:00:00 GMT"], body: .init(byteBuffer: ByteBuffer(bytes: image)))
    }
    router.get("/gate.jpg") { request, _ -> Response in
      log(request)
      guard let server = holder.server else { throw HTTPError(.internalServerError) }
      server.gateReached.fulfil(.success(()))
      try await server.gate.value
      return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: image)))
    }
    router.get("/redirect-self") { request, _ -> Response in
      log(request)
      return Response(status: .found, headers: [.location: "/img.jpg"])
    }
    router.get("/redirect-other-loopback") { request, _ -> Response in
      log(request)
      let port = holder.server?.port ?? 0
      return Response(status: .found, headers: [.location: "http://127.0.0.2:\(port)/img.jpg"])
    }
    router.get("/redirect-loop") { request, _ -> Response in
      log(request)
      return Response(status: .found, headers: [.location: "/redirect-loop"])
    }
    router.get("/slow.jpg") { request, _ -> Response in
      log(request)
      try await Task.sleep(nanoseconds: 5_000_000_000)
      return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: image)))
    }
    router.get("/truncated.jpg") { request, _ -> Response in
      log(request)
      let half = ByteBuffer(bytes: image.prefix(image.count / 2))
      return Response(status: .ok, body: ResponseBody(contentLength: image.count) { writer in
        try await writer.write(half)
        throw HTTPError(.internalServerError)
      })
    }
    router.get("/huge-declared.jpg") { request, _ -> Response in
      log(request)
      return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: image + Data(count: 200_000))))
    }
    router.get("/huge-streamed.jpg") { request, _ -> Response in
      log(request)
      return Response(status: .ok, body: ResponseBody { writer in
        for _ in 0..<40 { try await writer.write(ByteBuffer(bytes: [UInt8](repeating: 0, count: 10_000))) }
        try await writer.finish(nil)
      })
    }
    router.get("/forever.jpg") { request, _ -> Response in
      log(request)
      return Response(status: .ok, body: ResponseBody { writer in
        let chunk = ByteBuffer(bytes: [UInt8](repeating: 0, count: 65_536))
        while true { try await writer.write(chunk) }
      })
    }
    router.get("/trickle.jpg") { request, _ -> Response in
      log(request)
      return Response(status: .ok, body: ResponseBody { writer in
        while true {
          try await writer.write(ByteBuffer(bytes: [0xFF]))
          try await Task.sleep(nanoseconds: 50_000_000)
        }
      })
    }
    router.get("/bomb.png") { request, _ -> Response in
      log(request)
      return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: pixelBomb(width: 60_000, height: 60_000))))
    }
    router.get("/text.jpg") { request, _ -> Response in
      log(request)
      return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "<html>not an image</html>")))
    }
    router.get("/gone.jpg") { request, _ -> Response in
      log(request)
      return Response(status: .notFound)
    }
    let app = Application(
      router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
      onServerRunning: { ready.fulfil(.success($0.localAddress?.port ?? 0)) },
      logger: Logger(label: "origin") { _ in SwiftLogNoOpLogHandler() })
    let group = ServiceGroup(configuration: .init(services: [app], logger: Logger(label: "origin") { _ in SwiftLogNoOpLogHandler() }))
    let task = Task { try await group.run() }
    let port = try await ready.value
    let server = SourceServer(port: port, group: group, task: task)
    holder.server = server
    return server
  }

  func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

  func stop() async throws {
    gate.fulfil(.success(()))
    await group.triggerGracefulShutdown()
    try await task.value
  }
}

/// A PNG whose header declares `width`×`height` RGB pixels, with an empty image stream: what a
/// decoder that trusts the header allocates before it finds out.
func pixelBomb(width: UInt32, height: UInt32) -> [UInt8] {
  func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let typed = Array(type.utf8) + data
    return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
  }
  func bigEndian(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
  // CRC-32 of ISO 3309 (PNG specification, annex D), bit by bit.
  func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
    }
    return ~crc
  }
  let header = bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0]
  return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", []) + chunk("IEND", [])
}

/// The origin, for its own handlers (set once it is listening).
private final class Holder: @unchecked Sendable {  // written once before any request can read it
  var server: SourceServer?
}
