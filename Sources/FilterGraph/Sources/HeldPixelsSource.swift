// HeldPixelsSource.swift — pixels a render computed beforehand, read as a source.
//
// Definition: the pixels of `buffer` (premultiplied float RGBA, tagged linear sRGB or sRGB by the
// space they were computed in), described as the image they were computed from (`info`: its
// layout, component type, colour space and metadata), so everything above reads and writes as
// it would have without holding. Made by the renderer when it resolves a `HeldInputOperation`;
// not a recipe filter.

import PixelBufferModule

/// An image computed whole before the tiles, read from memory; see the file comment.
struct HeldPixelsSource: SourceOperation {
  /// The pixels.
  let buffer: PixelBuffer
  /// The image they are the pixels of.
  let info: ImageInfo
  /// What the pixels are: their space and the structural key of the node they were computed from.
  let identity: String

  static let table = OperationDescriptor(
    name: "held", category: .source, summary: "An intermediate image computed before the tiles (not a recipe filter).",
    inputCount: 0, parameters: [], example: "")

  var descriptor: OperationDescriptor { Self.table }
  var arguments: Arguments { Arguments([("size", .size(buffer.size))]) }
  var isResident: Bool { true }

  func outputInfo(inputs: [ImageInfo]) -> ImageInfo { info }

  func decodePixels() throws -> PixelBuffer? { buffer }
}
