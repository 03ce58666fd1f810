// BandScheduler.swift — runs a plan's tiles on the worker pool, band by band, and hands the
// finished bands to a sink in order.
//
// A window of bands is in flight (`Renderer.bandWindow`); the calling thread sleeps until the
// oldest band is complete, gives it to the sink (a slice of the output buffer, or an encoder) and
// launches the next. Memory is thus the decoded sources plus a few bands. The first error
// cancels the remaining jobs and is rethrown once none is running.
//
// Scheduling (measured on 2 cores, `perf sched timehist`): the calling thread is a third thread
// next to the workers, so every time it wakes it takes a core from one of them. It therefore
// sleeps until the band it waits for is complete (workers signal it only then, not on every
// tile), and a band's tiles go to the pool in one batch.
//
// With streamed sources, no worker ever waits for a decode. A render's decoding runs as one chain
// of urgent jobs (`DecodeChain`), one band per job, each resubmitting the next: two bands' decodes
// never run at once (the second would only wait for the decoder's lock, holding a worker), and a
// band's tiles are queued only once the rows they read are decoded (a tile queued earlier would
// sleep on the lock in `StreamingSource.prepare`). A worker thus always has either a decode or
// ready tiles to run — of this render or of another on the same pool (a batch's other files).

import Foundation
import PixelBufferModule

/// One band's buffer and its count of unfinished tiles.
final class BandState: @unchecked Sendable {  // `remaining` is only touched under RenderProgress's condition
  let buffer: PixelBuffer
  var remaining: Int

  init(buffer: PixelBuffer, remaining: Int) {
    self.buffer = buffer
    self.remaining = remaining
  }
}

/// What the workers and the calling thread share while a render runs.
final class RenderProgress: @unchecked Sendable {  // every var is guarded by `condition`
  let condition = NSCondition()
  /// The first error a job raised.
  var failure: Error?
  /// Set by the first error or a drain: jobs not yet started do nothing.
  var cancelled = false
  /// Jobs queued and not finished.
  var inFlightJobs = 0
  /// The band the calling thread sleeps on (-1: none; `Int.max`: the last job of all).
  var awaited = -1

  /// Whether a job about to start should do nothing.
  var isCancelled: Bool {
    condition.lock()
    defer { condition.unlock() }
    return cancelled
  }

  /// Counts `count` more jobs in flight.
  func add(_ count: Int) {
    condition.lock()
    inFlightJobs += count
    condition.unlock()
  }

  /// Records the end of a tile job of band `band` (state `state`), waking the calling thread
  /// only when what it sleeps on has happened.
  func finishTile(of band: Int, _ state: BandState, error: Error?) {
    condition.lock()
    if let error, failure == nil {
      failure = error
      cancelled = true
    }
    state.remaining -= 1
    inFlightJobs -= 1
    if error != nil || (awaited == band && state.remaining == 0) || (awaited == .max && inFlightJobs == 0)
      || (cancelled && inFlightJobs == 0)
    {
      condition.broadcast()
    }
    condition.unlock()
  }

  /// Records the end of a decode-ahead job; only a drain (or an eager render's end) waits on it.
  func finishDecodeAhead() {
    condition.lock()
    inFlightJobs -= 1
    if inFlightJobs == 0 && (cancelled || awaited == .max) { condition.broadcast() }
    condition.unlock()
  }

  /// Sleeps until every job has finished or one failed.
  func waitForAll() {
    condition.lock()
    awaited = .max
    while inFlightJobs > 0 && failure == nil { condition.wait() }
    awaited = -1
    condition.unlock()
  }

  /// Sleeps until `state` (band `band`) is complete or a job failed; returns the failure.
  func wait(forBand band: Int, _ state: BandState) -> Error? {
    condition.lock()
    awaited = band
    while state.remaining > 0 && failure == nil { condition.wait() }
    awaited = -1
    defer { condition.unlock() }
    return failure
  }

  /// Cancels the jobs not yet started and sleeps until none is running.
  func drain() {
    condition.lock()
    cancelled = true
    while inFlightJobs > 0 { condition.wait() }
    condition.unlock()
  }
}

extension Renderer {
  /// Runs the tiles of `plan`, writing each band into the buffer `band(y, height)` gives and
  /// handing finished bands to `sink` in top-to-bottom order on the calling thread.
  ///
  /// `eager`: every band is queued at once and `sink` runs after the last tile (for a sink that
  /// does nothing, such as `render`'s: the calling thread then sleeps through the whole render
  /// instead of waking for every band). Not with streamed sources, whose row window assumes
  /// `bandWindow`; `run` falls back to the window then.
  ///
  /// `outputTransform`: tiles are evaluated in linear light and stored through it (an output ICC
  /// profile), unless the plan is a pass-through copy.
  func run(
    _ plan: RenderPlan, format: PixelFormat, band: (Int, Int) -> PixelBuffer,
    eager: Bool = false, outputTransform: ColourTransform? = nil, sink: (PixelBuffer, Int) throws -> Void
  ) throws {
    let grid = plan.grid
    if grid.size.isEmpty { return }
    let writer = TileWriter(plan: plan, format: format, outputTransform: outputTransform)
    // Streamed sources decode ahead of the tiles, one band at a time (see StreamingSource).
    let streams = plan.streamed.values.filter { !$0.bandEnds.isEmpty }
    let bandCount = grid.bandCount, tilesAcross = grid.tilesAcross
    let eager = eager && plan.streamed.isEmpty
    let window = eager ? bandCount : bandWindow
    let progress = RenderProgress()
    let chain = streams.isEmpty ? nil : DecodeChain(streams: streams, pool: pool, progress: progress)
    var states: [Int: BandState] = [:]
    // Eager renders queue all tiles in one batch (one lock, one wake-up) once every band is cut.
    var pending: [() -> Void] = []

    func launch(_ b: Int) {
      let rows = grid.rows(ofBand: b)
      let state = BandState(buffer: band(rows.y, rows.height), remaining: tilesAcross)
      states[b] = state
      let base = state.buffer.sharedStorage.baseAddress
      let bandOffset = state.buffer.withUnsafeBaseAddress { p, _ in UnsafeRawPointer(p) - UnsafeRawPointer(base) }
      let rowBytes = state.buffer.rowBytes
      var jobs: [() -> Void] = []
      jobs.reserveCapacity(tilesAcross)
      for t in 0..<tilesAcross {
        let rect = grid.tile(t, ofBand: b)
        jobs.append {
          var error: Error?
          if !progress.isCancelled {
            do {
              try writer.write(rect, to: base + bandOffset + rect.x * format.bytesPerPixel, rowBytes: rowBytes)
            } catch let e { error = e }
          }
          progress.finishTile(of: b, state, error: error)
        }
      }
      progress.add(tilesAcross)
      if eager {
        pending.append(contentsOf: jobs)
      } else if let chain {
        chain.request(band: b, tiles: jobs)
      } else {
        pool.submit(contentsOf: jobs)
      }
    }

    for b in 0..<min(window, bandCount) { launch(b) }
    if eager {
      pool.submit(contentsOf: pending)
      pending = []
      progress.waitForAll()
    }
    for b in 0..<bandCount {
      let state = states.removeValue(forKey: b)!
      if let error = progress.wait(forBand: b, state) {
        progress.drain()
        throw error
      }
      do {
        try sink(state.buffer, b * grid.tileSize.height)
      } catch {
        progress.drain()
        throw error
      }
      if b + window < bandCount { launch(b + window) }
    }
    // Streamed sources are decoded by now: pass on what their decoders recovered from.
    for stream in plan.streamed.values {
      for warning in stream.warnings { warn(warning, in: plan, damage: true) }
    }
  }
}

/// A render's decoding of its streamed sources, run as a chain of urgent pool jobs: one band's
/// rows per job, then that band's tiles are queued, and the next band's decode, if requested, is
/// queued behind other urgent jobs (other renders' decodes) rather than run in a loop.
final class DecodeChain: @unchecked Sendable {  // `requests` and `running` are only touched under `lock`
  private let streams: [StreamingSource]
  private let pool: WorkerPool
  private let progress: RenderProgress
  private let lock = NSLock()
  /// Bands whose decode is requested and not started, oldest first, with their tiles.
  private var requests: [(band: Int, tiles: [() -> Void])] = []
  private var head = 0
  /// Whether a step is queued or running.
  private var running = false

  init(streams: [StreamingSource], pool: WorkerPool, progress: RenderProgress) {
    self.streams = streams
    self.pool = pool
    self.progress = progress
  }

  /// Decodes the rows band `band` reads, then queues `tiles`. Counts as one job in flight
  /// (`progress`) until the tiles are queued; after a cancellation the decode is skipped and the
  /// tiles, queued all the same, do nothing but finish.
  func request(band: Int, tiles: [() -> Void]) {
    progress.add(1)
    lock.lock()
    requests.append((band, tiles))
    let start = !running
    running = true
    lock.unlock()
    if start { pool.submitUrgent { self.step() } }
  }

  private func step() {
    lock.lock()
    let (band, tiles) = requests[head]
    requests[head].tiles = []
    head += 1
    lock.unlock()
    if !progress.isCancelled {
      for stream in streams { stream.decodeAhead(forBand: band) }
    }
    pool.submit(contentsOf: tiles)
    lock.lock()
    let more = head < requests.count
    if !more {
      requests.removeAll(keepingCapacity: true)
      head = 0
    }
    running = more
    lock.unlock()
    if more { pool.submitUrgent { self.step() } }
    progress.finishDecodeAhead()
  }
}
