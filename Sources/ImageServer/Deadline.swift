// Deadline.swift — runs work under a time limit: past it, the work's task is cancelled (a render
// stops at its next tile, a fetch closes its connection) and the caller gets a 504 at once.
//
// The timer is a task scheduled on an event loop and cancelled when the work ends first, which
// removes it there and then. (A `Task.sleep` raced against the work keeps its timer, and what it
// holds, until the full time has passed even once cancelled: at thousands of requests a second
// that is the request rate times the timeout in memory.)

import AsyncHTTPClient
import NIOCore
import Locking

/// `body`'s result, or `ServerError(504, message)` once `seconds` pass.
func withDeadline<T: Sendable>(seconds: Double, _ message: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
  let work = Task { try await body() }
  return try await withTaskCancellationHandler {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
      let outcome = FirstOutcome(continuation)
      let timer = HTTPClient.defaultEventLoopGroup.any().scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) {
        outcome.resume(with: .failure(ServerError.timeout(message)))
        work.cancel()
      }
      Task {
        let result = await work.result
        timer.cancel()
        outcome.resume(with: result)
      }
    }
  } onCancel: {
    work.cancel()
  }
}

/// Resumes a continuation with whichever outcome comes first, once.
private final class FirstOutcome<T: Sendable>: Sendable {
  private let continuation: Locked<CheckedContinuation<T, Error>?>

  init(_ continuation: CheckedContinuation<T, Error>) { self.continuation = Locked(continuation) }

  func resume(with result: Result<T, Error>) {
    continuation.withLock { pending in
      pending?.resume(with: result)
      pending = nil
    }
  }
}
