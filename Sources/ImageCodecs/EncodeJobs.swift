// EncodeJobs.swift — the pipeline the parallel encoders share: jobs run on an executor and are
// written in the order they were submitted.
//
// The PNG writer's segments and the JPEG writer's strips are each compressed by one job on a pool
// thread, and their bytes must reach the file in image order. `EncodeJobs` keeps the submitted
// jobs oldest first, at most `limit` of them: submitting waits for the oldest to finish and writes
// it while the limit is reached, then writes every job at the front that has already finished,
// without waiting. `finish` writes the rest in order. Which job runs when changes nothing written:
// each job's bytes depend only on its own input.

/// Runs encoder jobs (PNG segments, JPEG strips) on the caller's threads: the renderer passes its
/// worker pool.
///
/// Encoders never create threads; they hand jobs to the executor and wait for the results in
/// order. Jobs never wait for each other, so any executor with at least one thread works.
public protocol EncodeJobExecutor: AnyObject {
  /// Runs `job` soon, on any thread.
  func submit(_ job: @escaping () -> Void)
}

/// A job whose results are published through its `completion`.
protocol EncodeJob: AnyObject {
  /// Marked by the job when its results are stored.
  var completion: JobCompletion { get }
}

/// Submitted jobs, written in submission order with at most `limit` in flight.
struct EncodeJobs<Job: EncodeJob> {
  private let executor: EncodeJobExecutor?
  private let limit: Int
  private var inFlight: [Job] = []

  /// Jobs run on `executor` (inline, on the submitting thread, when nil), at most `limit` (at
  /// least 1) submitted and not yet written.
  init(executor: EncodeJobExecutor?, limit: Int) {
    self.executor = executor
    self.limit = max(1, limit)
  }

  /// Submits `job`, which `run` computes; `write` is called with each job, in order, once it is
  /// done.
  mutating func submit(_ job: Job, run: @escaping () -> Void, write: (Job) throws -> Void) throws {
    while inFlight.count >= limit { try writeOldest(write) }
    inFlight.append(job)
    if let executor { executor.submit(run) } else { run() }
    while let oldest = inFlight.first, oldest.completion.isDone { try writeOldest(write) }
  }

  /// Waits for every job still in flight and writes them in order.
  mutating func finish(write: (Job) throws -> Void) throws {
    while !inFlight.isEmpty { try writeOldest(write) }
  }

  private mutating func writeOldest(_ write: (Job) throws -> Void) throws {
    let job = inFlight.removeFirst()
    job.completion.wait()
    try write(job)
  }
}
