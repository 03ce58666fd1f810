// JPEGFileHead.swift — JPEG files read through their descriptor (FileReadingCodec), so a large
// one is never held in memory whole.
//
// The markers before the first scan — the frame, the tables and the metadata segments (EXIF, ICC
// profile, XMP, IPTC, comments) — are read first (`JPEGFileHead`), and the header's metadata is
// parsed from them; libjpeg then reads the file from its start through the descriptor, 256 KiB at
// a time (`cj_decoder_create_file`, Sources/CJPEG/filesource.c), a progressive file's coefficients
// buffered by libjpeg itself. Files that need their whole bytes are still read into memory: one
// with a Multi-Picture (MPF) index, which may locate an Ultra HDR gain map after the primary image
// (UltraHDR.swift), and one whose markers end before a scan (damaged or cut short: the decoder
// from memory says how).
import CJPEG
import Foundation
import PixelBufferModule

/// The start of a JPEG file: its bytes up to and including the first start-of-scan marker's code.
enum JPEGFileHead {
  /// The head of the regular file open on `file` (read from its start; the handle is not moved),
  /// or nil when the file is to be read whole instead (see the file comment): it is not a regular
  /// file, its markers before the first scan are over `limit` bytes, it has an MPF segment there,
  /// or no scan. The markers are walked as `JPEGMetadata.forEachSegment` walks them.
  static func read(_ file: FileHandle, limit: Int) -> FileHead? {
    let fd = file.fileDescriptor
    guard let size = InputBytes.regularFileSize(fd) else { return nil }
    var head: [UInt8] = []
    /// Whether the head holds at least `count` bytes, after reading more (64 KiB or more at a time).
    func holds(_ count: Int) -> Bool {
      guard count > head.count else { return true }
      guard count <= min(size, limit) else { return false }
      let want = min(max(count - head.count, 64 << 10), size - head.count)
      guard let more = InputBytes.bytes(fd, count: want, at: head.count) else { return false }
      head += more
      return true
    }
    guard holds(3), JPEGCodec.sniff(head) else { return nil }
    var i = 2
    while true {
      while holds(i + 1) && head[i] != 0xFF { i += 1 }
      while holds(i + 1) && head[i] == 0xFF { i += 1 }
      guard holds(i + 1) else { return nil }
      let marker = head[i]
      i += 1
      switch marker {
      case 0xDA: return FileHead(bytes: Data(head[..<i]), fileSize: size)
      case 0xD9: return nil
      case 0x01, 0xD0...0xD8: continue
      default:
        guard holds(i + 2) else { return nil }
        let length = Int(head[i]) << 8 | Int(head[i + 1])
        guard length >= 2, holds(i + length) else { return nil }
        if marker == 0xE2, head[(i + 2)..<(i + length)].starts(with: MultiPictureIndex.signature) { return nil }
        i += length
      }
    }
  }
}

extension JPEGDecoder {
  /// The bytes libjpeg reads a file into at a time.
  static let fileBufferSize = Int(CJ_FILE_BUFFER_SIZE)

  /// Reads the header of the JPEG file open on `file`, whose `head` was read, without decoding
  /// pixels; libjpeg reads the file through its descriptor, `bufferSize` bytes at a time, and the
  /// descriptor stays open while the decoder lives.
  ///
  /// - Throws: as `init(data:limits:)`.
  convenience init(file: FileHandle, head: FileHead, limits: DecodeLimits, bufferSize: Int = fileBufferSize) throws {
    let handle = cj_decoder_create_file(file.fileDescriptor, UInt64(head.fileSize), bufferSize)
    try self.init(handle: handle, input: .file(file), markers: head.bytes, limits: limits)
  }
}

extension JPEGCodec: FileReadingCodec {
  /// JPEGs without a Multi-Picture index before their first scan.
  public static func readsInPlace(file: FileHandle, request: DecodeRequest) -> Bool {
    JPEGFileHead.read(file, limit: request.limits.maxInputBytes) != nil
  }

  public static func readHeader(file: FileHandle, request: DecodeRequest) throws -> ImageHeader {
    guard let head = JPEGFileHead.read(file, limit: request.limits.maxInputBytes) else {
      return try readHeader(InputBytes.contents(of: file, name: "the JPEG file", limit: request.limits.maxInputBytes), request: request)
    }
    return try header(of: JPEGDecoder(file: file, head: head, limits: request.limits), bytes: head.bytes, request: request)
  }

  public static func makeDecoder(file: FileHandle, request: DecodeRequest) throws -> any ImageRowDecoder {
    guard let head = JPEGFileHead.read(file, limit: request.limits.maxInputBytes) else {
      return try makeDecoder(InputBytes.contents(of: file, name: "the JPEG file", limit: request.limits.maxInputBytes), request: request)
    }
    return try started(JPEGDecoder(file: file, head: head, limits: request.limits), request: request)
  }
}
