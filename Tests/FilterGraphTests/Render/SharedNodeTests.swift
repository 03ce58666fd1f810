// SharedNodeTests.swift — one graph node used by renders on several threads at once (a watermark
// shared by every image of a batch) is safe: ThreadSanitizer (`make test-tsan`) reports no race
// and every render gives the single-threaded result.

import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class SharedNodeTests: XCTestCase {
  func testOneNodeRenderedByManyThreadsAtOnce() throws {
    // One renderer per thread, so the renders share nothing but the graph's nodes: no lock of a
    // shared pool or cache orders one thread's first use of a node before another's.
    let count = 4
    let renderers = (0..<count).map { _ in Renderer(options: RendererOptions(threads: 1, tileSize: Size(width: 16, height: 8))) }
    let photos = (0..<count).map { Image(buffer: PixelBuffer.random(width: 41, height: 29, format: .rgb8, seed: UInt64($0))) }
    let expected = try photos.map { try renderers[0].render(Self.watermark().composited(over: $0, gravity: .southEast, mode: .screen)) }
    for _ in 0..<20 {
      // A fresh watermark each round: nothing about it is computed before the threads start.
      let watermark = Self.watermark()
      let results = Results<PixelBuffer>(count: count), keys = Results<String>(count: count)
      let start = DispatchSemaphore(value: 0), done = DispatchGroup()
      for i in 0..<count {
        done.enter()
        Thread {
          start.wait()
          // As a server caching by content would: the shared logo's key, then the pixels.
          keys.set(i, .success(watermark.node.structuralKey))
          results.set(i, Result { try renderers[i].render(watermark.composited(over: photos[i], gravity: .southEast, mode: .screen)) })
          done.leave()
        }.start()
      }
      for _ in 0..<count { start.signal() }
      done.wait()
      for (i, result) in results.all.enumerated() {
        XCTAssertTrue(try XCTUnwrap(result).get().hasSamePixels(as: expected[i]), "photo \(i)")
        XCTAssertEqual(try XCTUnwrap(keys.all[i]).get(), Self.watermark().node.structuralKey, "photo \(i)")
      }
    }
  }

  /// A small logo, turned and softened: three nodes every render reads.
  private static func watermark() -> Image {
    Image(buffer: logo).rotated(byDegrees: 90).blurred(sigma: 1)
  }

  private static let logo = PixelBuffer.random(width: 12, height: 7, format: .rgba8, seed: 99)

  /// Results filled in from several threads. (An NSLock, not a `Mutex`: a contended `Mutex`
  /// waits in the kernel, where ThreadSanitizer cannot see it order the threads.)
  private final class Results<Value>: @unchecked Sendable {  // `values` is only touched under `lock`
    private let lock = NSLock()
    private var values: [Result<Value, Error>?]
    init(count: Int) { values = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ value: Result<Value, Error>) { lock.withLock { values[i] = value } }
    var all: [Result<Value, Error>?] { lock.withLock { values } }
  }
}
