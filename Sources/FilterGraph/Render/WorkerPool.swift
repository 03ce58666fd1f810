// WorkerPool.swift — a fixed set of worker threads that run the renderer's tile jobs.
//
// One pool per Renderer, created once with a fixed number of threads (default: one per core);
// never a thread per task and never a pool inside a pool. Filters never see it.

import Foundation

/// A fixed pool of worker threads fed from one FIFO queue.
public final class WorkerPool: Sendable {
  /// How many threads run jobs.
  public let threadCount: Int
  /// The queue the threads serve. Threads hold it, not the pool, so dropping the last reference
  /// to the pool (its Renderer) runs `deinit`, which tells the threads to finish and exit.
  private let jobs = JobQueue()

  /// Starts `threadCount` threads (at least one), named `name` and their number.
  public init(threadCount: Int, name: String = "FilterGraph worker") {
    self.threadCount = max(1, threadCount)
    for i in 0..<self.threadCount {
      let thread = Thread { [jobs] in jobs.run() }
      thread.name = "\(name) \(i)"
      thread.stackSize = 8 << 20
      thread.start()
    }
  }

  deinit { jobs.stop() }

  /// Queues a job; it runs on one of the pool's threads.
  public func submit(_ job: @escaping () -> Void) { jobs.submit(job) }

  /// Queues several jobs at once (one lock, one wake-up call), in order.
  public func submit(contentsOf batch: [() -> Void]) { jobs.submit(contentsOf: batch) }

  /// Queues a job ahead of every ordinary one (still after other urgent jobs): the renderer's
  /// decode-ahead, the serial stage every later tile depends on.
  public func submitUrgent(_ job: @escaping () -> Void) { jobs.submit(job, urgent: true) }

  /// The FIFO of jobs and the loop each worker thread runs until the pool stops.
  private final class JobQueue: @unchecked Sendable {  // every var is only touched under `condition`
    private let condition = NSCondition()
    private var queue: [() -> Void] = []
    private var head = 0
    /// Urgent jobs, served before `queue` (few and short-lived: no compaction needed beyond reset).
    private var urgent: [() -> Void] = []
    private var urgentHead = 0
    private var stopping = false

    func submit(_ job: @escaping () -> Void, urgent isUrgent: Bool = false) {
      condition.lock()
      if isUrgent { urgent.append(job) } else { queue.append(job) }
      condition.signal()
      condition.unlock()
    }

    func submit(contentsOf batch: [() -> Void]) {
      if batch.isEmpty { return }
      condition.lock()
      queue.append(contentsOf: batch)
      if batch.count == 1 { condition.signal() } else { condition.broadcast() }
      condition.unlock()
    }

    /// Lets the threads drain the queue and exit.
    func stop() {
      condition.lock()
      stopping = true
      condition.broadcast()
      condition.unlock()
    }

    func run() {
      while true {
        condition.lock()
        while head == queue.count && urgentHead == urgent.count && !stopping { condition.wait() }
        if urgentHead < urgent.count {
          let job = urgent[urgentHead]
          urgent[urgentHead] = {}
          urgentHead += 1
          if urgentHead == urgent.count {
            urgent.removeAll(keepingCapacity: true)
            urgentHead = 0
          }
          condition.unlock()
          job()
          continue
        }
        if head == queue.count && stopping {
          condition.unlock()
          return
        }
        let job = queue[head]
        // Drop the queue's reference now: a finished job's captures (a band's buffer, a PNG
        // segment) must not live on until the queue is next compacted.
        queue[head] = {}
        head += 1
        if head > 1024 && head * 2 > queue.count {
          queue.removeFirst(head)
          head = 0
        }
        condition.unlock()
        job()
      }
    }
  }

  /// Runs `body(i)` for `i` in `0..<count` on the pool and waits for all of them (the analyses'
  /// tile passes).
  public func parallelFor(_ count: Int, _ body: @escaping (Int) -> Void) {
    if count == 0 { return }
    let done = NSCondition()
    var remaining = count
    for i in 0..<count {
      submit {
        body(i)
        done.lock()
        remaining -= 1
        if remaining == 0 { done.signal() }
        done.unlock()
      }
    }
    done.lock()
    while remaining > 0 { done.wait() }
    done.unlock()
  }
}
