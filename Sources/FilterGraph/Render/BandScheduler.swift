// BandScheduler.swift — runs a plan's tiles on the worker pool, band by band, and hands the
// finished bands to a sink in order.
//
// A window of bands is in flight (`Renderer.bandWindow`, one for a sequential plan); the calling thread sleeps until the
// oldest band is complete, gives it to the sink (a slice of the output buffer, or an encoder) and
// launches the next. Memory is thus the decoded sources plus a few bands. The first error
// cancels the remaining jobs and is rethrown once none is running. A render with a `stop` (a
// time limit, a client gone) asks it before every tile: once it says stop, the tiles not yet
// started do nothing and the render ends with `CancellationError` as soon as those running end,
// instead of computing the bands already in flight.
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
//
// The rasters of `RasterizedSource`s (a text) are made at the render's start, each as one job
// queued before any tile: a worker makes them while another runs the first band's decode, which
// leaves it idle, instead of the first tile that reads one making it while the tiles beside it
// wait — for a credit in a photo's bottom corner, in the last bands, with the encoder waiting.
// Tiles that find a raster not made yet make it or wait for it all the same
// (`RenderPlan.rasterWaits` counts them).

import Foundation
import Locking
import PixelBufferModule

/// What the workers and the calling thread share while a render runs.
final class RenderProgress: Sendable {
  private let state: Monitor<State>

  private struct State {
    /// The first error a job raised.
    var failure: Error?
    /// Set by the first error or a drain: jobs not yet started do nothing.
    var cancelled = false
    /// Jobs queued and not finished.
    var inFlightJobs = 0
    /// The band the calling thread sleeps on (-1: none; `Int.max`: the last job of all).
    var awaited = -1
    /// Each band's unfinished tiles.
    var remaining: [Int]
  }

  init(bandCount: Int) { state = Monitor(State(remaining: Array(repeating: 0, count: bandCount))) }

  /// Whether a job about to start should do nothing.
  var isCancelled: Bool { state.withLock { $0.cancelled } }

  /// Counts `count` more jobs in flight.
  func add(_ count: Int) { state.withLock { $0.inFlightJobs += count } }

  /// Counts band `band`'s `tiles` jobs in flight.
  func add(tiles: Int, ofBand band: Int) {
    state.withLock {
      $0.inFlightJobs += tiles
      $0.remaining[band] = tiles
    }
  }

  /// Records the end of a tile job of band `band`, waking the calling thread only when what it
  /// sleeps on has happened.
  func finishTile(of band: Int, error: Error?) {
    let wake = state.withLock { s in
      if let error, s.failure == nil {
        s.failure = error
        s.cancelled = true
      }
      s.remaining[band] -= 1
      s.inFlightJobs -= 1
      return error != nil || (s.awaited == band && s.remaining[band] == 0) || (s.awaited == .max && s.inFlightJobs == 0)
        || (s.cancelled && s.inFlightJobs == 0)
    }
    if wake { state.wakeAll() }
  }

  /// Records the end of a job that is no band's tile (a decode-ahead, a raster); only a drain
  /// (or an eager render's end) waits on it.
  func finishSideJob() {
    let wake = state.withLock { s in
      s.inFlightJobs -= 1
      return s.inFlightJobs == 0 && (s.cancelled || s.awaited == .max)
    }
    if wake { state.wakeAll() }
  }

  /// Sleeps until every job has finished or one failed.
  func waitForAll() {
    state.withLock { $0.awaited = .max }
    state.withLock(waitingUntil: { $0.inFlightJobs == 0 || $0.failure != nil }) { $0.awaited = -1 }
  }

  /// Sleeps until band `band` is complete or a job failed; returns the failure.
  func wait(forBand band: Int) -> Error? {
    state.withLock { $0.awaited = band }
    return state.withLock(waitingUntil: { $0.remaining[band] == 0 || $0.failure != nil }) {
      $0.awaited = -1
      return $0.failure
    }
  }

  /// Cancels the jobs not yet started and sleeps until none is running.
  func drain() {
    state.withLock { $0.cancelled = true }
    state.withLock(waitingUntil: { $0.inFlightJobs == 0 }) { _ in }
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
  ///
  /// `stop`: asked on the worker threads before each tile; once it returns true (and it must then
  /// stay true) no further tile is computed and `run` throws `CancellationError` once the tiles
  /// running have ended.
  func run(
    _ plan: RenderPlan, format: PixelFormat, band: (Int, Int) throws -> PixelBuffer,
    eager: Bool = false, outputTransform: ColorTransform? = nil, stop: (() -> Bool)? = nil, sink: (PixelBuffer, Int) throws -> Void
  ) throws {
    let grid = plan.grid
    if grid.size.isEmpty { return }
    let writer = TileWriter(plan: plan, format: format, outputTransform: outputTransform)
    // Streamed sources decode ahead of the tiles, one band at a time (see StreamingSource).
    let streams = plan.streamed.values.filter { !$0.bandEnds.isEmpty }
    let bandCount = grid.bandCount, tilesAcross = grid.tilesAcross
    let eager = eager && plan.streamed.isEmpty && !plan.isSequential
    let window = eager ? bandCount : bandsInFlight(plan)
    let progress = RenderProgress(bandCount: bandCount)
    let chain = streams.isEmpty ? nil : DecodeChain(streams: streams, pool: pool, progress: progress)
    var buffers: [Int: PixelBuffer] = [:]
    // Eager renders queue all tiles in one batch (one lock, one wake-up) once every band is cut.
    var pending: [() -> Void] = []

    func launch(_ b: Int) throws {
      let rows = grid.rows(ofBand: b)
      let buffer: PixelBuffer
      do {
        buffer = try band(rows.y, rows.height)
      } catch {
        progress.drain()
        throw error
      }
      buffers[b] = buffer
      let base = buffer.sharedStorage.baseAddress
      let bandOffset = buffer.withUnsafeBaseAddress { p, _ in UnsafeRawPointer(p) - UnsafeRawPointer(base) }
      let rowBytes = buffer.rowBytes
      var jobs: [() -> Void] = []
      jobs.reserveCapacity(tilesAcross)
      for t in 0..<tilesAcross {
        let rect = grid.tile(t, ofBand: b)
        jobs.append {
          var error: Error?
          // A stop finishes the tile with `CancellationError`, which cancels the rest.
          if !progress.isCancelled, let stop, stop() { error = CancellationError() }
          if error == nil && !progress.isCancelled {
            do {
              try writer.write(rect, to: base + bandOffset + rect.x * format.bytesPerPixel, rowBytes: rowBytes)
            } catch let e { error = e }
          }
          progress.finishTile(of: b, error: error)
        }
      }
      progress.add(tiles: tilesAcross, ofBand: b)
      if eager {
        pending.append(contentsOf: jobs)
      } else if let chain {
        chain.request(band: b, tiles: jobs)
      } else {
        pool.submit(contentsOf: jobs)
      }
    }

    startRasters(plan, progress: progress)
    for b in 0..<min(window, bandCount) { try launch(b) }
    if eager {
      pool.submit(contentsOf: pending)
      pending = []
      progress.waitForAll()
    }
    for b in 0..<bandCount {
      let buffer = buffers.removeValue(forKey: b)!
      if let error = progress.wait(forBand: b) {
        progress.drain()
        throw error
      }
      do {
        try sink(buffer, b * grid.tileSize.height)
      } catch {
        progress.drain()
        throw error
      }
      if b + window < bandCount { try launch(b + window) }
    }
    // Streamed sources are decoded by now: pass on what their decoders recovered from.
    for stream in plan.streamed.values {
      for warning in stream.warnings { warn(warning, in: plan, damage: true) }
    }
    passRasterWarnings(plan)
  }
}

extension Renderer {
  /// Queues the making of `plan`'s rasters, one job each, in the graph's order (see the file
  /// comment); after a cancellation a job not yet started leaves its raster to the tiles.
  func startRasters(_ plan: RenderPlan, progress: RenderProgress) {
    let works = plan.nodes.compactMap { plan.rasters[ObjectIdentifier($0)] }
    guard !works.isEmpty else { return }
    progress.add(works.count)
    pool.submit(
      contentsOf: works.map { work in
        {
          if !progress.isCancelled { work.run() }
          progress.finishSideJob()
        }
      })
  }
}

/// A render's decoding of its streamed sources, run as a chain of urgent pool jobs: one band's
/// rows per job, then that band's tiles are queued, and the next band's decode, if requested, is
/// queued behind other urgent jobs (other renders' decodes) rather than run in a loop.
final class DecodeChain: Sendable {
  private let streams: [StreamingSource]
  private let pool: WorkerPool
  private let progress: RenderProgress
  private let queue = Locked(Queue())

  private struct Queue {
    /// Bands whose decode is requested and not started, oldest first, with their tiles.
    var requests: [(band: Int, tiles: [() -> Void])] = []
    var head = 0
    /// Whether a step is queued or running.
    var running = false
  }

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
    let start = queue.withLock { queue in
      queue.requests.append((band, tiles))
      defer { queue.running = true }
      return !queue.running
    }
    if start { pool.submitUrgent { self.step() } }
  }

  private func step() {
    let (band, tiles) = queue.withLock { queue in
      let next = queue.requests[queue.head]
      queue.requests[queue.head].tiles = []
      queue.head += 1
      return next
    }
    if !progress.isCancelled {
      for stream in streams { stream.decodeAhead(forBand: band) }
    }
    pool.submit(contentsOf: tiles)
    let more = queue.withLock { queue in
      let more = queue.head < queue.requests.count
      if !more {
        queue.requests.removeAll(keepingCapacity: true)
        queue.head = 0
      }
      queue.running = more
      return more
    }
    if more { pool.submitUrgent { self.step() } }
    progress.finishSideJob()
  }
}
