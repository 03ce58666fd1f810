// PreparedRenderJob+Async.swift — `render` for async code (an image server): the calling task
// suspends while the job renders on one of the renderer's driver threads (Renderer+Async.swift),
// so no cooperative thread is blocked, and cancelling the task stops the render.

import Foundation
import Locking

extension PreparedRenderJob {
  /// Renders, encodes and delivers the image as `render(stop:written:)` does, suspending the
  /// calling task until it is done. Cancelling the task stops the render at its next tile
  /// (`RenderJobError(.output)` wrapping `CancellationError`); a file destination is then
  /// left as it was.
  public func render() async throws -> RenderResult {
    let cancelled = CancellationFlag()
    // The job is handed whole to the driver thread while the caller waits for it.
    let job = Locked(self)
    return try await withTaskCancellationHandler {
      try await renderer.onDriverThread { try job.withLock { try $0.render(stop: { cancelled.isSet }) } }
    } onCancel: {
      cancelled.set()
    }
  }
}
