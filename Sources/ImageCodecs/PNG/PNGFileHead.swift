// PNGFileHead.swift — PNG and APNG files read through their descriptor (FileReadingCodec), so a
// large one is never held in memory whole.
//
// What a decode needs before the image data — the signature, IHDR, the colour and text chunks — is
// read first, chunk by chunk (`PNGFileHead`); libpng then reads the same bytes again through the
// descriptor, and the row reader the image data a piece at a time (Sources/CPNG/idat.c). An APNG's
// frames are read by `APNGFrameReader` through a `FileWindow`: its chunk headers, then each frame's
// data when the frame is decoded. Files that need their whole bytes are still read into memory: an
// HDR PNG (a cICP chunk: its content peak is measured, and remembered, by the file's bytes,
// HDRContentPeak.swift), a gain-map request, and a file whose head cannot be read to its first
// image data chunk (damaged or cut short: the decoder from memory says how).
import Foundation
import PixelBufferModule

/// The start of a still PNG file: the signature and every chunk before the image data, then the
/// first IDAT chunk's length and type.
enum PNGFileHead {
  /// The head of the regular file open on `file` (read from its start; the handle is not moved),
  /// and whether it has an acTL chunk (an APNG), or nil when the file is to be read whole instead
  /// (see the file comment): it is not a regular file, its chunks before the image data are over
  /// `limit` bytes, or it has a cICP chunk there, or no IDAT chunk.
  static func read(_ file: FileHandle, limit: Int) -> (head: FileHead, isAnimated: Bool)? {
    let fd = file.fileDescriptor
    guard let size = InputBytes.regularFileSize(fd) else { return nil }
    guard var head = InputBytes.bytes(fd, count: 8, at: 0), PNGCodec.sniff(head) else { return nil }
    var isAnimated = false
    while let chunk = InputBytes.bytes(fd, count: 8, at: head.count) {
      let length = Int(chunk[0]) << 24 | Int(chunk[1]) << 16 | Int(chunk[2]) << 8 | Int(chunk[3])
      let type = String(decoding: chunk[4..<8], as: UTF8.self)
      head += chunk
      if type == "IDAT" { return (FileHead(bytes: Data(head), fileSize: size), isAnimated) }
      if type == "acTL" { isAnimated = true }
      guard !["cICP", "IEND"].contains(type), length < 1 << 31, head.count + length + 4 <= limit,
        let body = InputBytes.bytes(fd, count: length + 4, at: head.count)
      else { return nil }
      head += body
    }
    return nil
  }
}

extension PNGCodec: FileReadingCodec {
  /// Still PNGs and APNGs without a cICP chunk, read for their colours (not a gain map).
  public static func readsInPlace(file: FileHandle, request: DecodeRequest) -> Bool {
    !request.wantsGainMap && PNGFileHead.read(file, limit: request.limits.maxInputBytes) != nil
  }

  public static func readHeader(file: FileHandle, request: DecodeRequest) throws -> ImageHeader {
    guard !request.wantsGainMap, let (head, isAnimated) = PNGFileHead.read(file, limit: request.limits.maxInputBytes),
      request.page == 0 || isAnimated
    else {
      return try readHeader(InputBytes.contents(of: file, name: "the PNG file", limit: request.limits.maxInputBytes), request: request)
    }
    let decoder = try PNGDecoder(file: file, head: head, limits: request.limits)
    guard isAnimated else { return decoder.header }
    return try animatedHeader(decoder, try APNGStructure(FileWindow(file, size: head.fileSize), limits: request.limits), request: request)
  }

  public static func makeDecoder(file: FileHandle, request: DecodeRequest) throws -> any ImageRowDecoder {
    guard !request.wantsGainMap, let (head, isAnimated) = PNGFileHead.read(file, limit: request.limits.maxInputBytes),
      request.page == 0 || isAnimated
    else {
      return try makeDecoder(InputBytes.contents(of: file, name: "the PNG file", limit: request.limits.maxInputBytes), request: request)
    }
    let d = try scaleDenominator(request)
    let png = try PNGDecoder(file: file, head: head, limits: request.limits)
    if isAnimated, let structure = try APNGStructure(FileWindow(file, size: head.fileSize), limits: request.limits) {
      return try frameDecoder(png, structure, scaleDenominator: d, request: request) {
        try APNGFrameReader(FileWindow(file, size: head.fileSize), limits: request.limits)
      }
    }
    return d == 1 ? png : try BoxShrinkingDecoder(png, factor: d)
  }
}
