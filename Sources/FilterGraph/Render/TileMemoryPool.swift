// TileMemoryPool.swift — recycles the memory of working tiles.
//
// Every tile evaluation needs float RGBA scratch (a 512 × 64 tile is 512 KiB). Allocating it fresh
// each time goes through mmap/munmap for blocks this large, so every tile paid page faults and the
// kernel's page clearing. Tiles now take their blocks from this pool and give them back when the
// last buffer lets go; a block is reused by the next tile of the same size class, already mapped.
// The pool keeps a bounded number of bytes; blocks beyond that are freed as before.

import Foundation
import PixelBufferModule

enum TileMemoryPool {
  /// Bytes kept idle at most (enough for a few bands of tiles and their intermediates).
  static let idleLimit = 32 << 20
  /// Blocks smaller than this are left to malloc (it recycles them well already).
  static let minimumPooled = 32 << 10
  /// Blocks larger than this are not pooled (none: left to malloc, a downscale's multi-MB input
  /// tiles fragmented its arenas and raised the peak; measured on W1).
  static let maximumPooled = Int.max

  private static let lock = NSLock()
  nonisolated(unsafe) private static var free: [Int: [UnsafeMutableRawPointer]] = [:]
  nonisolated(unsafe) private static var idleBytes = 0

  /// The size class of `bytes`: the next multiple of 1/8 of its power of two (≤ 12.5 % waste).
  @inline(__always)
  static func sizeClass(_ bytes: Int) -> Int {
    let top = Int.bitWidth - (bytes - 1).leadingZeroBitCount  // 2^top ≥ bytes
    let step = max((1 << top) >> 3, PixelStorage.alignment)
    return (bytes + step - 1) / step * step
  }

  /// Storage of at least `byteCount` bytes whose block returns to the pool when released.
  static func storage(byteCount: Int) -> PixelStorage {
    guard byteCount >= minimumPooled, byteCount <= maximumPooled else { return PixelStorage(byteCount: byteCount) }
    var size = sizeClass(byteCount)
    lock.lock()
    // The smallest idle block of this class or up to 1.5× larger: edge tiles and the last column
    // come in many slightly different sizes, and one idle block should serve them all.
    var best: Int?
    for (candidate, blocks) in free where !blocks.isEmpty && candidate >= size && candidate <= size + size / 2 {
      if best.map({ candidate < $0 }) ?? true { best = candidate }
    }
    var reused: UnsafeMutableRawPointer?
    if let best {
      size = best
      reused = free[best]!.popLast()
      idleBytes -= best
    }
    lock.unlock()
    let block = reused ?? UnsafeMutableRawPointer.allocate(byteCount: size, alignment: PixelStorage.alignment)
    let blockSize = size
    return PixelStorage(adopting: block, byteCount: blockSize) { pointer in TileMemoryPool.give(pointer, size: blockSize) }
  }

  private static func give(_ pointer: UnsafeMutableRawPointer, size: Int) {
    lock.lock()
    if idleBytes + size <= idleLimit {
      free[size, default: []].append(pointer)
      idleBytes += size
      lock.unlock()
    } else {
      lock.unlock()
      pointer.deallocate()
    }
  }

  /// A buffer of `format` over pooled memory (the renderer's band buffers).
  static func buffer(width: Int, height: Int, format: PixelFormat, colorSpace: ColorSpace) -> PixelBuffer {
    let rowBytes = PixelBuffer.alignedRowBytes(width: width, format: format)
    return PixelBuffer(
      storage: storage(byteCount: rowBytes * height), width: width, height: height, rowBytes: rowBytes,
      format: format, colorSpace: colorSpace)
  }

  /// Frees every idle block (tests and long-lived processes between large jobs).
  static func drain() {
    lock.lock()
    let blocks = free.values.flatMap { $0 }
    free.removeAll()
    idleBytes = 0
    lock.unlock()
    for b in blocks { b.deallocate() }
  }

  /// Bytes held idle now.
  static var idle: Int {
    lock.lock()
    defer { lock.unlock() }
    return idleBytes
  }
}

extension TileMemoryPool {
  /// Uninitialised scratch room for `count` values of `T` from the pool (a filter's intermediate
  /// rows), and the storage that owns it: keep the storage alive while using the pointer
  /// (`defer { withExtendedLifetime(storage) {} }`). Fresh `allocate` calls of this size went to
  /// mmap/munmap on every tile, so each tile paid page faults and page clearing, and concurrent
  /// workers contended for the process's address-space lock.
  static func scratch<T>(_ type: T.Type, count: Int) -> (PixelStorage, UnsafeMutablePointer<T>) {
    let n = max(count, 1)
    let storage = storage(byteCount: n * MemoryLayout<T>.stride)
    return (storage, storage.baseAddress.bindMemory(to: T.self, capacity: n))
  }
}
