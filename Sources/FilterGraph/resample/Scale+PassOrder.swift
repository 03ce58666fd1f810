// Scale+PassOrder.swift — `scale` with its horizontal pass first, for the tiles where that costs less.
//
// Output: the one Scale.swift defines, out(x, y) = Σᵢ Σⱼ wx(x, i)·wy(y, j)·in(i, j) with each
// axis's normalised weights; the two one-axis passes commute in exact arithmetic, so only the
// float rounding (a few units in the last place) differs from the vertical-first order.
//
// Cost: for an output tile of w × h read from an input region of W × H, the vertical pass first
// computes W × h intermediate pixels, the horizontal pass first H × w. When the vertical axis
// enlarges (H ≪ h) and the horizontal axis shrinks (w ≪ W), vertical first computes the full-width
// enlarged rows before shrinking them: `scale size=1x65535` of a 65535 × 1 image computed 65535 × 64
// pixels per 1 × 64 tile (4 G in all, over a minute) where the horizontal pass first computes a
// few. So exactly then the horizontal pass runs first; in every other case (both axes shrink, both
// enlarge, or one keeps its size) the vertical pass runs first, as it always did, and the output is
// unchanged bit for bit. The choice depends on the sizes only, never on the tile, so every tile of
// an image is computed in the same order and tiles agree bit for bit.

import CKernels
import PixelBufferModule

extension ScaleOperation {
  /// True when the horizontal pass runs first for an input of `inSize`: the vertical axis
  /// enlarges and the horizontal axis shrinks (see the file comment).
  func runsHorizontalPassFirst(inputImageSize inSize: Size) -> Bool {
    let (xIn, xOut) = ratio(inSize.width, targetSize.width, full: \.width)
    let (yIn, yOut) = ratio(inSize.height, targetSize.height, full: \.height)
    return kernel != .nearest && xIn > xOut && yIn < yOut
  }

  /// The horizontal pass over `rows` rows of the input region (row r at `src + r·rowFloats`, its
  /// pixels 4 floats apart from the region's first column), into `dst`: row r there holds the
  /// output's `xAxis` pixels of input row r, contiguously.
  static func horizontalPass(
    _ xAxis: ResampleAxis, from src: UnsafePointer<Float>, rowFloats: Int, rows: Int, into dst: UnsafeMutablePointer<Float>
  ) {
    let outputFloats = 4 * xAxis.starts.count
    for r in 0..<rows {
      // One input row as a line of one-pixel "rows" 4 floats apart: each output pixel is the
      // weighted sum of its taps' pixels.
      xAxis.rows(from: src + r * rowFloats, rowFloats: 4, count: 4, into: dst + r * outputFloats, outputFloats: 4, pixelFloats: 4)
    }
  }

  /// The vertical pass over the horizontal pass's rows (`rows`, each `4 · output width` floats)
  /// into `output`, then alpha clipped as `resample` clips it.
  static func verticalPass(_ yAxis: ResampleAxis, from rows: UnsafePointer<Float>, into output: inout Tile) {
    let rowFloats = 4 * output.rect.width
    output.withMutablePixels { dst in
      yAxis.rows(
        from: rows, rowFloats: rowFloats, count: rowFloats, into: dst.base.assumingMemoryBound(to: Float.self),
        outputFloats: dst.rowBytes / MemoryLayout<Float>.stride, pixelFloats: 4)
    }
    clipAlpha(&output)
  }

  /// Horizontal pass first over a float tile of the whole input region.
  func renderHorizontalPassFirst(into output: inout Tile, input: Tile, _ xAxis: ResampleAxis, _ yAxis: ResampleAxis) throws {
    let (rowsStorage, rows) = try TileMemoryPool.scratch(Float.self, count: 4 * output.rect.width * input.rect.height)
    defer { withExtendedLifetime(rowsStorage) {} }
    input.withPixels { src in
      Self.horizontalPass(
        xAxis, from: src.base.assumingMemoryBound(to: Float.self), rowFloats: src.rowBytes / MemoryLayout<Float>.stride,
        rows: input.rect.height, into: rows)
    }
    Self.verticalPass(yAxis, from: rows, into: &output)
  }

  /// Horizontal pass first over stored 8-bit rows (`StoredRowsReader`): each row is converted as
  /// the tile loader converts it (`fg_codes8_block`), its columns beyond `columns` repeating the
  /// nearest stored one, then passed.
  func renderHorizontalPassFirst(
    into output: inout Tile, rows: [UnsafePointer<UInt8>], columns: Range<Int>, channels: Int, input: Rect,
    _ xAxis: ResampleAxis, _ yAxis: ResampleAxis
  ) throws {
    let width = input.width
    let (lineStorage, line) = try TileMemoryPool.scratch(SIMD4<Float>.self, count: width)
    let (rowsStorage, passed) = try TileMemoryPool.scratch(Float.self, count: 4 * output.rect.width * rows.count)
    defer { withExtendedLifetime((lineStorage, rowsStorage)) {} }
    let table: [Float]? = linearLight ? SRGBTransfer.decodeTable8 : nil
    let lineFloats = UnsafeMutableRawPointer(line).assumingMemoryBound(to: Float.self)
    (table ?? []).withUnsafeBufferPointer { lut in
      for (r, row) in rows.enumerated() {
        withUnsafePointer(to: Optional(row)) { pointer in
          fg_codes8_block(
            pointer, 1, 0, columns.count, Int32(channels), table == nil ? nil : lut.baseAddress,
            lineFloats + 4 * columns.lowerBound, 4 * width)
        }
        if columns.lowerBound > 0 { line.update(repeating: line[columns.lowerBound], count: columns.lowerBound) }
        if columns.upperBound < width {
          (line + columns.upperBound).update(repeating: line[columns.upperBound - 1], count: width - columns.upperBound)
        }
        Self.horizontalPass(xAxis, from: lineFloats, rowFloats: 4 * width, rows: 1, into: passed + r * 4 * output.rect.width)
      }
    }
    Self.verticalPass(yAxis, from: passed, into: &output)
  }

  /// Clips ringing of alpha to 0…1 (colour 0 where alpha is 0). Colours are not clipped: the
  /// working space is extended range (a wide-gamut source's colours lie outside 0…1) and the
  /// store clips at the end.
  static func clipAlpha(_ output: inout Tile) {
    output.withMutablePixels { dst in
      for y in 0..<dst.height {
        let d = dst[row: y]
        for x in 0..<dst.width {
          let v = d[x]
          let a = min(max(v.w, 0), 1)
          d[x] = a > 0 ? SIMD4(v.x, v.y, v.z, a) : .zero
        }
      }
    }
  }
}
