// Admission.swift — keeps the renders in flight within a memory budget, as batches do
// (fgrun's MemoryBudget), and within a count (by default one per Renderer thread: every render
// is tile-parallel on the one worker pool, so more at once add memory and latency, not
// throughput), but for requests: a render whose estimate does not fit waits its turn
// (first come, first served) for at most `maxWait`, then is answered 429 with Retry-After; at
// most `maxQueued` requests wait at once, more are answered 429 at once. A render never waits
// when nothing is in flight, so one larger than the budget still runs, alone. Waiting holds no
// thread, and a request whose client goes away leaves the queue.

import Foundation

/// The budget of renders in flight.
actor Admission {
  /// The budget in bytes.
  let limit: Int
  /// The most renders in flight at once.
  let maxInFlight: Int
  let maxWait: Double
  let maxQueued: Int
  private var held = 0
  private var inFlight = 0
  private var waiting: [Waiter] = []
  private var nextID = 0

  private struct Waiter {
    let id: Int
    let bytes: Int
    let continuation: CheckedContinuation<Void, Error>
  }

  init(limit: Int, maxInFlight: Int, maxWait: Double, maxQueued: Int) {
    self.limit = max(limit, 1)
    self.maxInFlight = max(maxInFlight, 1)
    self.maxWait = maxWait
    self.maxQueued = maxQueued
  }

  /// Renders in flight and requests waiting.
  var load: (inFlight: Int, waiting: Int, heldBytes: Int) { (inFlight, waiting.count, held) }

  /// Waits until `bytes` fit (or nothing is in flight), then takes them; give them back with
  /// `release(bytes)`. The wait lasts `maxWait` at most, or `atMost` seconds when fewer (what is
  /// left of a request's wait after an earlier queue).
  ///
  /// - Throws: 429 when the queue is full or the wait runs out; `CancellationError` when the
  ///   request is cancelled while it waits.
  func acquire(_ bytes: Int, waitingAtMost atMost: Double? = nil) async throws {
    if waiting.isEmpty && fits(bytes) {
      take(bytes)
      return
    }
    let wait = min(maxWait, atMost ?? maxWait)
    guard waiting.count < maxQueued, wait > 0 else { throw busy() }
    nextID += 1
    let id = nextID
    let timer = Task {
      try await Task.sleep(nanoseconds: UInt64(wait * 1e9))
      self.expire(id, error: self.busy())
    }
    defer { timer.cancel() }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        waiting.append(Waiter(id: id, bytes: bytes, continuation: continuation))
      }
    } onCancel: {
      Task { await self.expire(id, error: CancellationError()) }
    }
  }

  /// Gives back what `acquire(bytes)` took and admits the waiters that now fit, in order.
  func release(_ bytes: Int) {
    held -= min(bytes, held)
    inFlight -= 1
    if inFlight == 0 { held = 0 }
    while let first = waiting.first, fits(first.bytes) {
      waiting.removeFirst()
      take(first.bytes)
      first.continuation.resume()
    }
  }

  private func fits(_ bytes: Int) -> Bool {
    inFlight == 0 || (inFlight < maxInFlight && bytes <= limit && held <= limit - bytes)
  }

  private func take(_ bytes: Int) {
    held = held > Int.max - bytes ? .max : held + bytes
    inFlight += 1
  }

  /// Ends waiter `id`'s wait with `error` (its time ran out, or its request went away).
  private func expire(_ id: Int, error: Error) {
    guard let index = waiting.firstIndex(where: { $0.id == id }) else { return }
    waiting.remove(at: index).continuation.resume(throwing: error)
  }

  private func busy() -> ServerError {
    ServerError(429, "The server is busy: too many images are being rendered. Retry later.", retryAfter: max(1, Int(maxWait.rounded(.up))))
  }
}
