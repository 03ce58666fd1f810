// WorkerPool.swift — a fixed set of worker threads that run the renderer's tile jobs.
//
// One pool per Renderer, created once with a fixed number of threads (default: one per core);
// never a thread per task and never a pool inside a pool. Filters never see it.

import Foundation
import Locking

/// A fixed pool of worker threads fed from one FIFO queue.
public final class WorkerPool: Sendable {
  /// How many threads run jobs: those asked for, or fewer when the system refused to create
  /// more (a pids cgroup, an address-space limit too small for their stacks). With none, every
  /// job runs on the thread that submits it, so a render still finishes, on one core.
  public let threadCount: Int
  /// How many threads were asked for (at least one).
  public let requestedThreadCount: Int
  /// The queue the threads serve. Threads hold it, not the pool, so dropping the last reference
  /// to the pool (its Renderer) runs `deinit`, which tells the threads to finish and exit.
  private let jobs = JobQueue()

  /// Starts `threadCount` threads (at least one), named `name` and their number.
  public init(threadCount: Int, name: String = "FilterGraph worker") {
    requestedThreadCount = max(1, threadCount)
    var started = 0
    // Threads hold the queue, not the pool (see `jobs`). SystemThread says when one is refused
    // (Foundation's `Thread.start` would fail silently, and the pool wait forever).
    let jobs = self.jobs
    for i in 0..<requestedThreadCount where SystemThread.start(named: "\(name) \(i)", { jobs.run() }) { started += 1 }
    self.threadCount = started
  }

  deinit { jobs.stop() }

  /// True when no job is queued or running: nothing of any render is being computed.
  public var isIdle: Bool { jobs.isIdle }

  /// Queues a job; it runs on one of the pool's threads.
  public func submit(_ job: @escaping () -> Void) {
    if threadCount == 0 { return job() }
    jobs.submit(job)
  }

  /// Queues several jobs at once (one lock, one wake-up call), in order.
  public func submit(contentsOf batch: [() -> Void]) {
    if threadCount == 0 { return batch.forEach { $0() } }
    jobs.submit(contentsOf: batch)
  }

  /// Queues a job ahead of every ordinary one (still after other urgent jobs): the renderer's
  /// decode-ahead, the serial stage every later tile depends on.
  public func submitUrgent(_ job: @escaping () -> Void) {
    if threadCount == 0 { return job() }
    jobs.submit(job, urgent: true)
  }

  /// The FIFO of jobs and the loop each worker thread runs until the pool stops.
  private final class JobQueue: Sendable {
    private let state = Monitor(State())

    private struct State {
      var queue: [() -> Void] = []
      var head = 0
      /// Urgent jobs, served before `queue` (few and short-lived: no compaction needed beyond reset).
      var urgent: [() -> Void] = []
      var urgentHead = 0
      var stopping = false
      /// Jobs taken by a thread and not finished.
      var running = 0

      var isEmpty: Bool { head == queue.count && urgentHead == urgent.count }

      /// The next job, urgent ones first; nil when the queue is empty.
      mutating func next() -> (() -> Void)? {
        if urgentHead < urgent.count {
          let job = urgent[urgentHead]
          urgent[urgentHead] = {}
          urgentHead += 1
          if urgentHead == urgent.count {
            urgent.removeAll(keepingCapacity: true)
            urgentHead = 0
          }
          return job
        }
        guard head < queue.count else { return nil }
        let job = queue[head]
        // Drop the queue's reference now: a finished job's captures (a band's buffer, a PNG
        // segment) must not live on until the queue is next compacted.
        queue[head] = {}
        head += 1
        if head > 1024 && head * 2 > queue.count {
          queue.removeFirst(head)
          head = 0
        }
        return job
      }
    }

    func submit(_ job: @escaping () -> Void, urgent isUrgent: Bool = false) {
      state.update(waking: .one) { if isUrgent { $0.urgent.append(job) } else { $0.queue.append(job) } }
    }

    func submit(contentsOf batch: [() -> Void]) {
      if batch.isEmpty { return }
      state.update(waking: batch.count == 1 ? .one : .all) { $0.queue.append(contentsOf: batch) }
    }

    /// Lets the threads drain the queue and exit.
    func stop() { state.update { $0.stopping = true } }

    /// No job queued or running.
    var isIdle: Bool { state.withLock { $0.isEmpty && $0.running == 0 } }

    func run() {
      // A nil job: the queue is empty and stopping.
      while let job = state.withLock(waitingUntil: { !$0.isEmpty || $0.stopping }, { state -> (() -> Void)? in
        let job = state.next()
        if job != nil { state.running += 1 }
        return job
      }) {
        job()
        state.withLock { $0.running -= 1 }
      }
    }
  }

  /// Runs `body(i)` for `i` in `0..<count` on the pool and waits for all of them (the analyses'
  /// tile passes).
  public func parallelFor(_ count: Int, _ body: @escaping (Int) -> Void) {
    if count == 0 { return }
    let remaining = Monitor(count)
    for i in 0..<count {
      submit {
        body(i)
        // Only the last job wakes the caller: each wake-up would take a core from a worker.
        if remaining.withLock({ $0 -= 1; return $0 == 0 }) { remaining.wakeAll() }
      }
    }
    remaining.withLock(waitingUntil: { $0 == 0 }) { _ in }
  }
}
