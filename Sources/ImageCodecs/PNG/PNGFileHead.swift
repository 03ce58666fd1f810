// PNGFileHead.swift — still PNG files read through their descriptor (FileReadingCodec), so a large
// one is never held in memory whole.
//
// What a decode needs before the image data — the signature, IHDR, the colour and text chunks — is
// read first, chunk by chunk (`PNGFileHead`); libpng then reads the same bytes again through the
// descriptor, and the row reader the image data a piece at a time (Sources/CPNG/idat.c). Files
// that need their whole bytes are still read into memory: an APNG (its frames' chunks lie anywhere
// after the head), an HDR PNG (a cICP chunk: its content peak is measured, and remembered, by the
// file's bytes, HDRContentPeak.swift), a gain-map request, and a file whose head cannot be read to
// its first image data chunk (damaged or cut short: the decoder from memory says how).
import Foundation
import PixelBufferModule

#if canImport(Glibc)
  import Glibc
#endif

/// The start of a still PNG file, up to and including the first IDAT chunk's length and type.
struct PNGFileHead {
  /// The signature and every chunk before the image data, then the first IDAT's length and type.
  let bytes: Data
  /// The file's size when the head was read.
  let fileSize: Int

  /// The head of the regular file open on `file` (read from its start; the handle is not moved),
  /// or nil when the file is to be read whole instead (see the file comment): it is not a regular
  /// file, its chunks before the image data are over `limit` bytes, or it has an acTL or cICP
  /// chunk there, or no IDAT chunk.
  static func read(_ file: FileHandle, limit: Int) -> PNGFileHead? {
    let fd = file.fileDescriptor
    var status = stat()
    guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
    let size = Int(status.st_size)
    guard var head = bytes(fd, count: 8, at: 0), PNGCodec.sniff(head) else { return nil }
    while let chunk = bytes(fd, count: 8, at: head.count) {
      let length = Int(chunk[0]) << 24 | Int(chunk[1]) << 16 | Int(chunk[2]) << 8 | Int(chunk[3])
      let type = String(decoding: chunk[4..<8], as: UTF8.self)
      head += chunk
      if type == "IDAT" { return PNGFileHead(bytes: Data(head), fileSize: size) }
      guard !["acTL", "cICP", "IEND"].contains(type), length < 1 << 31, head.count + length + 4 <= limit,
        let body = bytes(fd, count: length + 4, at: head.count)
      else { return nil }
      head += body
    }
    return nil
  }

  /// The whole file open on `file`, within `limit` bytes, for a file not read in place.
  ///
  /// - Throws: `CodecError` — `.tooLarge` over `limit`, `.io` when it cannot be read.
  static func contents(of file: FileHandle, limit: Int) throws -> Data {
    var status = stat()
    let size = fstat(file.fileDescriptor, &status) == 0 ? Int(status.st_size) : -1
    try InputBytes.check(size: size, name: "the PNG file", limit: limit)
    guard size >= 0, let all = bytes(file.fileDescriptor, count: size, at: 0) else {
      throw CodecError(.io, "The PNG file cannot be read.")
    }
    return Data(all)
  }

  /// The `count` bytes at `offset` of the file open on `fd`, or nil when it ends first.
  private static func bytes(_ fd: Int32, count: Int, at offset: Int) -> [UInt8]? {
    var out = [UInt8](repeating: 0, count: count), done = 0
    while done < count {
      let got = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset + done)) }
      if got < 0 && errno == EINTR { continue }
      if got <= 0 { return nil }
      done += got
    }
    return out
  }
}

extension PNGCodec: FileReadingCodec {
  /// Still PNGs without a cICP chunk, read for their colours (not a gain map).
  public static func readsInPlace(file: FileHandle, request: DecodeRequest) -> Bool {
    !request.wantsGainMap && PNGFileHead.read(file, limit: request.limits.maxInputBytes) != nil
  }

  public static func readHeader(file: FileHandle, request: DecodeRequest) throws -> ImageHeader {
    guard request.page == 0, !request.wantsGainMap, let head = PNGFileHead.read(file, limit: request.limits.maxInputBytes) else {
      return try readHeader(PNGFileHead.contents(of: file, limit: request.limits.maxInputBytes), request: request)
    }
    return try PNGDecoder(file: file, head: head, limits: request.limits).header
  }

  public static func makeDecoder(file: FileHandle, request: DecodeRequest) throws -> any ImageRowDecoder {
    guard request.page == 0, !request.wantsGainMap, let head = PNGFileHead.read(file, limit: request.limits.maxInputBytes) else {
      return try makeDecoder(PNGFileHead.contents(of: file, limit: request.limits.maxInputBytes), request: request)
    }
    let d = try scaleDenominator(request)
    let png = try PNGDecoder(file: file, head: head, limits: request.limits)
    return d == 1 ? png : try BoxShrinkingDecoder(png, factor: d)
  }
}
