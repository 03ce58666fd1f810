// Locked.swift — state that is only ever read or written while its lock is held.
//
// An NSLock rather than Synchronization's `Mutex`: on Linux a contended `Mutex` waits in the
// kernel (a priority-inheritance futex, in the standard library's uninstrumented code), where
// ThreadSanitizer cannot see it order the threads, so `make test-tsan` reports races that are not
// there. NSLock goes through pthread_mutex, which ThreadSanitizer understands.

import Foundation

/// A value guarded by a lock: the only way to it is `withLock`.
final class Locked<State>: @unchecked Sendable {  // `state` is only touched inside `withLock`
  private let lock = NSLock()
  private var state: State

  init(_ state: State) { self.state = state }

  /// Runs `body` on the state with the lock held.
  func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
    lock.lock()
    defer { lock.unlock() }
    return try body(&state)
  }
}
