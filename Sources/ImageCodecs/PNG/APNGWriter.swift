// APNGWriter.swift — animated PNG (APNG 1.0) written frame by frame with the PNG writer's
// filtering and libdeflate compression (cpng_segment_encode).
//
// The file is PNG's signature and header chunks, acTL (frames, plays), then per frame an fcTL
// (its rectangle, delay, dispose and blend operations) and its image data: IDAT for frame 1,
// which is the whole canvas and the image a PNG reader without APNG support shows, fdAT for the
// others. Frame k > 1 stores only the bounding rectangle R_k of the pixels where F_k differs from
// F_(k−1) (a 1×1 rectangle at the origin when none do) and is never disposed of, so the canvas
// it is drawn on is F_(k−1):
//   - blend OVER, when the image has alpha and every changed pixel is opaque: changed pixels
//     stored as they are, unchanged ones as transparent black (so they deflate to almost
//     nothing), and OVER leaves F_(k−1) under them;
//   - blend SOURCE otherwise: R_k of F_k as it is.
// Either way the canvas after frame k is F_k exactly. A delay of d ms is stored as the reduced
// fraction d / 1000 s (to the nearest 1/100, 1/10 or whole second when the numerator would pass
// 65535); the loop count is acTL's plays (0 forever). acTL states the number of frames before
// them, so the writer is told it when it starts, and each chunk goes to the `AnimationOutput` as
// it is made (a frame's compressed stream straight from the compressor's buffer). With a single
// frame the file is a plain PNG (no acTL, no fcTL).
import CPNG
import Foundation
import PixelBufferModule

/// Writes an APNG to an `AnimationOutput`; holds the previous frame as shown (its RGB or RGBA
/// samples), the frame being compared with it, and the rectangle being compressed with its
/// compressed bytes.
public final class APNGAnimationWriter: AnimationFrameWriter {
  private let size: Size
  private let channels: Int
  private let options: PNGEncodeOptions
  private let output: AnimationOutput
  /// The number of frames acTL states (1: a plain PNG).
  private let expectedFrames: Int
  /// The previous frame's samples, rows packed (nil before the first frame).
  private var previous: PixelStorage?
  private var frameCount = 0
  private var sequence: UInt32 = 0

  /// The warnings of the header (an ICC profile left out).
  public private(set) var warnings: [String] = []

  /// Starts an APNG of `frameCount` frames of `size` in `layout` (RGB or RGBA, 8-bit) played
  /// `loopCount` times (0 forever), compressed as `options` say, with `metadata`'s EXIF, XMP and
  /// comment chunks, written to `output` (nil: to memory).
  public init(
    size: Size, layout: ChannelLayout, loopCount: Int, frameCount: Int, options: PNGEncodeOptions, metadata: ImageMetadata,
    output: AnimationOutput? = nil
  ) throws {
    try options.validate()
    try MetadataLimits.checkWritable(exif: metadata.exif, xmp: metadata.xmp, comment: metadata.comment, format: "PNG")
    guard layout == .rgb || layout == .rgba else {
      throw CodecError(.invalidArgument, "APNG frames are written as RGB or RGBA, not \(layout).")
    }
    guard size.width > 0, size.height > 0, size.width <= Int(Int32.max), size.height <= Int(Int32.max),
      size.width.multipliedReportingOverflow(by: size.height * layout.channelCount).overflow == false
    else {
      throw CodecError(.invalidArgument, "An APNG cannot be \(size.width)×\(size.height) pixels.")
    }
    guard (0...Int(UInt32.max >> 1)).contains(loopCount) else {
      throw CodecError(.invalidArgument, "An APNG's loop count is 0 (forever) or more, not \(loopCount).")
    }
    guard (1...Int(UInt32.max >> 1)).contains(frameCount) else {
      throw CodecError(.invalidArgument, "An APNG has 1 frame or more, not \(frameCount).")
    }
    self.size = size
    channels = layout.channelCount
    self.options = options
    let (header, warnings) = try PNGStreamEncoder.header(
      size: size, channels: channels, bitDepth: 8, options: options, colorSpace: .sRGB, metadata: metadata)
    self.warnings = warnings
    let output = output ?? AnimationOutput(handle: nil, format: "animated PNG")
    self.output = output
    expectedFrames = frameCount
    try output.write(header)
    if frameCount > 1 {
      var control = Data()
      control.appendBigEndian(UInt32(frameCount))
      control.appendBigEndian(UInt32(loopCount))
      try writeChunk("acTL", control)
    }
  }

  /// The previous frame, the frame being added, and at most one frame's rectangle and its
  /// compressed bytes (`PNGCodec.animationWriterStateBytes`).
  public var stateBytes: Int { PNGCodec.heldBytes(size, 4 * channels) }

  /// `delay` ms as APNG's delay fraction (numerator, denominator) of seconds.
  static func delayFraction(_ delay: Int) -> (UInt16, UInt16) {
    let ms = max(0, delay)
    var a = ms, b = 1000
    while b != 0 { (a, b) = (b, a % b) }  // gcd(ms, 1000)
    if ms / a <= 65535 { return (UInt16(ms / a), UInt16(1000 / a)) }
    for denominator in [100, 10, 1] {
      let numerator = (ms * denominator + 500) / 1000
      if numerator <= 65535 { return (UInt16(numerator), UInt16(denominator)) }
    }
    return (65535, 1)
  }

  public func add(_ frame: PixelBuffer, delay: Int) throws {
    try frame.checkAnimationFrame(of: size, format: "An APNG")
    guard frameCount < expectedFrames else {
      throw CodecError(.invalidArgument, "The APNG was started for \(expectedFrames) frames (its acTL chunk says so); frame \(frameCount + 1) is one too many.")
    }
    guard frame.format.channelCount == channels else {
      throw CodecError(.invalidArgument, "An APNG frame must have \(channels) channels like the first, not \(frame.format.channelCount).")
    }
    let rowBytes = size.width * channels
    let current = try PixelStorage.forEncoding(rowBytes * size.height, what: "frame \(frameCount + 1)'s samples", file: "the APNG")
    frame.withUnsafeBaseAddress { base, stride in
      for y in 0..<size.height {
        (current.baseAddress + y * rowBytes).copyMemory(from: base + y * stride, byteCount: rowBytes)
      }
    }
    let (rect, blendOver) = previous.map { changes(current, from: $0) } ?? (Rect(x: 0, y: 0, width: size.width, height: size.height), false)
    var control = Data()
    control.appendBigEndian(sequence)
    control.appendBigEndian(UInt32(rect.width))
    control.appendBigEndian(UInt32(rect.height))
    control.appendBigEndian(UInt32(rect.x))
    control.appendBigEndian(UInt32(rect.y))
    let (numerator, denominator) = Self.delayFraction(delay)
    control.append(contentsOf: [UInt8(numerator >> 8), UInt8(numerator & 0xFF), UInt8(denominator >> 8), UInt8(denominator & 0xFF)])
    control.append(contentsOf: [0, blendOver ? 1 : 0])  // dispose NONE; blend SOURCE or OVER
    sequence += 1
    if expectedFrames > 1 { try writeChunk("fcTL", control) }
    try compress(rectangle(rect, of: current, transparentWhereUnchanged: blendOver), rect: rect)
    previous = current
    frameCount += 1
  }

  /// Writes the zlib stream `header`, `deflated`, `adler` (big-endian) as the frame's IDAT
  /// chunks (frame 1) or fdAT chunks (each led by its sequence number), at most 2³⁰ stream bytes
  /// a chunk.
  private func writeImageData(header: [UInt8], deflated: UnsafePointer<UInt8>, count: Int, adler: UInt32) throws {
    let trailer = [UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)]
    try header.withUnsafeBytes { header in
      try trailer.withUnsafeBytes { trailer in
        let stream = [header, UnsafeRawBufferPointer(start: deflated, count: count), trailer]
        let total = header.count + count + trailer.count
        var offset = 0
        repeat {
          let n = min(total - offset, 1 << 30)
          // The stream's bytes offset..<offset + n, from its three parts.
          var parts: [UnsafeRawBufferPointer] = []
          var partStart = 0
          for part in stream {
            let lower = max(offset, partStart), upper = min(offset + n, partStart + part.count)
            if lower < upper { parts.append(UnsafeRawBufferPointer(rebasing: part[(lower - partStart)..<(upper - partStart)])) }
            partStart += part.count
          }
          if frameCount == 0 {
            try writeChunk("IDAT", parts)
          } else {
            let number = [UInt8(sequence >> 24), UInt8(sequence >> 16 & 0xFF), UInt8(sequence >> 8 & 0xFF), UInt8(sequence & 0xFF)]
            try number.withUnsafeBytes { try writeChunk("fdAT", [$0] + parts) }
            sequence += 1
          }
          offset += n
        } while offset < total
      }
    }
  }

  /// Writes the chunk `type` whose payload is `parts`, one after the other, and its CRC.
  private func writeChunk(_ type: String, _ parts: [UnsafeRawBufferPointer]) throws {
    precondition(type.utf8.count == 4, "a PNG chunk type")
    let length = parts.reduce(0) { $0 + $1.count }
    precondition(length <= Int(Int32.max), "a PNG chunk's length")
    let lead = [UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + Array(type.utf8)
    var crc = lead.withUnsafeBufferPointer { cpng_crc32(0, $0.baseAddress! + 4, 4) }
    for part in parts where part.count > 0 {
      crc = cpng_crc32(crc, part.baseAddress!.assumingMemoryBound(to: UInt8.self), part.count)
    }
    try output.write(lead)
    for part in parts { try output.write(part) }
    try output.write([UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
  }

  /// Writes the chunk `type` with `payload`.
  private func writeChunk(_ type: String, _ payload: Data) throws {
    try payload.withUnsafeBytes { try writeChunk(type, [$0]) }
  }

  /// The bounding rectangle of the pixels where `current` differs from `previous` (1×1 at the
  /// origin when none does), and whether every one of them is opaque (blend OVER).
  private func changes(_ current: PixelStorage, from previous: PixelStorage) -> (Rect, Bool) {
    let channels = channels, rowBytes = size.width * channels
    guard
      let rect = changedRectangle(
        current.baseAddress, stride: rowBytes, previous.baseAddress, stride: rowBytes, size: size, pixelBytes: channels)
    else { return (Rect(x: 0, y: 0, width: 1, height: 1), channels == 4) }
    guard channels == 4 else { return (rect, false) }
    let now = current.baseAddress.assumingMemoryBound(to: UInt8.self), before = previous.baseAddress.assumingMemoryBound(to: UInt8.self)
    for y in rect.y..<(rect.y + rect.height) {
      for x in rect.x..<(rect.x + rect.width) {
        let p = y * rowBytes + x * 4
        if now[p + 3] != 255 && memcmp(now + p, before + p, 4) != 0 { return (rect, false) }
      }
    }
    return (rect, true)
  }

  /// The samples of `rect` of `current`, rows packed; with `transparentWhereUnchanged`, pixels
  /// equal to the previous frame's are transparent black.
  private func rectangle(_ rect: Rect, of storage: PixelStorage, transparentWhereUnchanged: Bool) throws -> PixelStorage {
    let channels = channels, canvasRow = size.width * channels, rowBytes = rect.width * channels
    let outStorage = try PixelStorage.forEncoding(rowBytes * rect.height, what: "frame \(frameCount + 1)'s changed rectangle", file: "the APNG")
    let out = outStorage.baseAddress.assumingMemoryBound(to: UInt8.self), current = storage.baseAddress.assumingMemoryBound(to: UInt8.self)
    let previous = (self.previous ?? storage).baseAddress.assumingMemoryBound(to: UInt8.self)
    for y in 0..<rect.height {
      let source = (rect.y + y) * canvasRow + rect.x * channels
      for i in 0..<rowBytes { out[y * rowBytes + i] = current[source + i] }
      guard transparentWhereUnchanged else { continue }
      for x in 0..<rect.width {
        let p = source + x * channels
        if current[p] == previous[p] && current[p + 1] == previous[p + 1] && current[p + 2] == previous[p + 2] && current[p + 3] == previous[p + 3] {
          for c in 0..<4 { out[y * rowBytes + x * 4 + c] = 0 }
        }
      }
    }
    return outStorage
  }

  /// `pixels` (the rows of `rect`) filtered and compressed as one zlib stream, appended as the
  /// frame's image data.
  private func compress(_ pixels: PixelStorage, rect: Rect) throws {
    var out: UnsafeMutablePointer<UInt8>?
    var length = 0, filtered = 0
    var adler: UInt32 = 1
    let level = Int32(options.compressionLevel)
    let status = cpng_segment_encode(
      pixels.baseAddress.assumingMemoryBound(to: UInt8.self), rect.width * channels, UInt32(rect.height), 0, UInt32(rect.height),
      Int32(channels), 0, options.filter.shimMask, level, 1, &out, &length, &adler, &filtered)
    defer { cpng_free(out) }
    guard status == CPNG_OK, let out else {
      if status == CPNG_ERR_NO_MEMORY {
        throw CodecError(.tooLarge, "There is not enough memory to write the APNG: compressing frame \(frameCount + 1) could not allocate its buffers.")
      }
      throw CodecError(.invalidArgument, "Compressing APNG frame \(frameCount + 1) failed (status \(status)).")
    }
    try writeImageData(header: PNGStreamEncoder.zlibHeader(level: level), deflated: out, count: length, adler: adler)
  }

  public func finish() throws -> Data? {
    guard frameCount == expectedFrames else {
      throw CodecError(.invalidArgument, "The APNG was started for \(expectedFrames) frames (its acTL chunk says so), but \(frameCount) were added.")
    }
    try writeChunk("IEND", [UnsafeRawBufferPointer]())
    return try output.finish()
  }
}

extension PNGCodec: AnimationEncoding {
  /// An APNG, with the PNG writer's compression and filter options; frames are 8-bit.
  public static func makeAnimationWriter(
    size: Size, layout: ChannelLayout, loopCount: Int, frameCount: Int, options: ResolvedFormatOptions, metadata: ImageMetadata,
    executor: (any CodecExecutor)?, output: AnimationOutput
  ) throws -> any AnimationFrameWriter {
    let encode = EncodeOptions(options)
    if encode.bitDepth == .uint16 {
      throw CodecError(.invalidArgument, "An animated PNG (APNG) is written at 8 bits per channel; drop bit-depth=16 or write one frame with --frame N.")
    }
    return try APNGAnimationWriter(
      size: size, layout: layout, loopCount: loopCount, frameCount: frameCount, options: encode.png, metadata: metadata, output: output)
  }
}
