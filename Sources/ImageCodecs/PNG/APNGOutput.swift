// APNGOutput.swift — the bytes of an APNG being written, in memory the writer asks for checked.
//
// An animation's file grows with every frame and is handed over whole by `finish()` (the
// AnimationFrameWriter protocol), so it is the largest thing the APNG writer holds: 24 MP of
// noise is 70 MB a frame. Its block is allocated as `PixelStorage.forEncoding` allocates,
// checked, and doubled when full (or grown by an eighth past what is needed when the double is
// refused): memory the system refuses is a `CodecError.tooLarge` saying how large the output had
// grown, not the end of the process. Chunks are written in place (a frame's compressed stream
// goes from the compressor's buffer into its IDAT or fdAT chunks), and `data()` hands the block
// over without a copy.
import CPNG
import Foundation
import PixelBufferModule

/// A growing byte buffer in checked memory, with PNG chunk framing.
struct APNGOutput {
  private var storage: PixelStorage
  /// The bytes written so far.
  private(set) var count = 0

  /// The output, starting with `bytes`.
  init(_ bytes: Data) throws(CodecError) {
    storage = try PixelStorage.forEncoding(Swift.max(bytes.count, 1 << 16), what: "its output", file: "the APNG")
    try append(bytes)
  }

  /// Room for `extra` more bytes: a larger block when this one is full.
  private mutating func reserve(_ extra: Int) throws(CodecError) {
    let (needed, overflow) = count.addingReportingOverflow(extra)
    guard overflow || needed > storage.byteCount else { return }
    guard !overflow, let larger = (try? PixelStorage(allocating: Swift.max(needed, 2 * storage.byteCount)))
      ?? (try? PixelStorage(allocating: needed + needed / 8))
    else {
      let grown = PixelAllocationError(byteCount: count).amount
      let wanted = overflow ? "more bytes than can be addressed" : PixelAllocationError(byteCount: needed).amount
      throw CodecError(.tooLarge, "There is not enough memory to write the APNG: its output, \(grown) so far, could not grow to \(wanted).")
    }
    larger.baseAddress.copyMemory(from: storage.baseAddress, byteCount: count)
    storage = larger
  }

  /// Appends `bytes`.
  mutating func append(_ bytes: Data) throws(CodecError) {
    try reserve(bytes.count)
    let at = storage.baseAddress + count
    bytes.withUnsafeBytes { at.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
    count += bytes.count
  }

  /// Appends the chunk `type` whose payload is `length` bytes written by `fill` at the pointer
  /// it is given, and the CRC of type and payload.
  mutating func appendChunk(_ type: String, length: Int, _ fill: (UnsafeMutablePointer<UInt8>) -> Void) throws(CodecError) {
    precondition(type.utf8.count == 4 && length <= Int(Int32.max), "a PNG chunk")
    try reserve(12 + length)
    let start = (storage.baseAddress + count).assumingMemoryBound(to: UInt8.self)
    Self.store(UInt32(length), at: start)
    for (i, byte) in type.utf8.enumerated() { start[4 + i] = byte }
    fill(start + 8)
    Self.store(cpng_crc32(0, start + 4, 4 + length), at: start + 8 + length)
    count += 12 + length
  }

  /// Appends the chunk `type` with `payload`.
  mutating func appendChunk(_ type: String, _ payload: Data) throws(CodecError) {
    try appendChunk(type, length: payload.count) { to in
      payload.withUnsafeBytes { if $0.count > 0 { UnsafeMutableRawPointer(to).copyMemory(from: $0.baseAddress!, byteCount: $0.count) } }
    }
  }

  /// Overwrites the 4 bytes at `offset` with `value`, big-endian, and the CRC of the chunk
  /// starting at `chunk` (of `length` payload bytes) to match.
  mutating func overwrite(_ value: UInt32, at offset: Int, inChunkAt chunk: Int, length: Int) {
    let base = storage.baseAddress.assumingMemoryBound(to: UInt8.self)
    Self.store(value, at: base + offset)
    Self.store(cpng_crc32(0, base + chunk + 4, 4 + length), at: base + chunk + 8 + length)
  }

  /// Removes the bytes of `range`.
  mutating func remove(_ range: Range<Int>) {
    let base = storage.baseAddress
    (base + range.lowerBound).copyMemory(from: base + range.upperBound, byteCount: count - range.upperBound)
    count -= range.count
  }

  /// The bytes, sharing the block (which the returned value keeps alive).
  func data() -> Data {
    let storage = storage
    return Data(bytesNoCopy: storage.baseAddress, count: count, deallocator: .custom { _, _ in withExtendedLifetime(storage) {} })
  }

  /// Writes `value` big-endian at `p`.
  static func store(_ value: UInt32, at p: UnsafeMutablePointer<UInt8>) {
    (p[0], p[1], p[2], p[3]) = (UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF))
  }
}
