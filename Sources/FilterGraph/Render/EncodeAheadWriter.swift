// EncodeAheadWriter.swift — an animation writer that encodes each frame on the renderer's worker
// pool while the frame loop decodes and renders the next one.
//
// `add(frame k)` waits until frame k−1's encode has finished (throwing its error, if any), then
// queues frame k's encode on the pool and returns. At most one frame is in flight, so the wrapped
// writer receives the frames one at a time and in order, exactly as from a serial loop, and memory
// grows by one rendered frame. `finish` waits for the last frame, then finishes the wrapped writer.
// The wrapped writers never use the pool themselves, so an encode job waits for nothing and any
// pool size works (with one thread, a frame's tiles queue behind the previous frame's encode).

import Foundation
import ImageCodecs
import Locking
import PixelBufferModule

/// An animation writer whose frames are encoded on a worker pool, one frame behind the caller.
final class EncodeAheadWriter: AnimationFrameWriter {
  private let wrapped: any AnimationFrameWriter
  private let pool: WorkerPool
  private let frameBytes: Int
  private let state = Monitor(State())

  private struct State {
    /// A frame's encode is queued or running.
    var isEncoding = false
    /// The first encode's error; every later call throws it.
    var failure: (any Error)?
  }

  /// Wraps `wrapped`, encoding on `pool` frames of `frameBytes` bytes.
  init(_ wrapped: any AnimationFrameWriter, pool: WorkerPool, frameBytes: Int) {
    self.wrapped = wrapped
    self.pool = pool
    self.frameBytes = frameBytes
  }

  /// The wrapped writer's state and the frame in flight.
  var stateBytes: Int { wrapped.stateBytes + frameBytes }

  func add(_ frame: PixelBuffer, delay: Int) throws {
    try waitForEncode()
    state.withLock { $0.isEncoding = true }
    let wrapped = wrapped, state = state
    pool.submit {
      var failure: (any Error)?
      do { try wrapped.add(frame, delay: delay) } catch { failure = error }
      state.update {
        $0.isEncoding = false
        if $0.failure == nil { $0.failure = failure }
      }
    }
  }

  /// Waits until no frame is being encoded; throws the first encode's error.
  func waitForEncode() throws {
    if let failure = state.withLock(waitingUntil: { !$0.isEncoding }, { $0.failure }) { throw failure }
  }

  func finish() throws -> Data? {
    try waitForEncode()
    return try wrapped.finish()
  }
}
