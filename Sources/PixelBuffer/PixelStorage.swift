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
import Synchronization

/// One aligned block of pixel memory, shared by a buffer and the views cut from it.
///
/// Buffers never mutate storage that another buffer also references: `PixelBuffer` copies first
/// (copy-on-write), so a tile view can be handed to another thread safely.
public final class PixelStorage: @unchecked Sendable {  // raw memory, mutated only through a uniquely held buffer or disjoint tiles
  /// Row starts and the block itself are aligned to this many bytes (a cache line; AVX-512 safe).
  public static let alignment = 64

  /// The first byte.
  public let baseAddress: UnsafeMutableRawPointer
  /// The size of the block in bytes.
  public let byteCount: Int
  private let deallocator: @Sendable (UnsafeMutableRawPointer) -> Void

  /// A number no other block, and no other contents of this block, ever had in this process:
  /// taken from one counter when the block is made and again by `contentsWillChange()`, which
  /// `PixelBuffer` calls whenever it gives write access to the block. Caches keep results for
  /// in-memory pixels under it; the block's address would not do, as memory freed is handed out
  /// again (and adopted memory may be wrapped again with other pixels).
  public var contentsIdentity: UInt64 { contents.load(ordering: .acquiring) }
  private let contents = Atomic<UInt64>(PixelStorage.nextIdentity())
  private static let identities = Atomic<UInt64>(0)
  private static func nextIdentity() -> UInt64 { identities.wrappingAdd(1, ordering: .relaxed).newValue }

  /// Gives the block a new `contentsIdentity`: call it before writing pixels through
  /// `baseAddress` yourself (`PixelBuffer`'s write access calls it).
  public func contentsWillChange() { contents.store(Self.nextIdentity(), ordering: .releasing) }

  /// Allocates `byteCount` bytes, zero-filled when `zeroed` is true; stops the process when
  /// the memory cannot be had. For tiles and other blocks of a bounded size: whole images,
  /// whose size comes from a file or a recipe, use `init(allocating:zeroed:)`.
  public convenience init(byteCount: Int, zeroed: Bool = false) {
    do {
      try self.init(allocating: byteCount, zeroed: zeroed)
    } catch {
      fatalError("\(error)")
    }
  }

  /// Allocates `byteCount` bytes, zero-filled when `zeroed` is true.
  ///
  /// - Throws: `PixelAllocationError` when the system refuses the memory (an address-space
  ///   limit, an overcommit refusal, a size past what malloc serves).
  public init(allocating byteCount: Int, zeroed: Bool = false) throws(PixelAllocationError) {
    precondition(byteCount >= 0, "PixelStorage size must not be negative")
    self.byteCount = byteCount
    if byteCount >= PixelStorage.hugePageMinimumBytes {
      if let (block, length) = PixelStorage.mapHugePageBlock(byteCount) {
        // Fresh anonymous pages read as zeros already.
        self.baseAddress = block
        self.deallocator = { PixelStorage.unmap($0, length: length) }
        return
      }
      // Where blocks this large are mapped, a refused mapping is final (malloc would map too).
      if PixelStorage.mapsLargeBlocks { throw PixelAllocationError(byteCount: byteCount) }
    }
    var block: UnsafeMutableRawPointer?
    guard posix_memalign(&block, PixelStorage.alignment, Swift.max(byteCount, 1)) == 0, let block else {
      throw PixelAllocationError(byteCount: byteCount)
    }
    if zeroed { block.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount) }
    self.baseAddress = block
    self.deallocator = { free($0) }
  }

  /// Blocks at least this large are mapped with transparent huge pages (Linux; see the file's header).
  public static let hugePageMinimumBytes = 4 << 20
  /// True where `mapHugePageBlock` serves the large blocks (Linux).
  static let mapsLargeBlocks: Bool = {
    #if os(Linux)
    return true
    #else
    return false
    #endif
  }()
  /// The huge page size the blocks are aligned to.
  static let hugePageBytes = 2 << 20

  /// A fresh mapping of at least `byteCount` bytes starting on a 2 MiB boundary, advised to use
  /// huge pages, and its length; nil where that is not available (then malloc serves the block).
  static func mapHugePageBlock(_ byteCount: Int) -> (UnsafeMutableRawPointer, Int)? {
    #if os(Linux)
    guard byteCount <= Int.max - 2 * hugePageBytes else { return nil }
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
    deallocator(baseAddress)
  }
}

/// The memory for pixels could not be allocated.
public struct PixelAllocationError: Error, CustomStringConvertible {
  /// The size of the block that was refused.
  public let byteCount: Int

  /// Creates the error for a refused block of `byteCount` bytes.
  public init(byteCount: Int) { self.byteCount = byteCount }

  public var description: String { "not enough memory: \(amount) for pixels could not be allocated" }

  /// The refused size in words: "412 MB".
  public var amount: String { byteCount >= 10 << 20 ? "\(byteCount >> 20) MB" : "\(byteCount) bytes" }
}
