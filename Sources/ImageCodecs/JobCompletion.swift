// JobCompletion.swift — "this job has finished" for the encoders' pool jobs.
//
// The PNG writer's segments and the JPEG writer's strips are compressed on a pool thread and
// written in order by the encoding thread. Each keeps one of these: the job publishes its results
// and marks itself done in one step; `EncodeJobs` polls `isDone` or blocks in `wait()`, then the
// writer reads the results (the lock orders the job's writes before the writer's reads).

import Locking

/// A one-shot completion flag with a lock that publishes a job's results.
final class JobCompletion: Sendable {
  private let done = Monitor(false)

  /// Runs `publish` (stores the job's results) and marks the job done, waking any waiter.
  func complete(_ publish: () -> Void) {
    done.update {
      publish()
      $0 = true
    }
  }

  /// Whether `complete` has run.
  var isDone: Bool { done.withLock { $0 } }

  /// Blocks until `complete` has run.
  func wait() { done.withLock(waitingUntil: { $0 }) { _ in } }
}
