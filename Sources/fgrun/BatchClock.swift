// BatchClock.swift — a batch's timer: one thread of its own that runs each file's time-limit
// checks when they fall due.
//
// The thread is started with pthread_create (SystemThread), not taken from libdispatch, which
// retries a thread the system refuses forever: a batch in a pids cgroup with no room for one more
// thread gets no clock (`start` says so) instead of a batch that never ends.

import FilterGraph
import Foundation
import Locking

/// Runs closures at given times, in order, on its one thread.
final class BatchClock: Sendable {
  private struct State {
    var timers: [(at: Double, body: @Sendable () -> Void)] = []
    /// A timer was added since the thread last looked: its wait may have to end sooner.
    var added = false
  }

  private let state = Monitor(State())

  private init() {}

  /// A clock with its thread running; nil when the system refused the thread.
  static func start() -> BatchClock? {
    let clock = BatchClock()
    return SystemThread.start(named: "fgrun clock", clock.run) ? clock : nil
  }

  /// Runs `body` on the clock's thread `seconds` from now.
  func after(_ seconds: Double, _ body: @escaping @Sendable () -> Void) {
    let at = Stats.now() + seconds
    state.update(waking: .one) {
      $0.timers.append((at, body))
      $0.added = true
    }
  }

  /// The thread's loop: sleeps until the earliest timer is due or one is added, runs those due.
  /// The process's exit ends it.
  private func run() {
    /// Takes the timers due now, earliest first.
    func due(_ state: inout State) -> [@Sendable () -> Void] {
      state.added = false
      let now = Stats.now()
      let ready = state.timers.filter { $0.at <= now }.sorted { $0.at < $1.at }
      state.timers.removeAll { $0.at <= now }
      return ready.map(\.body)
    }
    while true {
      let bodies: [@Sendable () -> Void]
      if let next = state.withLock({ $0.timers.map(\.at).min() }) {
        let deadline = Date(timeIntervalSinceNow: max(0, next - Stats.now()))
        bodies = state.withLock(waitingUntil: { $0.added }, deadline: deadline) { state, _ in due(&state) }
      } else {
        bodies = state.withLock(waitingUntil: { $0.added }) { due(&$0) }
      }
      bodies.forEach { $0() }
    }
  }
}
