// EncodeAheadTests.swift — the frame loop encodes frame k on the worker pool while it renders
// frame k + 1: frames reach the writer one at a time, in order and equal to frames rendered alone;
// an animated WebP comes out byte for byte as from a serial loop; a reader's or writer's error in
// frame k fails the loop with that error, after the frame in flight has finished.

@testable import FilterGraph
import Foundation
import ImageCodecs
import Locking
import TestSupport
import XCTest

/// Seeded noise frames; `nextFrame` throws at frame `failing` (a damaged input).
private final class NoiseFrames: AnimationFrameReader {
  let info: AnimationInfo
  let frameFormat = PixelFormat.rgb8
  private let failing: Int?
  private var next = 0

  init(count: Int, failing: Int? = nil) {
    info = AnimationInfo(canvasSize: Size(width: 32, height: 24), delays: (0..<count).map { 20 + $0 }, loopCount: 0)
    self.failing = failing
  }

  static func frame(_ k: Int) -> PixelBuffer { PixelBuffer.random(width: 32, height: 24, format: .rgb8, seed: UInt64(k + 7)) }

  func nextFrame() throws -> PixelBuffer? {
    guard next < info.frameCount else { return nil }
    if next == failing { throw CodecError(.corrupt, "frame \(next + 1) is damaged") }
    defer { next += 1 }
    return Self.frame(next)
  }
}

/// Keeps the frames it is given after a short, varying sleep; records the threads that called it,
/// the most calls at once, and throws at frame `failing`.
private final class SlowWriter: AnimationFrameWriter, @unchecked Sendable {  // its state is behind `log`
  struct Log {
    var frames: [PixelBuffer] = [], delays: [Int] = [], threads: Set<ObjectIdentifier> = []
    var calls = 0, running = 0, mostRunning = 0
  }
  let log = Monitor(Log())
  private let failing: Int?
  init(failing: Int? = nil) { self.failing = failing }

  func add(_ frame: PixelBuffer, delay: Int) throws {
    let k = log.withLock {
      $0.running += 1
      $0.mostRunning = max($0.mostRunning, $0.running)
      $0.threads.insert(ObjectIdentifier(Thread.current))
      $0.calls += 1
      return $0.calls - 1
    }
    defer { log.withLock { $0.running -= 1 } }
    Thread.sleep(forTimeInterval: Double(1 + (k * 7) % 5) / 1000)
    if k == failing { throw CodecError(.invalidArgument, "the writer refused frame \(k + 1)") }
    log.withLock {
      $0.frames.append(frame)
      $0.delays.append(delay)
    }
  }
  func finish() throws -> Data? { Data() }
  var stateBytes: Int { 0 }
}

final class EncodeAheadTests: XCTestCase {
  private let renderer = Renderer()
  private let recipe: (Image) -> Image = { $0.scaled(toWidth: 16).blurred(sigma: 1) }

  /// Ten frames reach a slow writer in order, one call at a time, on a pool thread, each equal to
  /// its frame rendered alone and with its own delay.
  func testFramesArriveInOrderOneAtATime() throws {
    let writer = SlowWriter()
    let (returned, summary) = try renderer.renderAnimation(from: NoiseFrames(count: 10), applying: recipe) { _, _, _, _ in writer }
    _ = try returned.finish()
    let log = writer.log.withLock { $0 }
    XCTAssertEqual(log.frames.count, 10)
    XCTAssertEqual(log.delays, Array(20..<30))
    XCTAssertEqual(summary.delays, Array(20..<30))
    XCTAssertEqual(log.mostRunning, 1)
    XCTAssertFalse(log.threads.contains(ObjectIdentifier(Thread.current)), "frames were encoded on the rendering thread")
    for k in 0..<min(10, log.frames.count) {
      let alone = try renderer.render(recipe(Image(buffer: NoiseFrames.frame(k))), format: .rgb8)
      XCTAssertTrue(log.frames[k].hasSamePixels(as: alone), "frame \(k + 1)")
    }
  }

  /// An animated WebP (lossy, Q75) from the loop is byte for byte the one libwebp writes from the
  /// same frames rendered and added serially on this thread.
  func testWebPMatchesTheSerialLoop() throws {
    let size = Size(width: 16, height: 12)
    func start() throws -> WebPAnimationWriter {
      try WebPAnimationWriter(size: size, loopCount: 0, settings: WebPEncodeSettings(quality: 75), metadata: ImageMetadata())
    }
    let (looped, _) = try renderer.renderAnimation(from: NoiseFrames(count: 10), applying: recipe) { _, _, _, _ in try start() }
    let serial = try start()
    for k in 0..<10 {
      try serial.add(try renderer.render(recipe(Image(buffer: NoiseFrames.frame(k))), format: .rgb8), delay: 20 + k)
    }
    XCTAssertEqual(try looped.finish(), try serial.finish())
  }

  /// A damaged frame 7 fails the loop with the reader's error once frame 6's encode has finished
  /// (no encode still running when it returns); a writer refusing frame 4 fails it with the
  /// writer's error, and no later frame reaches the writer.
  func testAnErrorInFrameKFailsTheLoop() throws {
    let writer = SlowWriter()
    XCTAssertThrowsError(try renderer.renderAnimation(from: NoiseFrames(count: 10, failing: 6), applying: recipe) { _, _, _, _ in writer }) {
      XCTAssertEqual(($0 as? CodecError)?.message, "frame 7 is damaged")
    }
    XCTAssertEqual(writer.log.withLock { [$0.frames.count, $0.running] }, [6, 0])

    let refusing = SlowWriter(failing: 3)
    XCTAssertThrowsError(try renderer.renderAnimation(from: NoiseFrames(count: 10), applying: recipe) { _, _, _, _ in refusing }) {
      XCTAssertEqual(($0 as? CodecError)?.message, "the writer refused frame 4")
    }
    XCTAssertEqual(refusing.log.withLock { [$0.calls, $0.frames.count, $0.running] }, [4, 3, 0])
  }
}
