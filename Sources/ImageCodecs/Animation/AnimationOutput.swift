// AnimationOutput.swift — where an animation writer's bytes go as the frames are encoded.
//
// To a file or stream (an `OutputHandle`), bytes pass through a buffer of `bufferCapacity`
// bytes, written out whenever it fills; a write larger than the buffer goes straight from the
// caller's memory. So the output a writer holds is at most `bufferCapacity` bytes, whatever the
// number of frames. A writer whose format states something before the frames that is known only
// after them (WebP's RIFF length and VP8X flags) overwrites those bytes at the end
// (`overwrite(_:at:)`): in the buffer while they are still there, otherwise with `pwrite` at their
// place in the file. That needs a file that can be written at an offset, which a pipe, a terminal
// or a file opened for appending is not; such a writer calls `holdUntilFinished()` first, and
// there the whole file is held and written out by `finish()`.
//
// Without a handle (output to memory), the whole file is the product and is held; its block is
// allocated checked, as `PixelStorage.forEncoding` allocates, and doubled when full (or grown by
// an eighth past what is needed when the double is refused): memory the system refuses is a
// `CodecError.tooLarge` naming how large the output had grown, not the end of the process.
// `finish()` hands the block over without a copy.
//
// `heldBytes` and `peakHeldBytes` count the bytes allocated for the output, the writer's own
// accounting of what the output costs in memory.

import Foundation
import PixelBufferModule

#if canImport(Glibc)
  import Glibc
#endif

/// An animation's output: a file or stream written through a small buffer, or memory.
public final class AnimationOutput {
  /// The bytes buffered before a file or stream is written to: the most a streamed output holds.
  public static let bufferCapacity = 1 << 16

  private let handle: OutputHandle?
  /// The format's name, for messages ("GIF", "APNG", "animated WebP").
  private let format: String
  /// Where the handle's file stood when the output started (the offset of byte 0).
  private let start: Int64?
  private var storage: PixelStorage?
  /// The bytes in `storage` not yet written to the handle (all of them when held).
  private var buffered = 0
  /// True when everything is kept in memory until `finish()` (no handle, or one that cannot be
  /// written at an offset and a writer that must overwrite).
  private var holdsAll: Bool
  private var finished = false

  /// The bytes written so far (the file's length).
  public private(set) var count = 0
  /// The bytes allocated for the output now.
  public var heldBytes: Int { storage?.byteCount ?? 0 }
  /// The most bytes allocated for the output at any time.
  public private(set) var peakHeldBytes = 0
  /// The first error writing to the handle; every later write throws it.
  private var failure: CodecError?

  /// An output written to `handle` (nil: kept in memory and returned by `finish()`); `format`
  /// names the file in messages.
  public init(handle: OutputHandle?, format: String) {
    self.handle = handle
    self.format = format
    holdsAll = handle == nil
    if let handle {
      let fd = handle.fileDescriptor
      let position = lseek(fd, 0, SEEK_CUR)
      var status = stat()
      let regular = fstat(fd, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
      start = position >= 0 && regular && fcntl(fd, F_GETFL) & O_APPEND == 0 ? Int64(position) : nil
    } else {
      start = nil
    }
  }

  /// True when `overwrite(_:at:)` can reach any byte written: the output is in memory or in a
  /// file written at offsets.
  public var canOverwrite: Bool { holdsAll || start != nil }

  /// Keeps the whole file in memory until `finish()` when bytes already written could not be
  /// overwritten otherwise (a pipe, a terminal, a file opened for appending). Called before the
  /// first write.
  public func holdUntilFinished() {
    precondition(count == 0, "an output is held from its first byte")
    if !canOverwrite { holdsAll = true }
  }

  /// Appends `bytes`.
  ///
  /// - Throws: `CodecError(.io)` when the handle's file cannot be written, `.tooLarge` when a held
  ///   output cannot grow.
  public func write(_ bytes: UnsafeRawBufferPointer) throws {
    if let failure { throw failure }
    guard bytes.count > 0 else { return }
    if !holdsAll {
      if buffered + bytes.count > Self.bufferCapacity { try flush() }
      if bytes.count >= Self.bufferCapacity {
        try toHandle(bytes)
        count += bytes.count
        return
      }
    }
    try reserve(bytes.count)
    (storage!.baseAddress + buffered).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
    buffered += bytes.count
    count += bytes.count
  }

  /// Appends `bytes`.
  public func write(_ bytes: [UInt8]) throws {
    try bytes.withUnsafeBytes { raw in try write(raw) }
  }

  /// Appends `bytes`.
  public func write(_ bytes: Data) throws {
    try bytes.withUnsafeBytes { raw in try write(raw) }
  }

  /// Replaces the bytes at `offset` (from the start of the output, already written) with `bytes`.
  ///
  /// - Throws: `CodecError(.io)` when the file cannot be written there; `.invalidArgument` when
  ///   the output cannot be overwritten (`canOverwrite`).
  public func overwrite(_ bytes: [UInt8], at offset: Int) throws {
    if let failure { throw failure }
    precondition(offset >= 0 && offset + bytes.count <= count, "overwriting bytes already written")
    let flushed = count - buffered
    for (i, byte) in bytes.enumerated() where offset + i >= flushed {
      storage!.baseAddress.storeBytes(of: byte, toByteOffset: offset + i - flushed, as: UInt8.self)
    }
    let early = max(0, min(bytes.count, flushed - offset))
    guard early > 0 else { return }
    guard let start, let handle else {
      throw CodecError(.invalidArgument, "The \(format) cannot be finished: its start was already written to \(handle?.path ?? "memory").")
    }
    var done = 0
    while done < early {
      let n = bytes.withUnsafeBytes { pwrite(handle.fileDescriptor, $0.baseAddress! + done, early - done, off_t(start) + off_t(offset + done)) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { throw record(CodecError(.io, "Cannot write \(handle.path): \(String(cString: strerror(errno))).")) }
      done += n
    }
  }

  /// Writes what is buffered; returns the whole file when the output is in memory, nil when it
  /// went to the handle. The output takes no more bytes.
  public func finish() throws -> Data? {
    if let failure { throw failure }
    precondition(!finished, "an animation output is finished once")
    finished = true
    guard let handle else {
      guard let storage else { return Data() }
      let length = buffered
      self.storage = nil
      return Data(bytesNoCopy: storage.baseAddress, count: length, deallocator: .custom { _, _ in withExtendedLifetime(storage) {} })
    }
    if buffered > 0, let storage {
      try toHandle(UnsafeRawBufferPointer(start: storage.baseAddress, count: buffered))
      buffered = 0
    }
    storage = nil
    return nil
  }

  /// Writes the buffer to the handle and empties it.
  private func flush() throws {
    guard buffered > 0, let storage else { return }
    try toHandle(UnsafeRawBufferPointer(start: storage.baseAddress, count: buffered))
    buffered = 0
  }

  private func toHandle(_ bytes: UnsafeRawBufferPointer) throws {
    guard let handle else { return }
    do {
      try handle.writeAll(bytes)
    } catch let error as CodecError {
      throw record(error)
    } catch {
      throw record(CodecError(.io, "Cannot write \(handle.path): \(error)."))
    }
  }

  private func record(_ error: CodecError) -> CodecError {
    if failure == nil { failure = error }
    return error
  }

  /// Room for `extra` more bytes in the buffer: a streamed output's fixed block, or a held
  /// output's block grown.
  private func reserve(_ extra: Int) throws {
    let capacity = storage?.byteCount ?? 0
    let (needed, overflow) = buffered.addingReportingOverflow(extra)
    guard overflow || needed > capacity else { return }
    let first = holdsAll ? Swift.max(needed, Self.bufferCapacity) : Self.bufferCapacity
    guard !overflow,
      let larger = (try? PixelStorage(allocating: capacity == 0 ? first : Swift.max(needed, 2 * capacity)))
        ?? (try? PixelStorage(allocating: needed + needed / 8))
    else {
      let grown = PixelAllocationError(byteCount: buffered).amount
      let wanted = overflow ? "more bytes than can be addressed" : PixelAllocationError(byteCount: needed).amount
      throw record(CodecError(.tooLarge, "There is not enough memory to write the \(format): its output, \(grown) so far, could not grow to \(wanted)."))
    }
    if let storage { larger.baseAddress.copyMemory(from: storage.baseAddress, byteCount: buffered) }
    storage = larger
    peakHeldBytes = Swift.max(peakHeldBytes, larger.byteCount + (capacity > 0 ? capacity : 0))
  }
}
