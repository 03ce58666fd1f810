// TileMemoryPool.swift — recycles the memory of working tiles.
//
// Every tile evaluation needs float RGBA scratch (a 512 × 64 tile is 512 KiB). Allocated fresh,
// blocks this large go through mmap/munmap, so every tile would pay page faults and the kernel's
// page clearing. Tiles take their blocks from this pool and give them back when the last buffer
// lets go; a block is reused by the next tile of the same size class, already mapped. The pool
// keeps a bounded number of bytes idle; blocks beyond that are freed. Large blocks are pooled
// too: left to malloc, a downscale's multi-MB input tiles fragmented its arenas and raised the
// peak (measured on W1).
//
// Blocks of `mappedMinimum` (1 MiB) or more are mapped from the system (mmap) and unmapped when
// the pool lets them go, never handed to malloc: glibc raises its mmap threshold to the largest
// mapped block freed (up to 32 MiB), and from then on serves blocks that large from its
// per-thread arenas, which keep them once freed. A reduction streaming a large image in bands
// lets go of a few tile-sized blocks per band, more than the idle limit keeps, on whichever
// worker ran the band: the 260 KB 16383² PNG blurred and fit to 256 peaked at 716 MB (release)
// for about 100 MB of tiles in use, and a 4096² one at 484 MB for 61 MB (debug). Mapped, what
// the pool holds from the system is exactly its blocks in use and idle. (fgrun's batches and
// server fix glibc's threshold at 1 MiB for the same reason; MallocSettings.swift.)
//
// A block the system refuses (an address-space limit, an overcommit refusal) is asked for once
// more after the idle blocks are freed, then thrown as `PixelAllocationError`: a tile the renderer
// makes, and a filter's scratch rows (whose size follows the tile's width and the filter's reach),
// fail the render with a sentence, not an abort.
//
// The pool also counts the blocks in use (by the size class asked for) and the most in use at
// once: the renderer's own accounting of its working tiles, which `Renderer.estimatedMemory`
// bounds (tested in MemoryEstimateTests).

import Foundation
import Locking

#if canImport(Glibc)
  import Glibc
#endif
import PixelBufferModule

enum TileMemoryPool {
  /// Bytes kept idle at most (enough for a few bands of tiles and their intermediates).
  static let idleLimit = 32 << 20
  /// Blocks smaller than this are left to malloc (it recycles them well already).
  static let minimumPooled = 32 << 10
  /// Pooled blocks of this size or more are mapped and unmapped whole (see the file comment).
  static let mappedMinimum = 1 << 20

  /// Idle blocks by size class, and their total bytes; the bytes of blocks in use.
  private struct Idle {
    var free: [Int: [UnsafeMutableRawPointer]] = [:]
    var bytes = 0
    var inUse = 0
    var peakInUse = 0
  }
  private static let idle = Locked(Idle())

  /// The size class of `bytes`: the next multiple of 1/8 of its power of two (≤ 12.5 % waste).
  @inline(__always)
  static func sizeClass(_ bytes: Int) -> Int {
    let top = Int.bitWidth - (bytes - 1).leadingZeroBitCount  // 2^top ≥ bytes
    let step = max((1 << top) >> 3, PixelStorage.alignment)
    return (bytes + step - 1) / step * step
  }

  /// Storage of at least `byteCount` bytes whose block returns to the pool when released;
  /// `counted: false` leaves it out of `bytesInUse` (memory the renderer accounts for elsewhere).
  ///
  /// - Throws: `PixelAllocationError` when the system refuses the block, even with no idle block held.
  static func storage(byteCount: Int, counted isCounted: Bool = true) throws(PixelAllocationError) -> PixelStorage {
    guard byteCount >= minimumPooled else { return try PixelStorage(allocating: byteCount) }
    let counted = isCounted ? sizeClass(byteCount) : 0
    var size = sizeClass(byteCount)
    // The smallest idle block of this class or up to 1.5× larger: edge tiles and the last column
    // come in many slightly different sizes, and one idle block should serve them all.
    let reused: UnsafeMutableRawPointer? = idle.withLock { idle in
      idle.inUse += counted
      idle.peakInUse = max(idle.peakInUse, idle.inUse)
      var best: Int?
      for (candidate, blocks) in idle.free where !blocks.isEmpty && candidate >= size && candidate <= size + size / 2 {
        if best.map({ candidate < $0 }) ?? true { best = candidate }
      }
      guard let best else { return nil }
      size = best
      idle.bytes -= best
      return idle.free[best]!.popLast()
    }
    guard let block = reused ?? allocate(size) ?? (releaseIdle() ? allocate(size) : nil) else {
      idle.withLock { $0.inUse -= counted }
      throw PixelAllocationError(byteCount: size)
    }
    let blockSize = size
    return PixelStorage(adopting: block, byteCount: blockSize) { pointer in
      TileMemoryPool.give(pointer, size: blockSize, counted: counted)
    }
  }

  private static func give(_ pointer: UnsafeMutableRawPointer, size: Int, counted: Int) {
    let kept = idle.withLock { idle in
      idle.inUse -= counted
      guard idle.bytes + size <= idleLimit else { return false }
      idle.free[size, default: []].append(pointer)
      idle.bytes += size
      return true
    }
    if !kept { release(pointer, size: size) }
  }

  /// A fresh block of `size` bytes (mapped from `mappedMinimum` on), or nil when the system refuses it.
  private static func allocate(_ size: Int) -> UnsafeMutableRawPointer? {
    if size >= mappedMinimum {
      let block = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
      return block == MAP_FAILED ? nil : block
    }
    var block: UnsafeMutableRawPointer?
    return posix_memalign(&block, PixelStorage.alignment, size) == 0 ? block : nil
  }

  /// Returns a block `allocate(size)` gave to the system.
  private static func release(_ pointer: UnsafeMutableRawPointer, size: Int) {
    if size >= mappedMinimum { munmap(pointer, size) } else { free(pointer) }
  }

  /// Frees every idle block; true when there were any.
  private static func releaseIdle() -> Bool {
    let blocks = idle.withLock { idle in
      defer { (idle.free, idle.bytes) = ([:], 0) }
      return idle.free.flatMap { size, blocks in blocks.map { (pointer: $0, size: size) } }
    }
    blocks.forEach { release($0.pointer, size: $0.size) }
    return !blocks.isEmpty
  }

  /// Bytes of pooled blocks in use now, each counted by the size class asked for (a block reused
  /// from a larger idle one counts as asked; the idle blocks are bounded by `idleLimit`).
  static var bytesInUse: Int { idle.withLock { $0.inUse } }

  /// The most `bytesInUse` since the last `resetPeak()` (or the start).
  static var peakBytesInUse: Int { idle.withLock { $0.peakInUse } }

  /// Starts a new peak from the bytes in use now.
  static func resetPeak() { idle.withLock { $0.peakInUse = $0.inUse } }

  /// A buffer of `format` over pooled memory (the renderer's band buffers; with `counted: false`,
  /// a streamed source's row window, which the renderer counts as such).
  static func buffer(
    width: Int, height: Int, format: PixelFormat, colorSpace: ColorSpace, counted: Bool = true
  ) throws(PixelAllocationError) -> PixelBuffer {
    let rowBytes = PixelBuffer.alignedRowBytes(width: width, format: format)
    return PixelBuffer(
      storage: try storage(byteCount: rowBytes * height, counted: counted), width: width, height: height, rowBytes: rowBytes,
      format: format, colorSpace: colorSpace)
  }
}

extension TileMemoryPool {
  /// Uninitialised scratch room for `count` values of `T` from the pool (a filter's intermediate
  /// rows), and the storage that owns it: keep the storage alive while using the pointer
  /// (`defer { withExtendedLifetime(storage) {} }`). Fresh `allocate` calls of this size would go
  /// to mmap/munmap on every tile: page faults, page clearing, and concurrent workers contending
  /// for the process's address-space lock.
  ///
  /// - Throws: `PixelAllocationError` when the system refuses the memory (or its size overflows).
  static func scratch<T>(_ type: T.Type, count: Int) throws(PixelAllocationError) -> (PixelStorage, UnsafeMutablePointer<T>) {
    let n = max(count, 1)
    let (byteCount, overflow) = n.multipliedReportingOverflow(by: MemoryLayout<T>.stride)
    if overflow { throw PixelAllocationError(byteCount: .max) }
    let storage = try storage(byteCount: byteCount)
    return (storage, storage.baseAddress.bindMemory(to: T.self, capacity: n))
  }
}
