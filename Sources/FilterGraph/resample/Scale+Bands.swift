// Scale+Bands.swift — `scale` taking a large input region a band of rows at a time
// (`BandedInputReader`): the output is the one Scale.swift defines, bit for bit; only the order in
// which the input arrives differs. A computed 16383² image fit to 100 pixels holds bands of about
// a million pixels, not the 4 GB region its one output tile reads. When the horizontal pass runs
// first (Scale+PassOrder.swift), each band is shrunk along its rows as it arrives.

import CKernels
import PixelBufferModule

extension ScaleOperation: BandedInputReader {
  /// `BandedInputReader`'s render: the vertical pass sums each band's rows into output rows as
  /// they arrive (`ResampleAxis.rows(band:)`, the same floats in the same order as the whole
  /// region's pass), so only one band of the input is held; the sums are then stored transposed
  /// for the horizontal pass. Nearest keeps the one row each output row copies, then picks.
  func render(
    into output: inout Tile, input: Rect, inputImageSize: Size, bandRows: Int, band: (Range<Int>) throws -> Tile
  ) throws {
    let (xAxis, yAxis) = axes(for: output.rect, input: input, inputImageSize: inputImageSize)
    let rowFloats = 4 * input.width, outH = output.rect.height
    if kernel == .nearest {
      var picked = try Tile(allocating: Rect(x: input.x, y: 0, width: input.width, height: outH))
      try Self.eachBand(of: input, bandRows: bandRows, band) { rows, src in
        picked.withMutablePixels { dst in
          for y in 0..<outH where rows.contains(input.y + yAxis.starts[y]) {
            dst[row: y].update(from: src[row: input.y + yAxis.starts[y] - rows.lowerBound], count: input.width)
          }
        }
      }
      picked.withPixels { src in
        output.withMutablePixels { dst in
          xAxis.starts.withUnsafeBufferPointer { xs in
            for y in 0..<dst.height {
              let s = src[row: y], d = dst[row: y]
              for x in 0..<dst.width { d[x] = s[xs[x]] }
            }
          }
        }
      }
      return
    }
    if runsHorizontalPassFirst(inputImageSize: inputImageSize) {
      // Each band's rows are shrunk as they arrive; the vertical pass then runs over them all.
      let outputFloats = 4 * output.rect.width
      let (passedStorage, passed) = try TileMemoryPool.scratch(Float.self, count: outputFloats * input.height)
      defer { withExtendedLifetime(passedStorage) {} }
      try Self.eachBand(of: input, bandRows: bandRows, band) { rows, src in
        Self.horizontalPass(
          xAxis, from: src.base.assumingMemoryBound(to: Float.self), rowFloats: src.rowBytes / MemoryLayout<Float>.stride,
          rows: rows.count, into: passed + (rows.lowerBound - input.y) * outputFloats)
      }
      Self.verticalPass(yAxis, from: passed, into: &output)
      return
    }
    let (sumsStorage, sums) = try TileMemoryPool.scratch(Float.self, count: rowFloats * outH)
    defer { withExtendedLifetime(sumsStorage) {} }
    try Self.eachBand(of: input, bandRows: bandRows, band) { rows, src in
      yAxis.rows(
        band: (rows.lowerBound - input.y)..<(rows.upperBound - input.y), from: src.base.assumingMemoryBound(to: Float.self),
        rowFloats: src.rowBytes / MemoryLayout<Float>.stride, count: rowFloats, into: sums, outputFloats: rowFloats,
        pixelFloats: 4)
    }
    try Self.resample(into: &output, inputWidth: input.width, xAxis, yAxis) { scratch, column in
      for y in 0..<outH {
        for p in 0..<input.width {
          (scratch + p * column + 4 * y).update(from: sums + y * rowFloats + 4 * p, count: 4)
        }
      }
    }
  }

  /// Asks `band` for the rows of `input` a band of at most `bandRows` at a time, top to bottom,
  /// and gives each band's rows and pixels to `body`.
  private static func eachBand(
    of input: Rect, bandRows: Int, _ band: (Range<Int>) throws -> Tile, _ body: (Range<Int>, UnsafePixels<SIMD4<Float>>) -> Void
  ) throws {
    for top in stride(from: input.y, to: input.maxY, by: bandRows) {
      let rows = top..<min(top + bandRows, input.maxY)
      try band(rows).withPixels { body(rows, $0) }
    }
  }
}

extension ResampleAxis {
  /// `rows(from:…)` for the band of rows `band` (relative to `origin`; `src` is its first row):
  /// the taps in the band continue the sums already in `dst` (`fg_resample_rows_band`). Bands
  /// passed in order that cover every tap give exactly `rows(from:…)`'s floats.
  func rows(
    band: Range<Int>, from src: UnsafePointer<Float>, rowFloats: Int, count: Int, into dst: UnsafeMutablePointer<Float>,
    outputFloats: Int = 4, pixelFloats: Int
  ) {
    starts.withUnsafeBufferPointer { starts in
      counts.withUnsafeBufferPointer { counts in
        weights.withUnsafeBufferPointer { weights in
          fg_resample_rows_band(
            src, rowFloats, count, starts.baseAddress!, counts.baseAddress!, weights.baseAddress!, stride, starts.count,
            dst, outputFloats, pixelFloats, band.lowerBound, band.upperBound)
        }
      }
    }
  }

}
