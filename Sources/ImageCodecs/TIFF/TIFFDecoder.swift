// TIFFDecoder.swift — one page of a TIFF file, decoded by rows or by regions through libtiff.
import CTIFF
import Foundation
import PixelBufferModule
import Synchronization

/// Decodes one page of a TIFF file held in memory, through libtiff 4.5 (the CTIFF shim).
///
/// Output: gray, gray + alpha, RGB or RGBA (a palette expands to RGB; CMYK with an ICC profile goes
/// through it into 16-bit sRGB — see `CMYKConversion`; `header.cmykProfile` names the profile — and untagged CMYK is converted as
/// `1 − C` times `1 − K`, as the JPEG reader converts it), 8-bit for files of 1–8
/// bits (smaller codes are scaled to fill 8 bits), 16-bit for 9–16 bits, 32-bit float for 16-, 32-
/// and 64-bit float samples: precision is never reduced below the file's. Alpha is straight:
/// associated (premultiplied) alpha is divided out, and an unspecified extra sample is read as
/// unassociated alpha. Pages libtiff decodes only through its RGBA interface (subsampled YCbCr
/// without JPEG, CIE L*a*b*, LogLuv, old-style JPEG) come out as 8-bit RGB(A).
///
/// Metadata: the orientation tag → `metadata.orientation` (applied later like EXIF
/// orientation); the ICC profile of a gray or RGB page → `metadata.iccProfile` and
/// `colorSpace == .icc(profile)` (a CMYK page's profile is applied while decoding instead); XMP
/// (XMLPacket) → `xmp`, RichTIFFIPTC → `iptc`, ImageDescription → `comment`, and the page's EXIF
/// and GPS directories with its Make, Model… tags → `exif`, a standalone block (`TIFFEXIFBlock`).
///
/// Rows are decoded strip by strip (or by rows of tiles) as they are asked for, so reading a page
/// top to bottom holds one row of strips or tiles; `decodeRegion` decodes only the strips or
/// tiles a rectangle touches, and a decoder opened with a `region` reads that rectangle's rows
/// (the renderer's crops and tiles of a large page) without decoding the strips or tiles outside it.
///
/// Pyramids: the header lists the reduced-resolution levels the file stores of the page
/// (`ImageHeader.reducedLevelSizes`: its SubIFDs, and the directories marked reduced that follow
/// it, which are therefore not pages), and a decoder opened with a `level` reads one of them.
public final class TIFFDecoder: ImageRowDecoder {
  /// Size (of the selected page), decoded layout and component type, metadata, page count.
  public let header: ImageHeader
  /// The colour space decoded buffers are tagged with.
  public let colorSpace: ColorSpace
  /// The selected page (0-based).
  public let page: Int
  /// True when the page is stored in tiles (false: strips).
  public let isTiled: Bool
  /// The tile size, or the width and rows per strip.
  public let blockSize: Size
  /// True when the page stores CMYK (decoded as RGB).
  public let isCMYK: Bool
  /// True when the page stores associated (premultiplied) alpha.
  public let hasAssociatedAlpha: Bool
  /// The file's compression scheme (TIFF tag 259: 1 none, 5 LZW, 7 JPEG, 8 deflate, 32773 PackBits…).
  public let compression: Int
  /// Bits per stored sample.
  public let storedBitsPerSample: Int
  /// The number of rows handed out by `readRows` so far.
  public private(set) var rowsRead = 0
  /// The rectangle of the page `readRows` reads (the whole page unless opened with a region), in
  /// the coordinates of the level read.
  public let region: Rect
  /// The reduced-resolution level read (1-based, in the order of `header.reducedLevelSizes`), or
  /// 0 for the page itself.
  public let level: Int
  /// The size of what is read: the page's, or the size the decoder was opened to read a level at
  /// (its pixels beyond the level's own size repeat the level's last column and row).
  public let extent: Size
  /// Strips or tiles this decoder has decompressed so far (a block is decompressed once while
  /// consecutive reads stay within its row of blocks).
  public var blocksDecoded: Int { Int(ctiff_blocks_decoded(reader)) }
  /// Strips or tiles every TIFF decoder of the process has decompressed: tests read it before and
  /// after a render to see which blocks a crop or thumbnail of a file touched.
  public static var blocksDecodedInProcess: Int { processBlocks.load(ordering: .relaxed) }
  private static let processBlocks = Atomic<Int>(0)

  private let reader: OpaquePointer
  /// What libtiff reads: the encoded bytes in place (see `EncodedBytes`), a private copy of them,
  /// or an open file.
  private let input: Input
  enum Input {
    case bytes(Data, copy: UnsafeMutableRawBufferPointer?)
    case file(FileHandle)
  }
  private var failure: CodecError?
  /// The colour-managed conversion of a CMYK page with a usable profile.
  private let cmyk: CMYKConversion?
  /// Bytes of one pixel as the shim decodes it (CMYK pages before their conversion).
  private let storedPixelBytes: Int

  /// Opens `data`, selects page `page` and reads its header, checking its size against `limits`
  /// before any pixel memory is allocated. With `region`, `readRows` (and `decodeAll`) read only
  /// that rectangle of the page, in stored coordinates. A CMYK page with a usable profile is
  /// converted with `colorRendering`'s intent and black-point compensation.
  ///
  /// With `level` (1-based, see `header.reducedLevelSizes`), rows and regions come from that
  /// reduced-resolution level of the page instead, read as an image of `extent` (the level's own
  /// size when nil; at most one pixel larger in each direction, the level's last column and row
  /// repeated), with the page's header, colour space and metadata.
  ///
  /// - Throws: `CodecError` — `.corrupt`, `.truncated`, `.unsupported`, `.tooLarge`, or
  ///   `.invalidArgument` for a page or level the file does not have, an extent of another
  ///   size, or a region outside the page or extent.
  public convenience init(
    data: Data, page: Int = 0, level: Int = 0, extent: Size? = nil, limits: DecodeLimits = .default, region: Rect? = nil,
    colorRendering: ColorRendering = ColorRendering()
  ) throws {
    try Self.check(page: page)
    var copy: UnsafeMutableRawBufferPointer?
    if !EncodedBytes.isStable(data) {
      copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 16)
      data.copyBytes(to: copy!)
    }
    var status: Int32 = 0
    var message = [CChar](repeating: 0, count: 512)
    let opened = data.withUnsafeBytes { raw in
      let base = (copy.map { UnsafeRawBufferPointer($0) } ?? raw).baseAddress
      return ctiff_open(
        base?.assumingMemoryBound(to: UInt8.self), data.count, Self.maxAllocation(limits), &status, &message, message.count)
    }
    guard let opened else {
      copy?.deallocate()
      throw TIFFDecoder.error(status, String(cString: message))
    }
    try self.init(
      opened: opened, input: .bytes(data, copy: copy), page: page, level: level, extent: extent, limits: limits, region: region,
      rendering: colorRendering)
  }

  /// Opens the file open for reading on `file` like `init(data:…)`, reading it as libtiff asks —
  /// the directories, then each strip or tile as it is decoded — so the file is never held in
  /// memory whole. The decoder keeps `file` open; its offset is neither used nor moved.
  ///
  /// - Throws: as `init(data:…)`, and `.io` when the file cannot be read.
  public convenience init(
    file: FileHandle, page: Int = 0, level: Int = 0, extent: Size? = nil, limits: DecodeLimits = .default, region: Rect? = nil,
    colorRendering: ColorRendering = ColorRendering()
  ) throws {
    try Self.check(page: page)
    var status: Int32 = 0
    var message = [CChar](repeating: 0, count: 512)
    guard let opened = ctiff_open_fd(file.fileDescriptor, Self.maxAllocation(limits), &status, &message, message.count) else {
      throw TIFFDecoder.error(status, String(cString: message))
    }
    try self.init(
      opened: opened, input: .file(file), page: page, level: level, extent: extent, limits: limits, region: region,
      rendering: colorRendering)
  }

  private static func check(page: Int) throws {
    guard page >= 0, page <= Int(UInt32.max) else {
      throw CodecError(.invalidArgument, "A TIFF page number must be 0 or more, not \(page).")
    }
  }

  /// No single allocation libtiff makes may exceed what the largest allowed page could need
  /// (16-bit RGBA, 8 bytes a pixel), nor less than 64 MiB for directories and codec state.
  private static func maxAllocation(_ limits: DecodeLimits) -> UInt64 {
    let (bytes, overflow) = limits.maxPixels.multipliedReportingOverflow(by: 8)
    return UInt64(clamping: max(64 << 20, overflow ? Int.max : bytes))
  }

  /// Selects `page` (and `level`) of the opened reader and reads its header (closing the reader,
  /// and freeing a private copy of the bytes, when that fails).
  private init(
    opened: OpaquePointer, input: Input, page: Int, level: Int, extent: Size?, limits: DecodeLimits, region: Rect?,
    rendering: ColorRendering
  ) throws {
    var info = ctiff_info()
    var cmyk: CMYKConversion?
    var cmykProfile: Data?
    var headerWarnings: [String] = []
    var leftOut: [LeftOutMetadata] = []
    var levelSizes: [Size] = []
    var metadata = ImageMetadata()
    var pageInfo = ctiff_info()
    var extentRead = Size(width: 0, height: 0)
    do {
      var count: Int32 = 0
      var widths = [UInt32](repeating: 0, count: Int(CTIFF_MAX_LEVELS)), heights = widths
      var selected = ctiff_levels(opened, UInt32(page), &count, &widths, &heights)
      if Int(selected) != CTIFF_OK { throw TIFFDecoder.error(selected, String(cString: ctiff_message(opened))) }
      levelSizes = (0..<Int(count)).map { Size(width: Int(widths[$0]), height: Int(heights[$0])) }
      selected = ctiff_select(opened, UInt32(page), 0, &info)
      if Int(selected) != CTIFF_OK { throw TIFFDecoder.error(selected, String(cString: ctiff_message(opened))) }
      try limits.check(width: Int(info.width), height: Int(info.height), what: "TIFF page")
      for (kind, name, length) in [(LeftOutMetadata.Kind.xmp, "XMP", Int(info.xmp_length)), (.iptc, "IPTC", Int(info.iptc_length))]
      where length > MetadataLimits.maxBlockBytes {
        leftOut.append(MetadataLimits.leftOut(kind, "The TIFF's \(name) tag", bytes: length))
      }
      guard level >= 0, level <= levelSizes.count else {
        throw CodecError(
          .invalidArgument, "Page \(page) of the TIFF file has \(levelSizes.count) reduced-resolution levels; level \(level) does not exist.")
      }
      // A CMYK page with a profile goes through it (8- and 16-bit samples; float CMYK and
      // unusable profiles take the naive conversion).
      if info.is_cmyk != 0, info.through_rgba == 0, info.sample_bytes != 4, let icc = info.icc, info.icc_length > 0 {
        let hasAlpha = info.channels == 4
        let profile = Data(bytes: icc, count: Int(info.icc_length))
        let (conversion, problem) = CMYKConversion.make(
          iccProfile: profile, sampleBytes: Int(info.sample_bytes), hasAlpha: hasAlpha, rendering: rendering)
        if let conversion {
          selected = ctiff_select(opened, UInt32(page), 1, &info)
          if Int(selected) != CTIFF_OK { throw TIFFDecoder.error(selected, String(cString: ctiff_message(opened))) }
          cmyk = conversion
          cmykProfile = profile
        } else if let problem {
          headerWarnings.append("Its CMYK page was converted without its ICC profile (\(problem)): its colours are approximate.")
        }
      }
      metadata = Self.metadata(info, input: input)
      pageInfo = info
      if level > 0 {
        // The level decodes like the page (ctiff_levels checked its channels and sample size).
        selected = ctiff_select_level(opened, UInt32(page), Int32(level), cmyk != nil ? 1 : 0, &info)
        if Int(selected) != CTIFF_OK { throw TIFFDecoder.error(selected, String(cString: ctiff_message(opened))) }
      }
      let stored = Size(width: Int(info.width), height: Int(info.height))
      extentRead = extent ?? stored
      guard extentRead.width >= stored.width, extentRead.height >= stored.height, extentRead.width <= stored.width + 1,
        extentRead.height <= stored.height + 1
      else {
        throw CodecError(.invalidArgument, "A TIFF level of \(stored) cannot be read as \(extentRead).")
      }
      selected = ctiff_set_extent(opened, UInt32(extentRead.width), UInt32(extentRead.height))
      if Int(selected) != CTIFF_OK { throw TIFFDecoder.error(selected, String(cString: ctiff_message(opened))) }
      if let region {
        guard region.width > 0, region.height > 0, region.x >= 0, region.y >= 0, region.maxX <= extentRead.width,
          region.maxY <= extentRead.height
        else {
          throw CodecError(.invalidArgument, "The region \(region) is not inside the \(extentRead.width)×\(extentRead.height) TIFF page.")
        }
      }
    } catch {
      ctiff_close(opened)
      if case .bytes(_, let copy) = input { copy?.deallocate() }
      throw error
    }
    self.cmyk = cmyk
    reader = opened
    self.input = input
    self.page = page
    self.level = level
    self.extent = extentRead

    let layout: ChannelLayout
    switch pageInfo.channels {
    case 1: layout = .gray
    case 2: layout = .grayAlpha
    case 3: layout = .rgb
    case 4 where cmyk != nil: layout = .rgb
    default: layout = .rgba
    }
    storedPixelBytes = Int(info.channels) * Int(info.sample_bytes)
    let component: ComponentType =
      cmyk != nil ? .uint16 : pageInfo.sample_bytes == 1 ? .uint8 : pageInfo.sample_bytes == 2 ? .uint16 : .float32
    isCMYK = pageInfo.is_cmyk != 0
    colorSpace = metadata.iccProfile.map { .icc($0) } ?? .sRGB
    header = ImageHeader(
      fileFormat: .tiff, size: Size(width: Int(pageInfo.width), height: Int(pageInfo.height)), layout: layout, component: component,
      metadata: metadata, pageCount: Int(pageInfo.page_count), reducedLevelSizes: levelSizes, cmykProfile: cmykProfile,
      warnings: headerWarnings, leftOutMetadata: leftOut)
    self.region = region ?? Rect(x: 0, y: 0, width: extentRead.width, height: extentRead.height)
    isTiled = info.is_tiled != 0
    blockSize = Size(width: Int(info.block_width), height: Int(info.block_height))
    hasAssociatedAlpha = info.associated_alpha != 0
    compression = Int(info.compression)
    storedBitsPerSample = Int(info.bits_per_sample)
  }

  deinit {
    ctiff_close(reader)
    if case .bytes(_, let copy) = input { copy?.deallocate() }
  }

  /// The pixel format of decoded buffers.
  public var outputFormat: PixelFormat { PixelFormat(layout: header.layout, component: header.component) }
  /// The size of the page, or of the region it was opened with.
  public var outputSize: Size { Size(width: region.width, height: region.height) }

  /// Warnings libtiff gave (unknown tags, odd but readable values…), in its words.
  public var warnings: [String] {
    (0..<ctiff_warning_count(reader)).map { String(cString: ctiff_warning(reader, $0)) }
  }

  /// A new, uninitialised buffer of `rows` rows (default: the whole page or region) in the decoded
  /// format, colour space and metadata.
  public func makeBuffer(rows: Int? = nil) throws -> PixelBuffer {
    try PixelBuffer.forDecoding(
      width: region.width, height: region.height, rows: rows, format: outputFormat, colorSpace: colorSpace,
      metadata: header.metadata)
  }

  /// Decodes the next `count` rows of the page or region (fewer at the bottom) into `buffer` from
  /// its row `destinationRow`, and returns how many were decoded.
  ///
  /// - Throws: `.invalidArgument` for a buffer of the wrong width, format or height; `CodecError`
  ///   for damaged data (the decoder then stays failed).
  public func readRows(_ count: Int, into buffer: inout PixelBuffer, at destinationRow: Int) throws -> Int {
    guard buffer.width == region.width, buffer.format == outputFormat else {
      throw CodecError(
        .invalidArgument,
        "The buffer for TIFF rows is \(buffer.width) pixels wide in \(buffer.format); "
          + "\(region.width) pixels in \(outputFormat) are needed.")
    }
    let wanted = min(max(count, 0), region.height - rowsRead)
    guard destinationRow >= 0, destinationRow + wanted <= buffer.height else {
      throw CodecError(.invalidArgument, "The buffer has \(buffer.height) rows; \(wanted) rows at row \(destinationRow) do not fit.")
    }
    guard wanted > 0 else { return 0 }
    try decode(Rect(x: region.x, y: region.y + rowsRead, width: region.width, height: wanted), into: &buffer, at: destinationRow)
    rowsRead += wanted
    return wanted
  }

  /// Decodes the pixels inside `region` (in stored coordinates of the page or level read, before
  /// orientation; inside `extent`) into a new buffer of its size. Only the strips or tiles the region touches are decoded. Independent of
  /// `readRows`: regions may be read in any order.
  ///
  /// - Throws: `.invalidArgument` for a region outside the page; `CodecError` for damaged data.
  public func decodeRegion(_ region: Rect) throws -> PixelBuffer {
    guard region.width > 0, region.height > 0, region.x >= 0, region.y >= 0, region.maxX <= extent.width, region.maxY <= extent.height
    else {
      throw CodecError(.invalidArgument, "The region \(region) is not inside the \(extent) TIFF page.")
    }
    var buffer = try PixelBuffer.forDecoding(
      width: region.width, height: region.height, format: outputFormat, colorSpace: colorSpace, metadata: header.metadata)
    try decode(region, into: &buffer, at: 0)
    return buffer
  }

  private func decode(_ region: Rect, into buffer: inout PixelBuffer, at destinationRow: Int) throws {
    if let failure { throw failure }
    let before = ctiff_blocks_decoded(reader)
    defer { Self.processBlocks.add(Int(ctiff_blocks_decoded(reader) - before), ordering: .relaxed) }
    let reader = self.reader
    let status: Int32
    if let cmyk {
      // CMYK(A) rows from the shim, then through the profile into the buffer.
      let rowBytes = region.width * storedPixelBytes
      let stored = malloc(rowBytes * region.height), scratch = malloc(region.width * 16)?.assumingMemoryBound(to: Float.self)
      defer {
        free(stored)
        free(scratch)
      }
      guard let stored, let scratch else {
        throw CodecError(.tooLarge, "There is not enough memory to convert \(region.width)×\(region.height) CMYK pixels.")
      }
      status = ctiff_read_region(
        reader, UInt32(region.x), UInt32(region.y), UInt32(region.width), UInt32(region.height),
        stored.assumingMemoryBound(to: UInt8.self), rowBytes)
      if Int(status) == CTIFF_OK {
        buffer.withUnsafeMutableBaseAddress { base, stride in
          for y in 0..<region.height {
            cmyk.convert(
              stored + y * rowBytes, width: region.width,
              into: (base + (destinationRow + y) * stride).assumingMemoryBound(to: UInt16.self), scratch: scratch)
          }
        }
      }
    } else {
      status = buffer.withUnsafeMutableBaseAddress { base, stride in
        ctiff_read_region(
          reader, UInt32(region.x), UInt32(region.y), UInt32(region.width), UInt32(region.height),
          (base + destinationRow * stride).assumingMemoryBound(to: UInt8.self), stride)
      }
    }
    guard Int(status) == CTIFF_OK else {
      let error = TIFFDecoder.error(status, String(cString: ctiff_message(reader)))
      if Int(status) != CTIFF_INVALID { failure = error }
      throw error
    }
  }

  /// The CodecError for a shim status and message.
  static func error(_ status: Int32, _ message: String) -> CodecError {
    error(Int(status), message)
  }

  /// The CodecError for a shim status and message.
  static func error(_ status: Int, _ message: String) -> CodecError {
    let text = message.isEmpty ? "The TIFF file cannot be read." : message
    switch status {
    case CTIFF_TRUNCATED: return CodecError(.truncated, truncation(text))
    case CTIFF_UNSUPPORTED: return CodecError(.unsupported, text)
    case CTIFF_NO_MEMORY: return CodecError(.tooLarge, text)
    case CTIFF_INVALID: return CodecError(.invalidArgument, text)
    case CTIFF_IO: return CodecError(.io, text)
    default: return CodecError(.corrupt, text)
    }
  }
}
