// Scale+StoredRows.swift — `scale` reading a decoder's stored 8-bit rows (`StoredRowsReader`)
// instead of a float tile: the output is the one Scale.swift defines, bit for bit (the rows are
// converted as the tile loader converts them, and the sums run in the same order); only where the
// conversion happens differs — a strip of columns at a time, into a block that stays in cache.

import CKernels
import PixelBufferModule

extension ScaleOperation {
  /// `StoredRowsReader`'s render: the rows are converted into the working space (code / 255, or
  /// through the sRGB decoding table in linear light) a strip of columns at a time, into a block
  /// that stays in cache for the vertical pass, where `render(into:inputs:)` converts the whole
  /// region into a float tile first; the floats are the same (the conversions are the tile
  /// loader's, the sums run in the same order). Not for `.nearest` (`readsStoredRows`).
  func render(
    into output: inout Tile, rows: [UnsafePointer<UInt8>], columns: Range<Int>, channels: Int, input: Rect,
    inputImageSize: Size
  ) throws {
    let (xAxis, yAxis) = axes(for: output.rect, input: input, inputImageSize: inputImageSize)
    if runsHorizontalPassFirst(inputImageSize: inputImageSize) {
      try renderHorizontalPassFirst(into: &output, rows: rows, columns: columns, channels: channels, input: input, xAxis, yAxis)
      return
    }
    let strip = 64  // columns: 64 pixels × a few hundred rows of floats stays in the second-level cache
    let n = rows.count
    let (blockStorage, block) = try TileMemoryPool.scratch(SIMD4<Float>.self, count: strip * n + 2 * n)
    defer { withExtendedLifetime(blockStorage) {} }
    let table: [Float]? = linearLight ? SRGBTransfer.decodeTable8 : nil
    try rows.withUnsafeBufferPointer { rowPointers in
      try (table ?? []).withUnsafeBufferPointer { lut in
        let rowsBase = UnsafeRawPointer(rowPointers.baseAddress!).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
        /// Source columns [from, from + count) of every row into `dst`, rows `pixels` apart.
        func convert(_ from: Int, _ count: Int, into dst: UnsafeMutablePointer<SIMD4<Float>>, pixels: Int) {
          fg_codes8_block(
            rowsBase, n, from, count, Int32(channels), table == nil ? nil : lut.baseAddress,
            UnsafeMutableRawPointer(dst).assumingMemoryBound(to: Float.self), 4 * pixels)
        }
        // The first and last stored columns, for the region's columns beyond them.
        let first = block + strip * n, last = first + n
        if columns.lowerBound > 0 { convert(0, 1, into: first, pixels: 1) }
        if columns.upperBound < input.width { convert(columns.count - 1, 1, into: last, pixels: 1) }
        try Self.resample(into: &output, inputWidth: input.width, xAxis, yAxis) { scratch, column in
          for x in stride(from: 0, to: input.width, by: strip) {
            let width = min(strip, input.width - x)
            let lo = min(max(columns.lowerBound, x), x + width), hi = max(min(columns.upperBound, x + width), lo)
            if hi > lo { convert(lo - columns.lowerBound, hi - lo, into: block + (lo - x), pixels: strip) }
            for r in 0..<n where lo > x || hi < x + width {
              let b = block + r * strip
              if lo > x { b.update(repeating: first[r], count: lo - x) }
              if hi < x + width { (b + (hi - x)).update(repeating: last[r], count: x + width - hi) }
            }
            yAxis.rows(
              from: UnsafeRawPointer(block).assumingMemoryBound(to: Float.self), rowFloats: 4 * strip, count: 4 * width,
              into: scratch + x * column, pixelFloats: column)
          }
        }
      }
    }
  }

  /// Every kernel but `.nearest` (which copies pixels: nothing to convert) reads stored rows.
  var readsStoredRows: Bool { kernel != .nearest }
}
