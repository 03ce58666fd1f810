// PixelStorage.swift — the reference-counted, aligned allocation behind PixelBuffers.
//
// Large blocks (≥ `hugePageMinimumBytes`, Linux) are mapped on their own, aligned to 2 MiB and
// marked MADV_HUGEPAGE, so the first write to each 2 MiB faults once instead of 512 times. A
// render's fresh output buffer (18 MB for 3000 × 2000 RGB) otherwise took ~4400 page faults, all
// on the workers' first stores: ~12 % of an identity render's CPU in the kernel (perf record:
// clear_page, exc_page_fault, the LRU lock both workers' faults take).

#if canImport(Glibc)
import Glibc
#endif

/// One aligned block of pixel memory, shared by a buffer and the views cut from it.
///
/// Buffers never mutate storage that another buffer also references: `PixelBuffer` copies first
/// (copy-on-write), so a tile view can be handed to another thread safely.
public final class PixelStorage: @unchecked Sendable {
  /// Row starts and the block itself are aligned to this many bytes (a cache line; AVX-512 safe).
  public static let alignment = 64

  /// The first byte.
  public let baseAddress: UnsafeMutableRawPointer
  /// The size of the block in bytes.
  public let byteCount: Int
  private let deallocator: (@Sendable (UnsafeMutableRawPointer) -> Void)?

  /// Allocates `byteCount` bytes, zero-filled when `zeroed` is true.
  public init(byteCount: Int, zeroed: Bool = false) {
    self.byteCount = byteCount
    if byteCount >= PixelStorage.hugePageMinimumBytes, let (block, length) = PixelStorage.mapHugePageBlock(byteCount) {
      // Fresh anonymous pages read as zeros already.
      self.baseAddress = block
      self.deallocator = { PixelStorage.unmap($0, length: length) }
      return
    }
    self.baseAddress = UnsafeMutableRawPointer.allocate(
      byteCount: Swift.max(byteCount, 1), alignment: PixelStorage.alignment)
    if zeroed { baseAddress.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount) }
    self.deallocator = nil
  }

  /// Blocks at least this large are mapped with transparent huge pages (Linux; see the file's header).
  public static let hugePageMinimumBytes = 4 << 20
  /// The huge page size the blocks are aligned to.
  static let hugePageBytes = 2 << 20

  /// A fresh mapping of at least `byteCount` bytes starting on a 2 MiB boundary, advised to use
  /// huge pages, and its length; nil where that is not available (then malloc serves the block).
  static func mapHugePageBlock(_ byteCount: Int) -> (UnsafeMutableRawPointer, Int)? {
    #if os(Linux)
    let length = (byteCount + hugePageBytes - 1) / hugePageBytes * hugePageBytes
    guard let raw = mmap(nil, length + hugePageBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
      raw != MAP_FAILED
    else { return nil }
    let start = UInt(bitPattern: raw)
    let aligned = (start + UInt(hugePageBytes - 1)) & ~UInt(hugePageBytes - 1)
    let head = Int(aligned - start)
    if head > 0 { munmap(raw, head) }
    if hugePageBytes - head > 0 { munmap(UnsafeMutableRawPointer(bitPattern: aligned + UInt(length)), hugePageBytes - head) }
    let block = UnsafeMutableRawPointer(bitPattern: aligned)!
    _ = madvise(block, length, MADV_HUGEPAGE)
    return (block, length)
    #else
    return nil
    #endif
  }

  /// Returns a block from `mapHugePageBlock`.
  static func unmap(_ block: UnsafeMutableRawPointer, length: Int) {
    #if os(Linux)
    munmap(block, length)
    #endif
  }

  /// Wraps memory allocated elsewhere; `deallocator` runs when the last buffer lets go.
  public init(
    adopting pointer: UnsafeMutableRawPointer, byteCount: Int,
    deallocator: @escaping @Sendable (UnsafeMutableRawPointer) -> Void
  ) {
    self.baseAddress = pointer
    self.byteCount = byteCount
    self.deallocator = deallocator
  }

  deinit {
    if let deallocator { deallocator(baseAddress) } else { baseAddress.deallocate() }
  }
}
