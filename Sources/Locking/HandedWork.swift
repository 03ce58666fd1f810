// HandedWork.swift — work one thread hands to another and takes back if nobody has started it.
//
// A thread that hands work to a pool and then waits for it can wait forever when the pool's every
// thread is itself waiting for work queued behind it (a renderer's driver threads each writing an
// Ultra HDR file and each handing its gain map to the same drivers). `HandedWork` removes the
// wait on the queue: the pool runs `run()`, and the thread that needs the result calls
// `result()`, which does the work itself when no thread has started it; it waits only for work
// already running, which ends.

/// Work handed to another thread: whichever of `run()` and `result()` comes first does it.
package final class HandedWork<Value: Sendable>: Sendable {
  private enum State {
    case waiting
    case running
    case done(Result<Value, any Error>)
  }

  private let state = Monitor(State.waiting)
  private let body: @Sendable () throws -> Value

  /// Work that `body` does, once.
  package init(_ body: @escaping @Sendable () throws -> Value) { self.body = body }

  /// Does the work unless it has been started; for the thread it is handed to.
  package func run() {
    guard claim() else { return }
    finish(Result { try body() })
  }

  /// The work's result: done here if no thread has started it, else waited for.
  package func result() throws -> Value {
    if claim() {
      let outcome = Result { try body() }
      finish(outcome)
      return try outcome.get()
    }
    return try state.withLock(waitingUntil: { if case .done = $0 { true } else { false } }) { state -> Result<Value, any Error> in
      guard case .done(let outcome) = state else { preconditionFailure("waited until done") }
      return outcome
    }.get()
  }

  /// True once the work has ended (its result is ready).
  package var isDone: Bool { state.withLock { if case .done = $0 { true } else { false } } }

  /// Keeps the work from being started any more: for a result nobody will ask for (the thread
  /// that handed it failed first).
  package func abandon() {
    if claim() { finish(.failure(CancellationError())) }
  }

  /// True for the one caller that moves the work from waiting to running.
  private func claim() -> Bool {
    state.withLock { state in
      guard case .waiting = state else { return false }
      state = .running
      return true
    }
  }

  private func finish(_ outcome: Result<Value, any Error>) {
    state.update { $0 = .done(outcome) }
  }
}
