// PixelStorage.swift — the reference-counted, aligned allocation behind PixelBuffers.

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
    self.baseAddress = UnsafeMutableRawPointer.allocate(
      byteCount: Swift.max(byteCount, 1), alignment: PixelStorage.alignment)
    if zeroed { baseAddress.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount) }
    self.deallocator = nil
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
