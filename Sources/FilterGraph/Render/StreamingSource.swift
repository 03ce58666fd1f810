// StreamingSource.swift — a source decoded in order, on demand, into a ring of rows.
//
// When every band of a render reads its source (of a codec that `streamsRows`: JPEG, PNG) within a moving window of rows (scaling,
// blurring, per-pixel filters, crops: anything that reads top to bottom, with overlap), the full
// decoded image is never needed. The renderer then decodes rows only as tiles ask for them and
// keeps just the window (libvips's "sequential" access). Which sources qualify is decided before
// rendering from the graph's own input regions (`Renderer.streamingWindow`), so a tile never asks
// for a row the ring has dropped. Everything else decodes fully, once, through the DecodeCache.
//
// Decoding is the one serial stage of such a render, so the renderer keeps it running ahead: when
// a band is launched, a high-priority job decodes the rows that band will read (`bandEnds`), in
// small chunks, while the other workers compute tiles of earlier bands from rows already decoded.
// Tiles check the decoded count without taking the decoder's lock, so they never wait behind a
// decode of rows they do not need.
//
// A source whose codec decodes regions (TIFF) may be streamed from the one rectangle the render
// reads (a crop): the decoder then produces that rectangle's rows, `origin` is its corner, and
// rows and columns are still asked for in the source's own coordinates.

import Foundation
import ImageCodecs
import PixelBufferModule
import Synchronization

final class StreamingSource: @unchecked Sendable {  // decoder, ring and `failure` only under `lock`; readers stay below the atomic `decoded`
  /// The rows kept: row `y` lives in ring row `y % capacity`.
  let capacity: Int
  /// The bytes of the ring.
  var windowBytes: Int { capacity * rowBytes }
  let format: PixelFormat
  let colorSpace: ColorSpace
  let height: Int
  /// Where the decoded rectangle starts in the source (zero when the whole source is decoded).
  let origin: Point
  private let decoder: any ImageRowDecoder
  private var ring: PixelBuffer
  private let base: UnsafeMutableRawPointer
  private let rowBytes: Int
  /// For each band of the render, the rows (of the decoded rectangle) it reads up to (see
  /// `Renderer.streamingWindow`).
  let bandEnds: [Int]
  /// Serialises the decoder (and `failure`).
  private let lock = NSLock()
  /// Rows `0..<decoded` have been produced; `decoded - capacity ..< decoded` are held. Written
  /// under `lock` after the rows are in the ring (release), read without it (acquire).
  private let decoded = Atomic<Int>(0)
  private var failure: Error?
  /// How many times a thread had to wait for the decoder: a tile whose rows were not decoded yet
  /// (it decodes them itself, or sleeps on a decode in progress), or a decode-ahead that found
  /// another decode in progress. Zero when the band scheduler's decode chain runs the decodes one
  /// at a time and queues each band's tiles once its rows are decoded.
  let stalls = Atomic<Int>(0)
  /// Rows decoded per call while holding the lock, so readers of earlier rows are never held up
  /// long and later rows become visible as soon as they exist.
  static let chunkRows = 16
  /// The largest row window taken from the tile pool (larger ones are allocated by the decoder).
  static let pooledWindowBytes = 16 << 20

  /// The source's name, for warnings.
  let name: String

  init(decoder: any ImageRowDecoder, capacity: Int, bandEnds: [Int] = [], origin: Point = Point(x: 0, y: 0), name: String = "image data") throws {
    self.bandEnds = bandEnds
    self.origin = origin
    self.name = name
    let size = decoder.outputSize
    self.decoder = decoder
    self.capacity = max(1, min(capacity, size.height))
    self.height = size.height
    self.format = decoder.outputFormat
    // The window comes from the tile pool when it is of an ordinary size: decoding into memory
    // already mapped saves the page faults and page clearing a fresh window costs every file of
    // a batch. A larger one is the decoder's own, whose failure to allocate is an error.
    let colorSpace = try decoder.makeBuffer(rows: 1).colorSpace
    let windowBytes = PixelBuffer.alignedRowBytes(width: size.width, format: format) * self.capacity
    var ring =
      windowBytes <= Self.pooledWindowBytes
      ? try TileMemoryPool.buffer(width: size.width, height: self.capacity, format: format, colorSpace: colorSpace, counted: false)
      : try decoder.makeBuffer(rows: self.capacity)
    self.colorSpace = colorSpace
    self.base = ring.withUnsafeMutableBaseAddress { p, _ in p }
    self.rowBytes = ring.rowBytes
    self.ring = ring
  }

  /// Makes rows `rows` (of the source) available, decoding up to its end if needed.
  func prepare(_ rows: Range<Int>) throws {
    let first = rows.lowerBound - origin.y
    let end = min(rows.upperBound - origin.y, height)
    let done = decoded.load(ordering: .acquiring)
    if done >= end {
      try checkHeld(first, decoded: done)
      return
    }
    stalls.add(1, ordering: .relaxed)
    lock.lock()
    defer { lock.unlock() }
    try decode(through: end)
    try checkHeld(first, decoded: decoded.load(ordering: .relaxed))
  }

  /// Decodes ahead up to row `end` (the end of band `band`'s reads); errors are kept for the
  /// tiles that read the rows, which report them.
  func decodeAhead(forBand band: Int) {
    guard band < bandEnds.count else { return }
    let end = min(bandEnds[band], height)
    if decoded.load(ordering: .acquiring) >= end { return }
    if !lock.try() {
      stalls.add(1, ordering: .relaxed)
      lock.lock()
    }
    defer { lock.unlock() }
    try? decode(through: end)
  }

  /// Decodes rows up to `end` in chunks, publishing each. Call with `lock` held.
  private func decode(through end: Int) throws {
    if let failure { throw failure }
    var done = decoded.load(ordering: .relaxed)
    do {
      while done < end {
        let slot = done % capacity
        let n = min(end - done, capacity - slot, Self.chunkRows)
        let got = try decoder.readRows(n, into: &ring, at: slot)
        done += got
        decoded.store(done, ordering: .releasing)
      }
    } catch {
      failure = error
      throw error
    }
  }

  private func checkHeld(_ first: Int, decoded: Int) throws {
    guard first >= decoded - capacity else {
      // The window analysis guarantees this never happens; fail loudly rather than read stale rows.
      throw CodecError(.invalidArgument, "internal: streamed row \(first) was already dropped (window \(capacity)).")
    }
  }

  /// The decoder's corrupt-data warnings so far, prefixed with the source's name.
  var warnings: [String] {
    lock.lock()
    defer { lock.unlock() }
    return decoder.warnings.map { "\(name): \($0)" }
  }

  /// The first byte of row `y` (prepared), column `x`, in the source's coordinates.
  @inline(__always)
  func row(_ y: Int, x: Int) -> UnsafeRawPointer {
    UnsafeRawPointer(base + ((y - origin.y) % capacity) * rowBytes + (x - origin.x) * format.bytesPerPixel)
  }
}
