// EncodedSource.swift — a JPEG or PNG file (or bytes) whose header is read and pixels are not yet.

import Foundation
import ImageCodecs
import PixelBufferModule

/// An encoded image: where its bytes are, what its header says, and how to decode it.
///
/// Instances are shared by every `Image` made from the same load, and identified for the decode
/// cache by path, size and modification time (files) or by a digest of the bytes (memory).
public final class EncodedSource: @unchecked Sendable {
  /// The file, when the source is one.
  public let url: URL?
  /// The header read when the source was created.
  public let header: ImageHeader
  /// How it is to be decoded.
  public let options: LoadOptions
  /// The decode cache's identity for these bytes.
  public let identity: String
  private let bytes: Data

  /// Reads the file at `url` into memory and its header (the pixels are decoded later).
  ///
  /// The file is read, not memory-mapped: a mapping saves ~1,500 page faults (about 2 ms) on a
  /// 6.5 MB JPEG, but a file truncated by another process while it is being decoded would then
  /// kill the process with SIGBUS instead of giving a `.truncated` error — a whole batch lost to
  /// one file changing under it (libvips reads with `read()` for the same reason). The decoders
  /// read these bytes in place, without a further copy.
  public convenience init(contentsOf url: URL, options: LoadOptions) throws {
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      let reason = FileManager.default.fileExists(atPath: url.path) ? "cannot be read" : "does not exist"
      throw CodecError(.io, "The input file \(url.path) \(reason).")
    }
    let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
    let mtime = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
    try self.init(data: data, url: url, identity: "file:\(url.standardizedFileURL.path)@\(data.count)@\(mtime)", options: options)
  }

  /// Reads the header of encoded bytes held in memory.
  public convenience init(data: Data, options: LoadOptions) throws {
    try self.init(data: data, url: nil, identity: "data:\(EncodedSource.digest(data))", options: options)
  }

  private init(data: Data, url: URL?, identity: String, options: LoadOptions) throws {
    self.bytes = data
    self.url = url
    // A strict load of the same bytes must not be served a lenient decode from the cache.
    self.identity = options.strict ? identity + "/strict" : identity
    self.options = options
    let name = url?.lastPathComponent ?? "image data"
    guard let format = ImageFileFormat.sniff(data.prefix(8)) else {
      throw CodecError(.unsupported, "\(name) is neither a JPEG nor a PNG file (unrecognised first bytes).")
    }
    switch format {
    case .jpeg: self.header = try JPEGDecoder.readHeader(data, limits: options.limits)
    case .png: self.header = try PNGDecoder.readHeader(data, limits: options.limits)
    }
  }

  /// True when the format can decode directly at 1/2, 1/4 or 1/8 size (JPEG's DCT scaling).
  public var supportsReducedDecode: Bool { header.fileFormat == .jpeg }

  /// The stored size a decode at `1/scaleDenominator` produces.
  public func decodedSize(scaleDenominator: Int) -> Size {
    let d = max(scaleDenominator, 1)
    return Size(width: (header.size.width + d - 1) / d, height: (header.size.height + d - 1) / d)
  }

  /// The name used in messages: the file's name, or "image data".
  public var name: String { url?.lastPathComponent ?? "image data" }

  /// True for a JPEG whose frame has four components (CMYK or YCCK), found by walking the
  /// markers up to the first SOF.
  var isCMYK: Bool {
    guard header.fileFormat == .jpeg else { return false }
    return bytes.withUnsafeBytes { (b: UnsafeRawBufferPointer) -> Bool in
      var i = 2
      while i + 9 < b.count {
        guard b[i] == 0xFF else { return false }
        let marker = b[i + 1]
        if marker == 0xFF { i += 1; continue }
        let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
        if (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC { return b[i + 9] == 4 }
        if marker == 0xDA || length < 2 { return false }
        i += 2 + length
      }
      return false
    }
  }

  /// Decodes the whole image and returns the decoders' corrupt-data warnings with it (libjpeg
  /// recovered from them: a truncated JPEG comes back with its missing rows gray). With
  /// `LoadOptions.strict`, JPEG warnings are errors instead.
  public func decodeReportingWarnings(scaleDenominator: Int = 1) throws -> (buffer: PixelBuffer, warnings: [String]) {
    switch header.fileFormat {
    case .jpeg:
      var options = JPEGDecodeOptions()
      options.scaleDenominator = scaleDenominator
      options.isStrict = self.options.strict
      let result = try JPEGDecoder.decodeReportingWarnings(bytes, options: options, limits: self.options.limits)
      return (result.buffer, result.warnings)
    case .png:
      let decoder = try PNGDecoder(data: bytes, limits: self.options.limits)
      let buffer = try decoder.decodeRemaining()
      return (buffer, decoder.warnings)
    }
  }

  /// Decodes the whole image (at reduced size for JPEGs when `scaleDenominator` > 1).
  public func decode(scaleDenominator: Int = 1) throws -> PixelBuffer {
    switch header.fileFormat {
    case .jpeg:
      var options = JPEGDecodeOptions()
      options.scaleDenominator = scaleDenominator
      options.isStrict = self.options.strict
      return try JPEGDecoder.decode(bytes, options: options, limits: self.options.limits)
    case .png:
      return try PNGDecoder.decode(bytes, limits: self.options.limits)
    }
  }

  /// A JPEG decoder started at `1/scaleDenominator`, ready for rows in order (streamed decoding);
  /// nil for PNG files.
  func startedJPEGDecoder(scaleDenominator: Int) throws -> JPEGDecoder? {
    guard header.fileFormat == .jpeg else { return nil }
    let decoder = try JPEGDecoder(data: bytes, limits: options.limits)
    var decodeOptions = JPEGDecodeOptions()
    decodeOptions.scaleDenominator = scaleDenominator
    decodeOptions.isStrict = options.strict
    try decoder.start(options: decodeOptions)
    return decoder
  }

  /// A short digest of bytes (FNV-1a over the length and a sample), enough to key a cache.
  static func digest(_ data: Data) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    data.withUnsafeBytes { raw in
      for b in raw.bindMemory(to: UInt8.self) {
        hash = (hash ^ UInt64(b)) &* 0x100_0000_01b3
      }
    }
    return String(hash, radix: 16) + "-\(data.count)"
  }
}
