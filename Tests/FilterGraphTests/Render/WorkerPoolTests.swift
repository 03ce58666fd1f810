// WorkerPoolTests.swift — pools run every job and release their threads when dropped.

import Foundation
import PixelBufferModule
import XCTest

@testable import FilterGraph

final class WorkerPoolTests: XCTestCase {
  private func threadCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
  }

  func testEveryJobRunsOnce() {
    let pool = WorkerPool(threadCount: 3)
    let lock = NSLock()
    let done = DispatchGroup()
    var seen = [Int](repeating: 0, count: 500)
    for i in 0..<500 {
      done.enter()
      pool.submit {
        lock.lock()
        seen[i] += 1
        lock.unlock()
        done.leave()
      }
    }
    done.wait()
    XCTAssertEqual(seen, [Int](repeating: 1, count: 500))
  }

  /// A job running (not only one queued) makes the pool busy: the batch's timeout tells a render
  /// still computing from one stuck in a system call by it.
  func testThePoolIsBusyWhileAJobRuns() {
    let pool = WorkerPool(threadCount: 2)
    XCTAssertTrue(pool.isIdle)
    let started = DispatchSemaphore(value: 0), gate = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
    pool.submit {
      started.signal()
      gate.wait()
    }
    started.wait()
    XCTAssertFalse(pool.isIdle, "a running job, with the queue empty")
    pool.submit { finished.signal() }
    finished.wait()
    XCTAssertFalse(pool.isIdle)
    gate.signal()
    let deadline = Date().addingTimeInterval(5)
    while !pool.isIdle && Date() < deadline { usleep(1000) }
    XCTAssertTrue(pool.isIdle)
  }

  func testUrgentJobsRunBeforeQueuedOrdinaryOnes() {
    let pool = WorkerPool(threadCount: 1)
    let lock = NSLock()
    var order: [String] = []
    let gate = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    pool.submit { gate.wait() }  // holds the only worker while the queue fills
    for i in 0..<3 { pool.submit { lock.lock(); order.append("job \(i)"); lock.unlock() } }
    for i in 0..<2 { pool.submitUrgent { lock.lock(); order.append("urgent \(i)"); lock.unlock() } }
    pool.submit { done.signal() }
    gate.signal()
    done.wait()
    XCTAssertEqual(order, ["urgent 0", "urgent 1", "job 0", "job 1", "job 2"])
  }

  func testShortLivedRenderersNeitherCrashNorLeakThreads() throws {
    // A renderer dropped right after creation, its threads possibly not started yet (fgrun's
    // when a run fails early): the threads hold only the job queue, and exit.
    let before = threadCount()
    for _ in 0..<20 {
      let r = Renderer(options: RendererOptions(threads: 3, tileSize: Size(width: 8, height: 8)))
      _ = try r.render(Image(color: .white, size: Size(width: 3, height: 3)))
    }
    for _ in 0..<20 { _ = Renderer(options: RendererOptions(threads: 2)) }
    // Threads exit once their pool is gone; allow them a moment.
    let deadline = Date().addingTimeInterval(5)
    while threadCount() > before + 2 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
    if before > 0 { XCTAssertLessThanOrEqual(threadCount(), before + 2, "worker threads outlive their renderers") }
  }
}

final class WorkerPoolReleaseTests: XCTestCase {
  /// A finished job's captures are released when it returns: the renderer's band buffers must
  /// not stay alive in the queue until the end of a render.
  func testFinishedJobsReleaseTheirCaptures() {
    final class Payload: @unchecked Sendable {}
    let pool = WorkerPool(threadCount: 2)
    weak var watched: Payload?
    do {
      let payload = Payload()
      watched = payload
      let done = DispatchGroup()
      for _ in 0..<4 {
        done.enter()
        pool.submit {
          withExtendedLifetime(payload) {}
          done.leave()
        }
      }
      done.wait()
    }
    // Every body has run; the last job may still be unwinding.
    for _ in 0..<200 where watched != nil { usleep(1000) }
    XCTAssertNil(watched, "the queue still holds a finished job's closure")
  }
}

final class WorkerPoolBatchTests: XCTestCase {
  /// A batch runs every job once, in order on a one-thread pool, and wakes enough threads that
  /// several run at once on a larger pool.
  func testBatchRunsEveryJobInOrderAndInParallel() {
    let serial = WorkerPool(threadCount: 1)
    let lock = NSCondition()
    var order: [Int] = []
    serial.submit(contentsOf: (0..<100).map { i in { lock.lock(); order.append(i); lock.broadcast(); lock.unlock() } })
    lock.lock()
    while order.count < 100 { lock.wait() }
    lock.unlock()
    XCTAssertEqual(order, Array(0..<100))

    // Three jobs that each wait until all three have started: they finish only if the batch woke
    // all three threads.
    let parallel = WorkerPool(threadCount: 3)
    var started = 0, finished = 0
    parallel.submit(contentsOf: (0..<3).map { _ in {
      lock.lock()
      started += 1
      lock.broadcast()
      let deadline = Date().addingTimeInterval(10)
      while started < 3 && Date() < deadline { _ = lock.wait(until: deadline) }
      finished += started == 3 ? 1 : 0
      lock.broadcast()
      lock.unlock()
    } })
    lock.lock()
    let deadline = Date().addingTimeInterval(15)
    while finished < 3 && Date() < deadline { _ = lock.wait(until: deadline) }
    lock.unlock()
    XCTAssertEqual(finished, 3, "the batch did not run its jobs on three threads at once")
  }
}
