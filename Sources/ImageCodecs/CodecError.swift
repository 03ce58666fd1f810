// CodecError.swift — every way reading or writing an image file can fail, in words a user understands.

import PixelBufferModule

/// A decoding or encoding failure. `description` is a complete sentence fit to show a user.
public struct CodecError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What kind of failure this is: callers map kinds to exit codes and retry policies.
  public enum Kind: String, Hashable, Sendable {
    /// The bytes are not a valid file of the format (bad marker, bad CRC, bad header…).
    case corrupt
    /// The file ends before its image data does.
    case truncated
    /// A valid file using a feature this build cannot handle (12-bit or lossless JPEG…).
    case unsupported
    /// The header claims more pixels than the configured limit allows, or the memory for the
    /// pixels could not be had.
    case tooLarge
    /// Reading or writing the file itself failed (missing file, permission, full disk…).
    case io
    /// The caller asked for something impossible (bad option value, unsupported output layout…).
    case invalidArgument
  }

  /// The kind of failure.
  public var kind: Kind
  /// The user-facing explanation.
  public var message: String

  /// Creates an error.
  public init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }

  /// The message.
  public var description: String { message }
}

extension PixelBuffer {
  /// A buffer for `rows` decoded rows of a `width`-wide image (by default `height`: the whole
  /// image); memory the system refuses is a `CodecError.tooLarge`, not the end of the process.
  public static func forDecoding(
    width: Int, height: Int, rows: Int? = nil, format: PixelFormat, colorSpace: ColorSpace,
    metadata: ImageMetadata
  ) throws(CodecError) -> PixelBuffer {
    do {
      return try allocate(width: width, height: rows ?? height, format: format, colorSpace: colorSpace, metadata: metadata)
    } catch {
      throw CodecError(
        .tooLarge, "There is not enough memory to decode the \(width)×\(height) image (\(error.amount) could not be allocated).")
    }
  }
}

extension PixelStorage {
  /// `count` values of `stride` bytes that an encoder holds while it writes `file` (a path, or
  /// "the PNG" for one written to memory): `what` names them ("its row segment"). Memory the
  /// system refuses, or a size that overflows, is a `CodecError.tooLarge` saying which, not the
  /// end of the process.
  static func forEncoding(_ count: Int, of stride: Int = 1, what: String, file: String) throws(CodecError) -> PixelStorage {
    let (byteCount, overflow) = max(count, 1).multipliedReportingOverflow(by: stride)
    guard !overflow, let storage = try? PixelStorage(allocating: byteCount) else {
      let amount = overflow ? "more bytes than can be addressed" : PixelAllocationError(byteCount: byteCount).amount
      throw CodecError(.tooLarge, "There is not enough memory to write \(file): \(what) (\(amount)) could not be allocated.")
    }
    return storage
  }
}

/// Limits checked against a file's header before any pixel memory is allocated.
public struct DecodeLimits: Hashable, Sendable {
  /// The largest `width × height` accepted. The default, 268 402 689 (0x3FFF²), is the limit
  /// sharp and libvips use: a 16383 × 16383 image, about 1 GiB as 8-bit RGBA.
  public var maxPixels: Int
  /// The most frames an animation may have (default 10 000): a GIF of a thousand tiny frames per
  /// kilobyte would otherwise cost a thousand canvases of work per kilobyte read.
  public var maxFrames: Int
  /// The most bytes of an input held in memory (default 1 GiB): a file read whole (every format
  /// but TIFF and still PNG, which are read in place), standard input, a pipe. A longer input is
  /// refused once this many bytes are read, so `/dev/zero` or a 6 GB file cannot take the memory.
  public var maxInputBytes: Int

  /// Creates limits.
  public init(
    maxPixels: Int = DecodeLimits.defaultMaxPixels, maxFrames: Int = DecodeLimits.defaultMaxFrames,
    maxInputBytes: Int = DecodeLimits.defaultMaxInputBytes
  ) {
    self.maxPixels = maxPixels
    self.maxFrames = maxFrames
    self.maxInputBytes = maxInputBytes
  }

  /// 1 GiB: the pixel limit's image as 8-bit RGBA, so any file that holds an image within it in a
  /// compressed format fits.
  public static let defaultMaxInputBytes = 1 << 30

  /// 10 000 frames (over 16 minutes at 10 frames a second).
  public static let defaultMaxFrames = 10_000

  /// 0x3FFF × 0x3FFF.
  public static let defaultMaxPixels = 268_402_689

  /// The default limits.
  public static let `default` = DecodeLimits()

  /// Throws `.tooLarge` (or `.corrupt` for a zero or negative side) unless the size is acceptable.
  public func check(width: Int, height: Int, what: String = "image") throws {
    guard width > 0, height > 0 else {
      throw CodecError(.corrupt, "The \(what) header gives an empty size (\(width)×\(height)).")
    }
    let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
    if overflow || pixels > maxPixels {
      throw CodecError(
        .tooLarge,
        "The \(what) is \(width)×\(height) pixels, more than the limit of \(maxPixels) pixels; "
          + "raise the limit (--max-pixels) if you trust this file.")
    }
  }
}
