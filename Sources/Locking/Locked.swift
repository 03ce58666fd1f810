// Locked.swift — state that is only ever read or written while its lock is held.
//
// FilterGraph's one idiom for shared mutable state (docs/Architecture.md, "Concurrency"): a class
// that several threads use keeps its mutable state in one `Locked` (or, when threads wait for the
// state to change, one `Monitor`), and lone counters and flags in Synchronization's `Atomic`. Such a
// class holds only `let`s of Sendable types, so the compiler checks its Sendable conformance;
// these two classes are where the unchecked promise is made, once.
//
// An NSLock rather than Synchronization's `Mutex`: on Linux a contended `Mutex` waits in the
// kernel (a priority-inheritance futex, in the standard library's uninstrumented code), where
// ThreadSanitizer cannot see it order the threads, so `make test-tsan` reports races that are not
// there. NSLock goes through pthread_mutex, which ThreadSanitizer understands.

import Foundation

/// A value guarded by a lock: the only way to it is `withLock`.
package final class Locked<State>: @unchecked Sendable {  // `state` is only touched inside `withLock`
  @usableFromInline let lock = NSLock()
  @usableFromInline var state: State

  package init(_ state: State) { self.state = state }

  /// Runs `body` on the state with the lock held.
  @inlinable
  package func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
    lock.lock()
    defer { lock.unlock() }
    return try body(&state)
  }
}
