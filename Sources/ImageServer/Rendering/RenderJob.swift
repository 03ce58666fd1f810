// RenderJob.swift — the one place the server meets the library's bytes-in/bytes-out pipeline:
// source bytes and the URL's options in, the encoded response out.
//
// `prepare` reads the source's header (refusing a source over the pixel limit before any decode)
// and builds the graph; nothing is decoded. The caller then asks admission for the render's
// memory estimate, and `encode` renders on the renderer's driver threads (never the event
// loop); cancelling the request's task stops it after the band being encoded.

import Foundation
import FilterGraph
import ImageCodecs

/// One request's render.
struct RenderJob {
  /// The graph to render.
  let image: Image
  /// The format written.
  let format: ImageFileFormat
  /// Encoder options and kept metadata.
  let writeOptions: WriteOptions
  /// The Renderer's estimate of the bytes the render holds.
  let estimatedBytes: Int

  /// Reads the header of `data` and builds the graph the options ask for.
  ///
  /// - Throws: 413 over `maxSourcePixels` (from the header), 422 for bytes that are not an
  ///   image, 400 for options the image cannot take, 422 for an output over `maxOutputPixels`.
  static func prepare(
    _ data: Data, options: ProcessingOptions, format choice: FormatChoice, configuration: ServerConfiguration,
    resources: ServerResources, renderer: Renderer
  ) throws -> RenderJob {
    let source: EncodedSource
    do {
      source = try EncodedSource(data: data, options: LoadOptions(limits: DecodeLimits(maxPixels: configuration.maxSourcePixels)))
    } catch let error as CodecError {
      throw ServerError.from(codec: error)
    }
    let image: Image
    do {
      image = try options.apply(to: Image(source: source), resources: resources)
    } catch let error as ServerError {
      throw error
    } catch {
      throw ServerError.badURL("The options cannot be applied: \(error)")
    }
    let size = image.size
    if size.width * size.height > configuration.maxOutputPixels {
      throw ServerError.unprocessable(
        "The result would be \(size.width)×\(size.height) pixels, over the limit of \(configuration.maxOutputPixels).")
    }
    let format = choice.resolved(source: source.header.fileFormat)
    var writeOptions = WriteOptions(format: format)
    if let quality = options.quality { writeOptions.formatOptions["quality"] = .integer(quality) }
    let strips = options.stripsMetadata ?? (configuration.keptMetadata == .colourProfileOnly)
    writeOptions.keptMetadata = strips ? .icc : .all
    return RenderJob(image: image, format: format, writeOptions: writeOptions, estimatedBytes: renderer.estimatedMemory(for: image))
  }

  /// Renders and encodes, off the event loop.
  ///
  /// - Throws: `ServerError` for failures the source caused (422), `CancellationError`.
  func encode(with renderer: Renderer) async throws -> Data {
    do {
      return try await renderer.encode(image, format: format, options: writeOptions)
    } catch let error as CodecError {
      throw ServerError.from(codec: error)
    }
  }
}
