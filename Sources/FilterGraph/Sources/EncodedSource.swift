// EncodedSource.swift — an image file (or bytes) whose header is read and pixels are not yet.

import Foundation
import ImageCodecs
import PixelBufferModule

/// An encoded image: where its bytes are, what its header says, and how to decode it.
///
/// Instances are shared by every `Image` made from the same load, and identified for the decode
/// cache by path, size and modification time (files) or by a digest of the bytes (memory).
public final class EncodedSource: Sendable {
  /// The file, when the source is one.
  public let url: URL?
  /// The header read when the source was created.
  public let header: ImageHeader
  /// How it is to be decoded.
  public let options: LoadOptions
  /// The decode cache's identity for these bytes.
  public let identity: String
  /// The codec the bytes' first bytes named.
  public let codec: any ImageCodec.Type
  private let input: Input
  /// `identity` before the load options are added to it.
  private let bytesIdentity: String

  /// The encoded bytes, when they are held in memory (not for a file read in place).
  var bytes: Data? {
    if case .bytes(let data) = input { return data }
    return nil
  }

  /// The bytes in memory, or a file kept open for a codec that reads files in place.
  private enum Input {
    case bytes(Data)
    case file(FileHandle, codec: any FileReadingCodec.Type)
  }

  /// Reads the header of the file at `url` (the pixels are decoded later).
  ///
  /// A file of a codec that reads files in place (`FileReadingCodec`: TIFF, PNG and APNG, JPEG,
  /// GIF, animated WebP) is kept open and read as its decoders ask, so a large file is never held
  /// whole; a file truncated while it is read
  /// is then a `.truncated` error. Other files are read into memory, not memory-mapped: a mapping
  /// saves ~1,500 page faults (about 2 ms) on a 6.5 MB file, but a file truncated by another
  /// process while it is being decoded would then kill the process with SIGBUS instead of giving
  /// a `.truncated` error — a whole batch lost to one file changing under it (libvips reads with
  /// `read()` for the same reason). The decoders read these bytes in place, without a further copy.
  ///
  /// With `mapping`, a regular file is memory-mapped instead, for a caller that reads the header
  /// alone (`ImageFileInfo`): only the pages the header parser touches are read, so describing a
  /// 1 GB file does not hold 1 GB. The mapping is guarded (`GuardedMapping`): a page past the end
  /// of a file truncated meanwhile reads as zeros instead of raising SIGBUS, and the header is
  /// then refused as `.truncated`. The file is still held to `--max-input-bytes`, as when it is read.
  public convenience init(contentsOf url: URL, options: LoadOptions, mapping: Bool = false) throws {
    let unreadable = {
      var isFolder: ObjCBool = false
      let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder)
      let bytes = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber
      let reason =
        !exists ? "does not exist" : isFolder.boolValue ? "is a folder, not a file" : bytes?.intValue == 0 ? "is empty (0 bytes)" : "cannot be read"
      return CodecError(.io, "The input file \(url.path) \(reason).")
    }
    guard let handle = try? FileHandle(forReadingFrom: url), let head = try? handle.read(upToCount: CodecRegistry.sniffLength), !head.isEmpty else {
      throw unreadable()
    }
    let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
    let mtime = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
    let identity = { (size: Int) in "file:\(url.standardizedFileURL.path)@\(size)@\(mtime)" }
    if let codec = CodecRegistry.sniff(head) as? any FileReadingCodec.Type,
      codec.readsInPlace(file: handle, request: Self.request(options, scaleDenominator: 1))
    {
      let size = (attributes?[.size] as? NSNumber)?.intValue ?? 0
      try self.init(input: .file(handle, codec: codec), url: url, identity: identity(size), options: options)
      return
    }
    let data: Data
    let name = "the input file \(url.path)"
    try InputBytes.check(size: (attributes?[.size] as? NSNumber)?.intValue ?? 0, name: name, limit: options.limits.maxInputBytes)
    if mapping, let mapped = GuardedMapping(handle) {
      try self.init(mapped: mapped, url: url, identity: identity(mapped.byteCount), options: options)
      return
    }
    do {
      data =
        try Self.pooledContents(of: handle)
        ?? InputBytes.read(descriptor: handle.fileDescriptor, prefix: head, name: name, limit: options.limits.maxInputBytes)
    } catch let error as CodecError where error.kind == .tooLarge {
      throw error
    } catch let error as PixelAllocationError {
      throw CodecError(.tooLarge, "There is not enough memory to read \(name) (\(error.amount) could not be allocated).")
    } catch {
      throw unreadable()
    }
    try self.init(input: .bytes(data), url: url, identity: identity(data.count), options: options)
  }

  /// Reads the header of a mapped file; a file truncated while it was read is `.truncated`,
  /// whatever the parser made of the zeros it was given instead.
  convenience init(mapped: GuardedMapping, url: URL, identity: String, options: LoadOptions) throws {
    let truncated = CodecError(.truncated, "The input file \(url.path) was truncated while it was read.")
    do {
      try self.init(input: .bytes(mapped.data), url: url, identity: identity, options: options)
    } catch {
      throw mapped.wasTruncated ? truncated : error
    }
    if mapped.wasTruncated { throw truncated }
  }

  /// The largest file read into pooled memory (`pooledContents`).
  static let pooledFileBytes = 64 << 20

  /// The whole of a regular file of at most `pooledFileBytes`, read into memory from the tile
  /// pool, which returns there when the bytes are released: in a batch each file reuses memory
  /// the previous ones mapped, instead of faulting in (and having the kernel clear) fresh pages
  /// for every file (about 2.5 % of a thumbnail batch's CPU time, measured on W10). Nil for other
  /// files, or one that grows while it is read: those are read with `Data(contentsOf:)`.
  private static func pooledContents(of handle: FileHandle) throws -> Data? {
    let fd = handle.fileDescriptor
    var info = stat()
    guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0, info.st_size <= pooledFileBytes else {
      return nil
    }
    let size = Int(info.st_size)
    let storage = try TileMemoryPool.storage(byteCount: size + 1, counted: false)
    let base = storage.baseAddress
    var done = 0
    // One byte more than the size asks whether the file grew since `fstat`.
    while done <= size {
      let got = pread(fd, base + done, size + 1 - done, off_t(done))
      if got < 0 {
        if errno == EINTR { continue }
        throw CodecError(.io, "The input file could not be read (errno \(errno)).")
      }
      if got == 0 { break }
      done += got
    }
    guard done <= size else { return nil }
    return Data(bytesNoCopy: base, count: done, deallocator: .custom { _, _ in withExtendedLifetime(storage) {} })
  }

  /// Reads the header of encoded bytes held in memory.
  public convenience init(data: Data, options: LoadOptions) throws {
    try self.init(input: .bytes(data), url: nil, identity: "data:\(EncodedSource.digest(data))", options: options)
  }

  private init(input: Input, url: URL?, identity: String, options: LoadOptions) throws {
    self.input = input
    self.url = url
    // A strict load of the same bytes must not be served a lenient decode from the cache, nor one
    // page another's.
    let chosen = options.formatOptions.values.sorted { $0.key < $1.key }.map { "/\($0.key)=\($0.value)" }.joined()
    self.identity = (options.strict ? identity + "/strict" : identity) + chosen
    self.bytesIdentity = identity
    self.options = options
    let name = url?.lastPathComponent ?? "image data"
    let sniffed: (any ImageCodec.Type)?
    switch input {
    case .bytes(let data): sniffed = CodecRegistry.sniff(data.prefix(CodecRegistry.sniffLength))
    case .file(_, let codec): sniffed = codec
    }
    guard let codec = sniffed else {
      let known = CodecRegistry.codecs.map { $0.displayName }.joined(separator: ", ")
      throw CodecError(.unsupported, "\(name) is not an image file FilterGraph reads (\(known)): unrecognised first bytes.")
    }
    self.codec = codec
    self.header = try EncodedSource.readHeader(input, codec: codec, options: options, name: name)
  }

  /// The same bytes read as page `page` of a multi-page file (frame `page` of an animation),
  /// whose decoders then have no other pages to report as left out.
  func reading(page: Int) throws -> EncodedSource {
    var options = self.options
    options.formatOptions.values[FormatOption.page.name] = .integer(page)
    return try EncodedSource(input: input, url: url, identity: bytesIdentity, options: options)
  }

  /// The header of `input` as `codec` reads it, after checking the decode options.
  private static func readHeader(
    _ input: Input, codec: any ImageCodec.Type, options: LoadOptions, name: String
  ) throws -> ImageHeader {
    _ = try options.formatOptions.resolved(by: codec.decodeOptions)
    let request = request(options, scaleDenominator: 1)
    if request.page != 0, !codec.decodeOptions.contains(where: { $0.name == FormatOption.page.name }) {
      throw CodecError(.invalidArgument, "\(name): FilterGraph reads only page 0 of \(codec.displayName) files, not page \(request.page).")
    }
    switch input {
    case .bytes(let data): return try codec.readHeader(data, request: request)
    case .file(let handle, let codec): return try codec.readHeader(file: handle, request: request)
    }
  }

  /// The canvas, delays and loop count `decoding` (the source's codec) reads from the bytes or the
  /// file read in place.
  func animation(_ decoding: any AnimationDecoding.Type) throws -> AnimationInfo {
    switch input {
    case .bytes(let data): return try decoding.readAnimation(data, limits: options.limits)
    case .file(let handle, _): return try decoding.readAnimation(file: handle, limits: options.limits)
    }
  }

  /// A reader of the frames, from the bytes or the file read in place.
  func frameReader(_ decoding: any AnimationDecoding.Type) throws -> any AnimationFrameReader {
    switch input {
    case .bytes(let data): return try decoding.makeFrameReader(data, limits: options.limits)
    case .file(let handle, _): return try decoding.makeFrameReader(file: handle, limits: options.limits)
    }
  }

  /// The scale denominators (besides 1) the codec decodes at directly (shrink-on-load).
  public var reducedScaleDenominators: [Int] { codec.reducedScaleDenominators(for: header) }
  /// How much more than asked a decode reduced by `denominator` must keep
  /// (`ImageCodec.reductionMargin(denominator:)`).
  public func reductionMargin(denominator: Int) -> Double { codec.reductionMargin(denominator: denominator) }
  /// Whether a reduced decode is made of d × d blocks (`ImageCodec.reducesInBlocks`).
  public var reducesInBlocks: Bool { codec.reducesInBlocks }

  /// The size of the reduced copy stored in the file (a TIFF pyramid level) that a decode at
  /// `1/scaleDenominator` reads, or nil when it reads the full-size image.
  public func storedLevelSize(scaleDenominator: Int) -> Size? {
    codec.storedLevelSize(for: header, scaleDenominator: scaleDenominator)
  }

  /// The stored size a decode at `1/scaleDenominator` produces.
  public func decodedSize(scaleDenominator: Int) -> Size {
    let d = max(scaleDenominator, 1)
    return Size(width: (header.size.width + d - 1) / d, height: (header.size.height + d - 1) / d)
  }

  /// The name used in messages: the file's name, or "image data".
  public var name: String { url?.lastPathComponent ?? "image data" }

  /// True for a JPEG whose frame has four components (CMYK or YCCK).
  var isCMYK: Bool { header.isStoredAsCMYK }

  /// Decodes the whole image (at 1/`scaleDenominator` size, one of `reducedScaleDenominators`),
  /// or only `region` of it when the codec `decodesRegions`, and returns the decoder's
  /// corrupt-data warnings with it (libjpeg recovered from them: a truncated JPEG comes back with
  /// its missing rows gray). With `LoadOptions.strict`, such damage is an error instead. A CMYK
  /// file with a profile (`header.cmykProfile`) is converted with `colorRendering`.
  public func decodeReportingWarnings(
    scaleDenominator: Int = 1, region: Rect? = nil, colorRendering: ColorRendering = ColorRendering()
  ) throws -> (buffer: PixelBuffer, warnings: [String]) {
    let decoder = try startedDecoder(scaleDenominator: scaleDenominator, region: region, colorRendering: colorRendering)
    let buffer = try decoder.decodeAll()
    return (buffer, decoder.warnings)
  }

  /// Decodes the whole image (at 1/`scaleDenominator` size, one of `reducedScaleDenominators`),
  /// or only `region` of it (in that size's coordinates) when the codec `decodesRegions`.
  ///
  /// - Throws: `CodecError` — the decoder's errors, and `.invalidArgument` for a region of a
  ///   codec that decodes whole images only, or a region outside the image.
  public func decode(scaleDenominator: Int = 1, region: Rect? = nil) throws -> PixelBuffer {
    try decodeReportingWarnings(scaleDenominator: scaleDenominator, region: region).buffer
  }

  /// A decoder started at `1/scaleDenominator` (of `region` only, when given; CMYK converted with
  /// `colorRendering`), ready for rows in order.
  func startedDecoder(
    scaleDenominator: Int, region: Rect? = nil, colorRendering: ColorRendering = ColorRendering()
  ) throws -> any ImageRowDecoder {
    if region != nil, !codec.decodesRegions {
      throw CodecError(.invalidArgument, "\(name): \(codec.displayName) files decode whole, not by region.")
    }
    var request = Self.request(options, scaleDenominator: scaleDenominator, region: region)
    request.colorRendering = colorRendering
    switch input {
    case .bytes(let data): return try codec.makeDecoder(data, request: request)
    case .file(let handle, let codec): return try codec.makeDecoder(file: handle, request: request)
    }
  }

  private static func request(_ options: LoadOptions, scaleDenominator: Int, region: Rect? = nil) -> DecodeRequest {
    DecodeRequest(
      scaleDenominator: scaleDenominator, isStrict: options.strict, limits: options.limits,
      options: options.formatOptions, region: region)
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
