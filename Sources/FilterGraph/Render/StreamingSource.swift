// StreamingSource.swift — a JPEG source decoded in order, on demand, into a ring of rows.
//
// When every band of a render reads its JPEG source within a moving window of rows (scaling,
// blurring, per-pixel filters, crops: anything that reads top to bottom, with overlap), the full
// decoded image is never needed. The renderer then decodes rows only as tiles ask for them and
// keeps just the window (libvips's "sequential" access). Which sources qualify is decided before
// rendering from the graph's own input regions (`Renderer.streamingWindow`), so a tile never asks
// for a row the ring has dropped. Everything else decodes fully, once, through the DecodeCache.

import Foundation
import ImageCodecs
import PixelBufferModule

final class StreamingSource: @unchecked Sendable {
  /// The rows kept: row `y` lives in ring row `y % capacity`.
  let capacity: Int
  let format: PixelFormat
  let colorSpace: ColorSpace
  let height: Int
  private let decoder: JPEGDecoder
  private var ring: PixelBuffer
  private let base: UnsafeMutableRawPointer
  private let rowBytes: Int
  private let lock = NSLock()
  /// Rows `0..<decoded` have been produced; `decoded - capacity ..< decoded` are held.
  private var decoded = 0
  private var failure: Error?

  init(decoder: JPEGDecoder, capacity: Int) {
    let size = decoder.scaledSize!
    self.decoder = decoder
    self.capacity = max(1, min(capacity, size.height))
    self.height = size.height
    self.format = decoder.outputFormat
    self.colorSpace = decoder.outputColorSpace
    var ring = decoder.makeBuffer(rows: self.capacity)
    self.base = ring.withUnsafeMutableBaseAddress { p, _ in p }
    self.rowBytes = ring.rowBytes
    self.ring = ring
  }

  /// Makes rows `rows` available, decoding up to its end if needed.
  func prepare(_ rows: Range<Int>) throws {
    lock.lock()
    defer { lock.unlock() }
    if let failure { throw failure }
    guard rows.lowerBound >= decoded - capacity else {
      // The window analysis guarantees this never happens; fail loudly rather than read stale rows.
      throw CodecError(.invalidArgument, "internal: streamed JPEG row \(rows.lowerBound) was already dropped (window \(capacity)).")
    }
    do {
      let end = min(rows.upperBound, height)
      while decoded < end {
        let slot = decoded % capacity
        let n = min(end - decoded, capacity - slot)
        let got = try decoder.readRows(n, into: &ring, at: slot)
        decoded += got
      }
    } catch {
      failure = error
      throw error
    }
  }

  /// The first byte of row `y` (prepared), column `x`.
  @inline(__always)
  func row(_ y: Int, x: Int) -> UnsafeRawPointer {
    UnsafeRawPointer(base + (y % capacity) * rowBytes + x * format.bytesPerPixel)
  }
}
