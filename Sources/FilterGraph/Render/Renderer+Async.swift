// Renderer+Async.swift — `render`, `write` and `encode` for async code: the calling task suspends while a
// render runs, instead of blocking one of the cooperative threads Swift concurrency shares.
//
// A render has a calling side that sleeps until bands are complete and hands them to the sink
// (BandScheduler.swift). The async entry points run that side on one of the renderer's driver
// threads (a second small WorkerPool, started on first use) and resume the task when it is done;
// the tiles still run on the renderer's worker pool. Async renders beyond the number of driver
// threads wait their turn in its queue, without holding any thread.

import Foundation
import ImageCodecs
import Locking
import PixelBufferModule

extension Renderer {
  /// Renders `image` into a new buffer, as `render(_:format:)` does, suspending the calling task
  /// until it is done.
  public func render(_ image: Image, format: PixelFormat? = nil) async throws -> PixelBuffer {
    try await onDriverThread { try self.render(image, format: format) }
  }

  /// Renders `image` and writes it to `url` atomically, as `write(_:to:options:)` does,
  /// suspending the calling task until it is done. Cancelling the task stops the render at its
  /// next tile (`CancellationError`); the destination is then left as it was.
  public func write(_ image: Image, to url: URL, options: WriteOptions = WriteOptions()) async throws {
    let cancelled = CancellationFlag()
    try await withTaskCancellationHandler {
      try await onDriverThread { try self.write(image, to: url, options: options, stop: { cancelled.isSet }) }
    } onCancel: {
      cancelled.set()
    }
  }

  /// Renders `image` and returns the encoded file bytes, as `encode(_:format:options:)` does,
  /// suspending the calling task until it is done. Cancelling the task stops the render after the
  /// band being encoded (`CancellationError`).
  public func encode(_ image: Image, format: ImageFileFormat, options: WriteOptions = WriteOptions()) async throws -> Data {
    let cancelled = CancellationFlag()
    return try await withTaskCancellationHandler {
      try await onDriverThread { try self.encode(image, format: format, options: options, stop: { cancelled.isSet }) }
    } onCancel: {
      cancelled.set()
    }
  }

  /// Runs `body` on a driver thread and resumes with its result.
  func onDriverThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    let drivers = self.drivers.pool
    return try await withCheckedThrowingContinuation { continuation in
      drivers.submit { continuation.resume(with: Result { try body() }) }
    }
  }
}

/// A renderer's driver threads, started when an async render first needs them.
final class DriverThreads: Sendable {
  private let count: Int
  private let started = Locked<WorkerPool?>(nil)

  init(count: Int) { self.count = count }

  /// The pool, started on first use.
  var pool: WorkerPool {
    started.withLock { started in
      if let started { return started }
      let pool = WorkerPool(threadCount: count, name: "FilterGraph driver")
      started = pool
      return pool
    }
  }
}

/// Set once by a task's cancellation handler, read by the render it stops.
final class CancellationFlag: Sendable {
  private let value = Locked(false)

  func set() { value.withLock { $0 = true } }
  var isSet: Bool { value.withLock { $0 } }
}
