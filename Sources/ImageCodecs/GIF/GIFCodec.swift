// GIFCodec.swift — GIF in the codec registry: any frame (page) through giflib (CGIF shim), its
// rows copied from the screen as they are asked for (GIFPageDecoder), the animation's frames one
// at a time (GIFFrameReader); written by GIFWriter.swift. A file is read in place
// (`FileReadingCodec`): through its descriptor, 64 KiB at a time (`CGIF_FILE_BUFFER`), so a long
// animation is never held in memory.
import CGIF
import Foundation
import PixelBufferModule

extension ImageFileFormat {
  /// GIF (87a and 89a), read through giflib.
  public static let gif = ImageFileFormat(rawValue: "gif")
}

/// GIF: reads every frame composed on the logical screen as a browser shows it (disposal,
/// transparency as alpha, local colour tables, interlace); a page is a frame; the XMP packet of
/// its XMP application extension (`GIFXMP`) is the header's XMP. Writes stills and
/// animations, each frame quantised to its own colour table (`GIFWriter.swift`).
public enum GIFCodec: ImageCodec, AnimationDecoding {
  public static let format = ImageFileFormat.gif
  public static let displayName = "GIF"
  public static let fileExtensions = ["gif"]
  public static let summary =
    "giflib; every frame composed on the screen as browsers show it (disposal, transparency, local palettes, interlace), one at a time; a page is a frame; delays and loop count read; RGBA when a frame has a transparent colour or does not cover the screen, RGB otherwise. Written frame by frame: each frame's own colour table of up to 256 (its colours, or Wu's quantiser refined by a k-means step), pixels mapped to the nearest entry, Floyd-Steinberg or ordered dithering at an amount 0…1, alpha below 50 % transparent, only the rectangle that changed with unchanged pixels transparent; delays (rounded to centiseconds) and loop count kept."

  /// `GIF87a` or `GIF89a`.
  public static func sniff(_ head: [UInt8]) -> Bool {
    head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8))
  }

  public static let decodeOptions: [FormatOption] = [.page]

  public static func readHeader(_ data: Data, request: DecodeRequest) throws -> ImageHeader {
    try readHeader(.bytes(data), request: request)
  }

  static func readHeader(_ input: GIFInput, request: DecodeRequest) throws -> ImageHeader {
    let facts = try readFacts(input, limits: request.limits)
    let frames = facts.animation.frameCount
    guard request.page < frames else {
      throw CodecError(.invalidArgument, "The GIF has \(frames) frame\(frames == 1 ? "" : "s"); page \(request.page) does not exist (pages count from 0).")
    }
    let (xmp, leftOut) = try GIFXMP.packet(at: facts.xmp, in: input)
    var header = ImageHeader(
      fileFormat: .gif, size: facts.animation.canvasSize, layout: facts.hasAlpha ? .rgba : .rgb, component: .uint8,
      metadata: ImageMetadata(xmp: xmp), pageCount: frames, leftOutMetadata: leftOut.map { [$0] } ?? [],
      animation: frames > 1 ? facts.animation : nil)
    header.decoderHeldBytes = facts.heldBytes
    return header
  }

  public static func makeDecoder(_ data: Data, request: DecodeRequest) throws -> any ImageRowDecoder {
    try makeDecoder(.bytes(data), request: request)
  }

  static func makeDecoder(_ input: GIFInput, request: DecodeRequest) throws -> any ImageRowDecoder {
    guard request.scaleDenominator == 1 else {
      throw CodecError(.invalidArgument, "GIF files decode at full size only, not at 1/\(request.scaleDenominator).")
    }
    let header = try readHeader(input, request: request)
    let warnings = animationReadAsStillWarning("GIF", frames: header.pageCount, request: request)
    return try GIFPageDecoder(input, header: header, page: request.page, limits: request.limits, warnings: warnings)
  }

  /// A page's rows are copied from the screen as they are asked for.
  public static let streamsRows = true

  public static func readAnimation(_ data: Data, limits: DecodeLimits) throws -> AnimationInfo {
    try readFacts(.bytes(data), limits: limits).animation
  }

  public static func makeFrameReader(_ data: Data, limits: DecodeLimits) throws -> any AnimationFrameReader {
    try GIFFrameReader(data, limits: limits)
  }

  public static func readAnimation(file: FileHandle, limits: DecodeLimits) throws -> AnimationInfo {
    try readFacts(GIFInput(file, limit: limits.maxInputBytes), limits: limits).animation
  }

  public static func makeFrameReader(file: FileHandle, limits: DecodeLimits) throws -> any AnimationFrameReader {
    try GIFFrameReader(GIFInput(file, limit: limits.maxInputBytes), limits: limits)
  }

  public typealias EncodeOptions = GIFEncodeOptions

  /// RGB or RGBA, 8 bits (gray images are written as RGB).
  public static func encodedPixelFormat(layout: ChannelLayout, component: ComponentType, options: ResolvedFormatOptions) -> PixelFormat {
    PixelFormat(layout: layout.hasAlpha ? .rgba : .rgb, component: .uint8)
  }

  /// The quantiser takes a whole frame: its RGBA rows, the palette indices and the dithering's
  /// error rows. Measured as peak RSS above a PNG write of the same 4096² image (release): 10.5
  /// bytes a pixel.
  public static func encoderHeldBytes(for size: Size, format: PixelFormat, options: ResolvedFormatOptions) -> Int {
    heldBytes(size, 12)
  }

  public static func makeEncoder(_ request: EncodeRequest) throws -> any ImageRowEncoder {
    try GIFStillEncoder(request)
  }

  /// The screen, frames, delays, loop count, whether any frame leaves pixels transparent and where
  /// the XMP application extension's data lies, read from every record without decoding pixels;
  /// the screen, frame count and each frame's size are checked against `limits`.
  static func readFacts(_ input: GIFInput, limits: DecodeLimits) throws -> (
    animation: AnimationInfo, hasAlpha: Bool, heldBytes: Int, xmp: Range<Int>?
  ) {
    var info = cgif_info()
    var message = [CChar](repeating: 0, count: 256)
    let capacity = min(limits.maxFrames, 1 << 20)
    var centiseconds = [Int32](repeating: 0, count: max(1, capacity))
    let status: Int32
    switch input {
    case .bytes(let data):
      status = data.withUnsafeBytes { raw in
        cgif_read_info(
          raw.bindMemory(to: UInt8.self).baseAddress, raw.count, Int32(capacity), Int64(limits.maxPixels), &info,
          &centiseconds, Int32(capacity), &message, message.count)
      }
    case .file(let file, let size):
      status = cgif_read_info_file(
        file.fileDescriptor, size, Int32(capacity), Int64(limits.maxPixels), &info, &centiseconds, Int32(capacity), &message,
        message.count)
    }
    if Int(status) == Int(CGIF_TOO_LARGE) {
      throw CodecError(.tooLarge, text(message) + " Raise the limits (--max-frames, --max-pixels) if you trust this file.")
    }
    try check(status, message)
    try limits.check(width: Int(info.width), height: Int(info.height), what: "GIF image")
    let delays = centiseconds.prefix(Int(info.frame_count)).map { Int($0) * 10 }
    let animation = AnimationInfo(
      canvasSize: Size(width: Int(info.width), height: Int(info.height)), delays: delays,
      loopCount: info.loop_count < 0 ? 1 : info.loop_count == 0 ? 0 : Int(info.loop_count) + 1)
    let xmp = info.xmp_offset > 0 ? Int(info.xmp_offset)..<Int(info.xmp_offset + info.xmp_length) : nil
    return (animation, info.has_alpha != 0, Int(info.held_bytes), xmp)
  }

  static func check(_ status: Int32, _ message: [CChar]) throws {
    guard Int(status) != Int(CGIF_OK) else { return }
    switch Int(status) {
    case Int(CGIF_TRUNCATED): throw CodecError(.truncated, text(message))
    case Int(CGIF_NO_MEMORY), Int(CGIF_TOO_LARGE): throw CodecError(.tooLarge, text(message))
    case Int(CGIF_INVALID): throw CodecError(.invalidArgument, text(message))
    default: throw CodecError(.corrupt, text(message))
    }
  }

  /// The shim's NUL-terminated message.
  private static func text(_ message: [CChar]) -> String {
    String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}

/// Where a GIF's bytes are: in memory, or in a regular file the shim reads through its descriptor.
enum GIFInput {
  case bytes(Data)
  /// The file (kept open by whoever holds this) and its size when it was opened.
  case file(FileHandle, size: Int)

  /// The regular file open on `file`, read in place; any other file (a pipe, a device) is read
  /// into memory, within `limit` bytes.
  init(_ file: FileHandle, limit: Int) throws {
    if let size = InputBytes.regularFileSize(file.fileDescriptor) {
      self = .file(file, size: size)
    } else {
      self = .bytes(try InputBytes.contents(of: file, name: "the GIF file", limit: limit))
    }
  }

  /// The bytes at `range` (within the size), read from the file when it is one.
  func bytes(_ range: Range<Int>) throws -> Data {
    switch self {
    case .bytes(let data):
      return data.subdata(in: (data.startIndex + range.lowerBound)..<(data.startIndex + range.upperBound))
    case .file(let file, _):
      var bytes = Data(count: range.count)
      let read = bytes.withUnsafeMutableBytes { raw -> Int in
        var done = 0
        while done < raw.count {
          let n = pread(file.fileDescriptor, raw.baseAddress! + done, raw.count - done, off_t(range.lowerBound + done))
          if n < 0 && errno == EINTR { continue }
          guard n > 0 else { break }
          done += n
        }
        return done
      }
      guard read == range.count else { throw CodecError(.truncated, "The GIF file ended before its XMP extension's end.") }
      return bytes
    }
  }

  var count: Int {
    switch self {
    case .bytes(let data): return data.count
    case .file(_, let size): return size
    }
  }
}

extension GIFCodec: FileReadingCodec {
  /// A regular file; a pipe or a device is read into memory, within the limit, as before.
  public static func readsInPlace(file: FileHandle, request: DecodeRequest) -> Bool {
    InputBytes.regularFileSize(file.fileDescriptor) != nil
  }

  public static func readHeader(file: FileHandle, request: DecodeRequest) throws -> ImageHeader {
    try readHeader(GIFInput(file, limit: request.limits.maxInputBytes), request: request)
  }

  public static func makeDecoder(file: FileHandle, request: DecodeRequest) throws -> any ImageRowDecoder {
    try makeDecoder(GIFInput(file, limit: request.limits.maxInputBytes), request: request)
  }
}
