// HDRGainMapDecoder.swift — the gain map of an HDR (PQ/HLG) image read row by row: each strip of
// the HDR signal its source decodes becomes the same rows of the 8-bit RGB map that restores the
// HDR light from the tone-mapped SDR rendition (`HDRToneMapping.gainMap(ofSignal:)`, HDRGainMap.swift).
import Foundation
import PixelBufferModule

/// A row decoder of the gain map of `source`'s HDR signal.
final class HDRGainMapDecoder: ImageRowDecoder {
  private let source: any ImageRowDecoder
  private let signal: HDRSignal
  private var scratch: PixelBuffer?

  /// The map of `source`, whose rows are the HDR signal `signal` (8- or 16-bit RGB or RGBA).
  init(_ source: any ImageRowDecoder, signal: HDRSignal) {
    self.source = source
    self.signal = signal
  }

  var outputSize: Size { source.outputSize }
  var outputFormat: PixelFormat { PixelFormat(layout: .rgb, component: .uint8) }
  var warnings: [String] { source.warnings }

  /// An untagged (sRGB) buffer: the map's samples are encoded gains, not colours.
  func makeBuffer(rows: Int?) throws -> PixelBuffer {
    try PixelBuffer.forDecoding(
      width: outputSize.width, height: outputSize.height, rows: rows, format: outputFormat, colorSpace: .sRGB, metadata: ImageMetadata())
  }

  func readRows(_ count: Int, into buffer: inout PixelBuffer, at destinationRow: Int) throws -> Int {
    guard buffer.width == outputSize.width, buffer.format == outputFormat else {
      throw CodecError(
        .invalidArgument,
        "The buffer for gain-map rows is \(buffer.width) pixels wide in \(buffer.format); \(outputSize.width) pixels in \(outputFormat) are needed.")
    }
    if scratch == nil || scratch!.height < count { scratch = try source.makeBuffer(rows: count) }
    let n = try source.readRows(count, into: &scratch!, at: 0)
    guard n > 0 else { return 0 }
    let strip = n == scratch!.height ? scratch! : scratch!.cropped(to: Rect(x: 0, y: 0, width: scratch!.width, height: n))
    HDRToneMapping.gainMap(ofSignal: strip, into: &buffer, at: destinationRow, hdrSignal: signal)
    return n
  }
}
