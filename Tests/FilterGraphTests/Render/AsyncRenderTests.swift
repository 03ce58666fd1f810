// AsyncRenderTests.swift — `try await renderer.render(…)` and `write(…)` give what the blocking
// calls give, and suspend the calling task instead of holding its thread: on an executor with a
// single thread, other work of that executor runs while a render is in progress.

import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class AsyncRenderTests: XCTestCase {
  private let renderer = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 32, height: 16)))

  /// The blocking calls (from a synchronous function, which never picks the async overloads).
  private func blockingRender(_ image: Image) throws -> PixelBuffer { try renderer.render(image) }
  private func blockingWrite(_ image: Image, to url: URL) throws { try renderer.write(image, to: url) }

  private func picture() -> Image {
    Image(buffer: PixelBuffer.random(width: 97, height: 61, format: .rgb8, seed: 4)).blurred(sigma: 2).tinted(Color(hex: "#FF8000")!, amount: 0.3)
  }

  func testAsyncRenderEqualsBlockingRender() async throws {
    let image = picture()
    let awaited = try await renderer.render(image)
    XCTAssertTrue(awaited.hasSamePixels(as: try blockingRender(image)))
  }

  func testAsyncWriteWritesTheBlockingWritesBytes() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("async-write-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let image = picture()
    let (a, b) = (folder.appendingPathComponent("awaited.png"), folder.appendingPathComponent("blocking.png"))
    try await renderer.write(image, to: a)
    try blockingWrite(image, to: b)
    XCTAssertEqual(try Data(contentsOf: a), try Data(contentsOf: b))
  }

  func testRenderSuspendsInsteadOfHoldingTheCallersThread() async throws {
    // The render's first tile waits until the test opens a gate, and the test can only open it
    // from the executor's one thread. A render that held that thread would never see the gate
    // open (the tile gives up after 30 s and the test fails); one that suspends lets it run.
    let gate = Gate()
    let gated = picture().applying(GateOperation(gate: gate))
    let executor = OneThreadExecutor()
    defer { executor.stop() }
    let renderer = self.renderer
    let rendered = try await withTaskExecutorPreference(executor) {
      async let result = renderer.render(gated)
      await gate.waitUntilReached()
      gate.open()
      return try await result
    }
    XCTAssertFalse(gate.gaveUp, "the render held the executor's only thread")
    XCTAssertTrue(rendered.hasSamePixels(as: try blockingRender(picture())))
  }

  func testCancellingAnAsyncWriteLeavesNoFile() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("async-cancel-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let gate = Gate()
    let url = folder.appendingPathComponent("out.png")
    let (renderer, gated) = (self.renderer, picture().applying(GateOperation(gate: gate)))
    let task = Task { try await renderer.write(gated, to: url) }
    await gate.waitUntilReached()
    task.cancel()
    gate.open()
    do {
      try await task.value
      XCTFail("a cancelled write finished")
    } catch {
      XCTAssertTrue(error is CancellationError, "\(error)")
    }
    XCTAssertFalse(FileManager.default.fileExists(atPath: url.path))
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], "no temporary file is left")
  }
}

/// A gate the first pixel row that reaches it waits at, until the test opens it.
private final class Gate: @unchecked Sendable {  // every var is only touched under `condition`
  private let condition = NSCondition()
  private var reached = false, isOpen = false
  private var waiter: CheckedContinuation<Void, Never>?
  private(set) var gaveUp = false

  /// Called from a worker thread by every row.
  func pass() {
    condition.lock()
    defer { condition.unlock() }
    if !reached {
      reached = true
      waiter?.resume()
      waiter = nil
    }
    let deadline = Date().addingTimeInterval(30)
    while !isOpen && !gaveUp {
      if !condition.wait(until: deadline) { gaveUp = true }
    }
  }

  /// Suspends until a row has reached the gate.
  func waitUntilReached() async {
    await withCheckedContinuation { continuation in
      condition.lock()
      if reached { continuation.resume() } else { waiter = continuation }
      condition.unlock()
    }
  }

  func open() {
    condition.lock()
    isOpen = true
    condition.broadcast()
    condition.unlock()
  }
}

/// A per-pixel identity that makes every row pass the gate.
private struct GateOperation: PointOperation {
  let gate: Gate
  static let table = OperationDescriptor(name: "gate", category: .color, summary: "Waits at a gate.", parameters: [], example: "")
  var descriptor: OperationDescriptor { Self.table }
  var arguments: Arguments { Arguments() }
  var workingSpace: WorkingSpace? { nil }
  func apply(to pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int) { gate.pass() }
}

/// A task executor with exactly one thread.
private final class OneThreadExecutor: TaskExecutor, @unchecked Sendable {  // `jobs`, `stopped` only under `condition`
  private let condition = NSCondition()
  private var jobs: [UnownedJob] = []
  private var stopped = false

  init() {
    Thread { [self] in run() }.start()
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.lock()
    jobs.append(job)
    condition.signal()
    condition.unlock()
  }

  func stop() {
    condition.lock()
    stopped = true
    condition.signal()
    condition.unlock()
  }

  private func run() {
    while true {
      condition.lock()
      while jobs.isEmpty && !stopped { condition.wait() }
      if jobs.isEmpty {
        condition.unlock()
        return
      }
      let job = jobs.removeFirst()
      condition.unlock()
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }
}
