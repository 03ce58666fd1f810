// ResampleAxisCache.swift — whole-axis resampling taps shared by the tiles of a render (Scale.swift's ResampleAxis).

import Foundation
import Locking

/// Whole-axis taps shared by the tiles of a render (a handful of entries; cleared when it grows).
enum ResampleAxisCache {
  private struct Key: Hashable {
    var inSize: Int, outSize: Int, count: Int, kernel: ResampleKernel
  }
  private static let axes = Locked<[Key: ResampleAxis]>([:])

  /// Every output 0 ..< count, tap starts absolute (origin 0).
  static func axis(inSize: Int, outSize: Int, count: Int, kernel: ResampleKernel) -> ResampleAxis {
    let key = Key(inSize: inSize, outSize: outSize, count: count, kernel: kernel)
    if let hit = axes.withLock({ $0[key] }) { return hit }
    let made = ResampleAxis(computing: 0..<max(count, 0), inSize: inSize, outSize: outSize, kernel: kernel, origin: 0)
    axes.withLock { axes in
      if axes.count >= 32 { axes.removeAll() }
      axes[key] = made
    }
    return made
  }
}
