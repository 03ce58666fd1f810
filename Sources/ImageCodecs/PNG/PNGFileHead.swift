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

/// The start of a still PNG file: the signature and every chunk before the image data, then the
/// first IDAT chunk's length and type.
enum PNGFileHead {
  /// The head of the regular file open on `file` (read from its start; the handle is not moved),
  /// or nil when the file is to be read whole instead (see the file comment): it is not a regular
  /// file, its chunks before the image data are over `limit` bytes, or it has an acTL or cICP
  /// chunk there, or no IDAT chunk.
  static func read(_ file: FileHandle, limit: Int) -> FileHead? {
    let fd = file.fileDescriptor
    guard let size = InputBytes.regularFileSize(fd) else { return nil }
    guard var head = InputBytes.bytes(fd, count: 8, at: 0), PNGCodec.sniff(head) else { return nil }
    while let chunk = InputBytes.bytes(fd, count: 8, at: head.count) {
      let length = Int(chunk[0]) << 24 | Int(chunk[1]) << 16 | Int(chunk[2]) << 8 | Int(chunk[3])
      let type = String(decoding: chunk[4..<8], as: UTF8.self)
      head += chunk
      if type == "IDAT" { return FileHead(bytes: Data(head), fileSize: size) }
      guard !["acTL", "cICP", "IEND"].contains(type), length < 1 << 31, head.count + length + 4 <= limit,
        let body = InputBytes.bytes(fd, count: length + 4, at: head.count)
      else { return nil }
      head += body
    }
    return nil
  }
}

extension PNGCodec: FileReadingCodec {
  /// Still PNGs without a cICP chunk, read for their colours (not a gain map).
  public static func readsInPlace(file: FileHandle, request: DecodeRequest) -> Bool {
    !request.wantsGainMap && PNGFileHead.read(file, limit: request.limits.maxInputBytes) != nil
  }

  public static func readHeader(file: FileHandle, request: DecodeRequest) throws -> ImageHeader {
    guard request.page == 0, !request.wantsGainMap, let head = PNGFileHead.read(file, limit: request.limits.maxInputBytes) else {
      return try readHeader(InputBytes.contents(of: file, name: "the PNG file", limit: request.limits.maxInputBytes), request: request)
    }
    return try PNGDecoder(file: file, head: head, limits: request.limits).header
  }

  public static func makeDecoder(file: FileHandle, request: DecodeRequest) throws -> any ImageRowDecoder {
    guard request.page == 0, !request.wantsGainMap, let head = PNGFileHead.read(file, limit: request.limits.maxInputBytes) else {
      return try makeDecoder(InputBytes.contents(of: file, name: "the PNG file", limit: request.limits.maxInputBytes), request: request)
    }
    let d = try scaleDenominator(request)
    let png = try PNGDecoder(file: file, head: head, limits: request.limits)
    return d == 1 ? png : try BoxShrinkingDecoder(png, factor: d)
  }
}
