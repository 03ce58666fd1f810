// Monitor.swift — state guarded by a lock that threads can also wait on until it changes.
//
// A `Locked` with a condition variable (a monitor, in Hoare's sense): `withLock` reads or changes
// the state; `update` changes it and wakes every waiter; `withLock(waitingUntil:)` sleeps until the
// state satisfies a predicate, then runs its body under the same hold of the lock, so nothing can
// change the state between the check and the body. See Locked.swift for why this is the one idiom
// and why NSCondition (pthread) rather than Synchronization.

import Foundation

/// A value guarded by a lock and a condition: see the file comment.
package final class Monitor<State>: @unchecked Sendable {  // `state` is only touched with `condition` held
  @usableFromInline let condition = NSCondition()
  @usableFromInline var state: State

  package init(_ state: State) { self.state = state }

  /// Runs `body` on the state with the lock held, waking nobody.
  @inlinable
  package func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
    condition.lock()
    defer { condition.unlock() }
    return try body(&state)
  }

  /// Runs `body` on the state with the lock held, then wakes waiters to look again: every one,
  /// or `.one` when any single waiter can take what changed (a queued job).
  @inlinable
  package func update<R>(waking: Waking = .all, _ body: (inout State) throws -> R) rethrows -> R {
    condition.lock()
    defer {
      if waking == .one { condition.signal() } else { condition.broadcast() }
      condition.unlock()
    }
    return try body(&state)
  }

  /// Wakes every waiter to look again: for a change made under `withLock` that only sometimes
  /// concerns a waiter (the change is already visible, so no wake-up can be lost).
  @inlinable
  package func wakeAll() { condition.broadcast() }

  /// How many waiters `update` wakes.
  package enum Waking: Sendable { case one, all }

  /// Sleeps until `ready(state)` holds (checked with the lock held, again after every wake-up),
  /// then runs `body` under that same hold.
  @inlinable
  package func withLock<R>(waitingUntil ready: (State) -> Bool, _ body: (inout State) throws -> R) rethrows -> R {
    condition.lock()
    defer { condition.unlock() }
    while !ready(state) { condition.wait() }
    return try body(&state)
  }

  /// As `withLock(waitingUntil:_:)`, but stops waiting at `deadline`: `body` then runs with the
  /// predicate still false, and learns it from its second argument.
  @inlinable
  package func withLock<R>(
    waitingUntil ready: (State) -> Bool, deadline: Date, _ body: (inout State, _ ready: Bool) throws -> R
  ) rethrows -> R {
    condition.lock()
    defer { condition.unlock() }
    var satisfied = ready(state)
    while !satisfied {
      if !condition.wait(until: deadline) { satisfied = ready(state); break }
      satisfied = ready(state)
    }
    return try body(&state, satisfied)
  }
}
