// RequestRender.swift — where the server meets the library's one pipeline: a request's source
// bytes and options become a FilterGraph `RenderJob` (from `.data` to `.memory`), as `fgrun run`
// and batches build theirs.
//
// `prepareRender` reads the source's header (refusing a source over the pixel limit before any
// decode) and builds the graph; nothing is decoded. The caller then asks admission for the
// renderer's memory estimate of the prepared job, and `render` runs it on the renderer's driver
// threads (never the event loop); cancelling the request's task stops it at its next tile. Each step's failure becomes the HTTP status it deserves.

import FilterGraph
import Foundation
import ImageCodecs

extension ImageServer {
  /// Reads the header of `data` and builds the graph the options ask for, in the format `choice`
  /// resolves to.
  ///
  /// - Throws: 413 over `maxSourcePixels` (from the header), 422 for bytes that are not an
  ///   image, 400 for options the image cannot take, 422 for an output over `maxOutputPixels`.
  func prepareRender(_ data: Data, options: ProcessingOptions, format choice: FormatChoice) throws -> PreparedRenderJob {
    var writeOptions = WriteOptions()
    if let quality = options.quality { writeOptions.formatOptions["quality"] = .integer(quality) }
    let strips = options.stripsMetadata ?? (configuration.keptMetadata == .colorProfileOnly)
    writeOptions.keptMetadata = strips ? .icc : .all
    let job = RenderJob(
      input: .data(data), destination: .memory, options: writeOptions,
      loadOptions: LoadOptions(limits: DecodeLimits(maxPixels: configuration.maxSourcePixels))
    ) { [resources] in try options.apply(to: $0, resources: resources) }
    var prepared: PreparedRenderJob
    do {
      prepared = try job.prepare(on: renderer)
    } catch let error as RenderJobError {
      throw Self.serverError(error)
    }
    let size = prepared.image.size
    if size.width * size.height > configuration.maxOutputPixels {
      renderer.removeFromCache(prepared.source)
      throw ServerError.unprocessable(
        "The result would be \(size.width)×\(size.height) pixels, over the limit of \(configuration.maxOutputPixels).")
    }
    prepared.options.format = choice.resolved(source: prepared.inputFormat)
    return prepared
  }

  /// Renders and encodes `job` off the event loop. The source's decoded pixels then leave the
  /// renderer's cache, as a batch's do (no later request reads the same bytes; the watermark stays).
  ///
  /// - Throws: `ServerError` for failures the source caused (422) and memory the system refused
  ///   (503), `CancellationError`.
  func render(_ job: PreparedRenderJob) async throws -> RenderResult {
    defer { renderer.removeFromCache(job.source) }
    do {
      return try await job.render()
    } catch let error as RenderJobError {
      throw Self.serverError(error)
    }
  }

  /// The HTTP status a failed job step deserves.
  static func serverError(_ error: RenderJobError) -> Error {
    switch (error.stage, error.underlying) {
    case (_, let cancelled as CancellationError): return cancelled
    case (_, let server as ServerError): return server
    case (_, let limit as GraphLimitError): return ServerError.unprocessable("The request asks too much: \(limit.message)")
    case (_, let memory as PixelAllocationError):
      // The server's memory (an address-space limit, the system's), not the request, is at fault.
      return ServerError(503, "The server has not enough memory for this image now (\(memory.amount) could not be allocated). Retry later.", retryAfter: 5)
    case (_, let codec as CodecError) where error.stage != .recipe: return ServerError.from(codec: codec)
    case (.options, let other): return ServerError.badURL("The output format cannot be written: \(other)")
    case (.recipe, let other): return ServerError.badURL("The options cannot be applied: \(other)")
    case (.input, let other), (.output, let other): return ServerError.unprocessable("The image could not be produced: \(other)")
    }
  }
}
