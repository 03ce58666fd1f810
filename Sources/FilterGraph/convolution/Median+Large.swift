// Median+Large.swift — MedianOperation (Median.swift, whose header defines the output pixel) for
// radii of 3 and more: Huang's sliding histogram on 8-bit codes, else gathering and quickselect.

import PixelBufferModule

/// Huang's sliding histogram over 8-bit codes, r ≥ 3 (see the file comment).
enum MedianHistogram {
  /// The tile's values as 8-bit codes, four per pixel, rows packed, and the storage that owns
  /// them (keep it alive while reading them); nil unless every value is exactly
  /// `TileConversion.unitTable8[code]` for its code.
  ///
  /// - Throws: `PixelAllocationError` when the system refuses the codes' memory.
  static func codes(of tile: Tile) throws(PixelAllocationError) -> (PixelStorage, UnsafePointer<UInt8>)? {
    let w = tile.rect.width, h = tile.rect.height
    let table = TileConversion.unitTable8
    let (storage, out) = try TileMemoryPool.scratch(UInt8.self, count: 4 * w * h)
    let exact = tile.withPixels { px in
      for y in 0..<h {
        let row = px[row: y]
        for x in 0..<w {
          let v = row[x]
          for c in 0..<4 {
            let k = (v[c] * 255).rounded()
            guard k >= 0, k <= 255, table[Int(k)] == v[c] else { return false }
            out[4 * (y * w + x) + c] = UInt8(k)
          }
        }
      }
      return true
    }
    return exact ? (storage, UnsafePointer(out)) : nil
  }

  /// Computes `output` from the codes of an input `width` pixels wide that covers it widened by
  /// `radius` on every side.
  static func run(_ codes: UnsafePointer<UInt8>, width: Int, radius r: Int, into output: inout Tile) {
    let side = 2 * r + 1
    let k = Int32((side * side - 1) / 2)
    let w = output.rect.width, h = output.rect.height
    let table = TileConversion.unitTable8
    var histogram = [Int32](repeating: 0, count: 4 * 256)
    histogram.withUnsafeMutableBufferPointer { hist in
      output.withMutablePixels { dst in
        for y in 0..<h {
          // The window of x = 0, and its median m with `below` = how many values are < m.
          hist.update(repeating: 0)
          for j in y..<(y + side) {
            for i in 0..<side {
              let p = 4 * (j * width + i)
              for c in 0..<4 { hist[c * 256 + Int(codes[p + c])] += 1 }
            }
          }
          var median = SIMD4<Int32>(), below = SIMD4<Int32>()
          for c in 0..<4 {
            var m = 0, count: Int32 = 0
            while count + hist[c * 256 + m] <= k {
              count += hist[c * 256 + m]
              m += 1
            }
            median[c] = Int32(m)
            below[c] = count
          }
          let out = dst[row: y]
          for x in 0..<w {
            if x > 0 {
              // Column x − 1 leaves, column x + 2r enters.
              for j in y..<(y + side) {
                let leave = 4 * (j * width + x - 1), enter = 4 * (j * width + x + 2 * r)
                for c in 0..<4 {
                  let a = Int32(codes[leave + c]), b = Int32(codes[enter + c])
                  hist[c * 256 + Int(a)] -= 1
                  hist[c * 256 + Int(b)] += 1
                  if a < median[c] { below[c] -= 1 }
                  if b < median[c] { below[c] += 1 }
                }
              }
              for c in 0..<4 {
                var m = Int(median[c]), count = below[c]
                if count > k {
                  repeat {
                    m -= 1
                    count -= hist[c * 256 + m]
                  } while count > k
                } else {
                  while count + hist[c * 256 + m] <= k {
                    count += hist[c * 256 + m]
                    m += 1
                  }
                }
                median[c] = Int32(m)
                below[c] = count
              }
            }
            out[x] = SIMD4(table[Int(median.x)], table[Int(median.y)], table[Int(median.z)], table[Int(median.w)])
          }
        }
      }
    }
  }
}

/// Gathering and quickselect, r ≥ 3 on values that are not all 8-bit codes (see the file comment).
enum MedianSelection {
  /// Computes `output` from `input`, which covers it widened by `radius` on every side.
  ///
  /// - Throws: `PixelAllocationError` when the system refuses the window's scratch memory.
  static func run(_ input: Tile, radius r: Int, into output: inout Tile) throws(PixelAllocationError) {
    let side = 2 * r + 1, n = side * side, k = (n - 1) / 2
    let w = output.rect.width, h = output.rect.height
    let (storage, values) = try TileMemoryPool.scratch(Float.self, count: 4 * n)
    defer { withExtendedLifetime(storage) {} }
    input.withPixels { src in
      output.withMutablePixels { dst in
        for y in 0..<h {
          for x in 0..<w {
            var t = 0
            for j in 0..<side {
              let row = src[row: y + j] + x
              for i in 0..<side {
                let v = row[i]
                values[t] = v.x
                values[n + t] = v.y
                values[2 * n + t] = v.z
                values[3 * n + t] = v.w
                t += 1
              }
            }
            dst[row: y][x] = SIMD4(
              select(values, count: n, rank: k), select(values + n, count: n, rank: k),
              select(values + 2 * n, count: n, rank: k), select(values + 3 * n, count: n, rank: k))
          }
        }
      }
    }
  }

  /// The (`rank` + 1)-th smallest of `count` values, reordering them (C. A. R. Hoare, "Algorithm 65:
  /// FIND", CACM 4(7), 1961).
  static func select(_ a: UnsafeMutablePointer<Float>, count: Int, rank: Int) -> Float {
    var lo = 0, hi = count - 1
    while lo < hi {
      let pivot = a[lo + (hi - lo) / 2]
      var i = lo, j = hi
      while i <= j {
        while a[i] < pivot { i += 1 }
        while a[j] > pivot { j -= 1 }
        if i <= j {
          (a[i], a[j]) = (a[j], a[i])
          i += 1
          j -= 1
        }
      }
      if rank <= j {
        hi = j
      } else if rank >= i {
        lo = i
      } else {
        return a[rank]
      }
    }
    return a[rank]
  }
}
