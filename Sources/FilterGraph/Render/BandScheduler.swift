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
      for stream in streams {
        progress.add(1)
        pool.submitUrgent {
          if !progress.isCancelled { stream.decodeAhead(forBand: b) }
          progress.finishDecodeAhead()
        }
      }
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
    if let warningHandler {
      for stream in plan.streamed.values { stream.warnings.forEach(warningHandler) }
    }
  }
}
