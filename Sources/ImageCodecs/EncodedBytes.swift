// EncodedBytes.swift — when a decoder may read a `Data`'s bytes in place instead of copying them.
//
// The JPEG and PNG decoders hand libjpeg/libpng a pointer to the encoded bytes and keep reading it
// long after `withUnsafeBytes` returned. That is sound only while the bytes stay at one address:
// the decoder keeps its own (never mutated) copy of the `Data` value alive, and every
// storage-backed `Data` representation (a slice or large buffer, including a memory-mapped file)
// keeps its bytes in one heap storage object that copy-on-write never moves while it is shared.
// Only the small inline representation (at most 14 bytes on 64-bit platforms) lives inside the
// value itself, where `withUnsafeBytes` may point at a temporary; such tiny inputs are copied.
import Foundation

/// Decides whether encoded bytes can be borrowed by a decoder (internal).
enum EncodedBytes {
  /// Inputs shorter than this are copied: far above `Data`'s inline capacity, and far below any
  /// real image, so the copy costs nothing.
  static let minimumBorrowedCount = 64

  /// True when a decoder holding `data` may keep reading it through the pointer
  /// `withUnsafeBytes` gave.
  static func isStable(_ data: Data) -> Bool { data.count >= minimumBorrowedCount }
}
