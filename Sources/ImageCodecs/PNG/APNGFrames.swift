// APNGFrames.swift — an APNG's frames one at a time, composed on the canvas as browsers show them.
//
// The chunk structure (acTL, fcTL, fdAT) is read without decoding pixels. Frame i's image data
// (IDAT when the first fcTL precedes it, else its fdAT chunks without their sequence numbers) is
// decoded by the still PNG reader as a PNG of its own: IHDR with the frame's size, the file's
// chunks before IDAT (PLTE, tRNS, gAMA, iCCP …), the data as IDAT. With C the canvas (8-bit
// straight RGBA, transparent black at first) and F the frame over its region R:
//   blend SOURCE:  C(R) = F
//   blend OVER:    α = αF + αC(1 − αF),  c = (cF αF + cC αC (1 − αF)) / α   (0 where α = 0)
// The frame shown is C; then dispose NONE keeps C, BACKGROUND clears R to transparent black,
// PREVIOUS restores R as it was before the frame (on the first frame, as BACKGROUND).
// The reader holds the canvas and, for PREVIOUS, the saved region: one frame whatever the count.
import CPNG
import Foundation
import PixelBufferModule

/// The animation chunks of an APNG file, read and checked without decoding any pixels.
struct APNGStructure {
  /// How a frame's region is left for the next frame.
  enum Dispose: UInt8 { case none = 0, background = 1, previous = 2 }

  /// One frame's control chunk and where its compressed data lies in the file.
  struct Frame {
    var region: Rect
    var delay: Int
    var dispose: Dispose
    /// OVER (true) or SOURCE (false).
    var blendsOver: Bool
    /// The payloads of the frame's IDAT or fdAT chunks (fdAT without its sequence number).
    var data: [Range<Int>] = []
  }

  var canvasSize: Size
  var frames: [Frame]
  /// acTL's num_plays: 0 forever.
  var loopCount: Int
  /// IHDR's payload.
  var header: [UInt8]
  /// The payloads of the chunks between IHDR and the first IDAT other than acTL and fcTL
  /// (PLTE, tRNS, colour chunks), with their types: each frame's PNG carries them.
  var ancillary: [(type: String, payload: Range<Int>)]
  /// Whether a frame can leave a pixel not opaque: an alpha channel or tRNS, a first frame
  /// smaller than the canvas, or a frame before the last cleared to the background.
  var hasAlpha: Bool

  /// The structure of `data`, or nil for a PNG without an acTL chunk before its image data (a
  /// still image). Checks the frame count against `limits` before reading the frames.
  ///
  /// - Throws: `CodecError` — `.tooLarge` for more frames than `limits.maxFrames`; `.corrupt`
  ///   for chunks out of sequence, an fdAT without its fcTL, a frame outside the canvas, a frame
  ///   without data, or a frame count other than acTL's; `.truncated` for a file cut short.
  init?(_ data: Data, limits: DecodeLimits) throws {
    try self.init(MemoryBytes(data), limits: limits)
  }

  /// The structure of the file `file` reads, walked a chunk header at a time (the CRC of acTL,
  /// fcTL and fdAT chunks read through in pieces): what it holds is the chunks' positions, not
  /// their data. As `init(_:limits:)`.
  init?(_ file: RandomAccessBytes, limits: DecodeLimits) throws {
    let count = file.byteCount
    func corrupt(_ message: String) -> CodecError { CodecError(.corrupt, "APNG: \(message)") }
    guard count >= 33 else { throw corrupt("the file has no IHDR chunk.") }
    let start = [UInt8](try file.bytes(0..<33))
    func u32(_ b: [UInt8], _ at: Int) -> Int { Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3]) }
    func u16(_ b: [UInt8], _ at: Int) -> Int { Int(b[at]) << 8 | Int(b[at + 1]) }
    guard u32(start, 12) == 0x4948_4452 else { throw corrupt("the file has no IHDR chunk.") }
    header = Array(start[16..<29])
    canvasSize = Size(width: u32(start, 16), height: u32(start, 20))
    let colorType = start[25]
    var offset = 33, sequence = 0, expected = 0
    var seenImageData = false, defaultIsFrame = false
    var declared: Int?
    var frames: [Frame] = [], ancillary: [(String, Range<Int>)] = [], loops = 0, hasTransparency = colorType & 4 != 0
    while true {
      guard offset + 12 <= count else { throw CodecError(.truncated, "APNG: the file ends before its IEND chunk.") }
      let chunk = [UInt8](try file.bytes(offset..<offset + 8))
      let length = u32(chunk, 0), payload = offset + 8
      let type = String(decoding: chunk[4..<8], as: UTF8.self)
      // acTL comes before the image data: without it the file is a still PNG, read (and its
      // damage reported) by the still reader.
      if type == "IDAT" && declared == nil { return nil }
      guard length < 1 << 31, payload + length + 4 <= count else {
        throw CodecError(.truncated, "APNG: the \(type) chunk at byte \(offset) ends past the end of the file.")
      }
      let body = payload..<payload + length
      // The control chunks' payloads (acTL 8 bytes, fcTL 26; an fdAT's sequence number).
      var fields: [UInt8] = []
      if ["acTL", "fcTL", "fdAT"].contains(type) {
        let crc = try file.crc32(offset + 4..<body.upperBound)
        guard crc == UInt32(u32([UInt8](try file.bytes(body.upperBound..<body.upperBound + 4)), 0)) else {
          throw corrupt("the \(type) chunk at byte \(offset) fails its CRC check.")
        }
        fields = [UInt8](try file.bytes(body.lowerBound..<body.lowerBound + min(length, type == "fdAT" ? 4 : 26)))
      }
      offset = body.upperBound + 4
      switch type {
      case "IEND":
        guard let declared else { return nil }
        guard frames.count == declared else { throw corrupt("acTL declares \(declared) frames but the file holds \(frames.count).") }
        if let empty = frames.firstIndex(where: { $0.data.isEmpty }) { throw corrupt("frame \(empty + 1) has no image data.") }
        self.frames = frames
        self.ancillary = ancillary
        loopCount = loops
        let first = frames[0].region
        hasAlpha =
          hasTransparency || first.size != canvasSize
          || frames.dropLast().contains { $0.dispose == .background } || frames[0].dispose == .previous && frames.count > 1
        return
      case "acTL" where !seenImageData:
        guard length == 8, declared == nil else { throw corrupt("the acTL chunk is malformed or repeated.") }
        let count = u32(fields, 0)
        guard count > 0 else { throw corrupt("acTL declares no frames.") }
        try limits.check(frameCount: count, what: "APNG")
        (declared, loops) = (count, u32(fields, 4))
      case "fcTL", "fdAT":
        guard declared != nil else { break }  // an fcTL or fdAT without acTL is ignored, as in a still PNG
        guard length >= 4 else { throw corrupt("the \(type) chunk at byte \(body.lowerBound - 8) is too short.") }
        sequence = u32(fields, 0)
        guard sequence == expected else {
          throw corrupt("the \(type) chunk has sequence number \(sequence) where \(expected) was expected (chunks out of order).")
        }
        expected += 1
        if type == "fdAT" {
          guard let last = frames.indices.last, !(defaultIsFrame && last == 0) else {
            throw corrupt("an fdAT chunk (sequence number \(sequence)) comes before any fcTL chunk of its frame.")
          }
          frames[last].data.append(body.lowerBound + 4..<body.upperBound)
          break
        }
        guard length == 26 else { throw corrupt("the fcTL chunk (sequence number \(sequence)) is \(length) bytes, not 26.") }
        guard frames.count < declared! else { throw corrupt("the file holds more frames than the \(declared!) acTL declares.") }
        let at = 4
        let region = Rect(x: u32(fields, at + 8), y: u32(fields, at + 12), width: u32(fields, at), height: u32(fields, at + 4))
        let number = frames.count + 1
        guard region.width > 0, region.height > 0, region.x + region.width <= canvasSize.width,
          region.y + region.height <= canvasSize.height
        else {
          throw corrupt(
            "frame \(number) (\(region.width)x\(region.height) at \(region.x),\(region.y)) lies outside the \(canvasSize) canvas.")
        }
        guard let dispose = Dispose(rawValue: fields[at + 20]), fields[at + 21] <= 1 else {
          throw corrupt("frame \(number) has dispose op \(fields[at + 20]) or blend op \(fields[at + 21]), which do not exist.")
        }
        if !seenImageData {
          guard region == Rect(x: 0, y: 0, width: canvasSize.width, height: canvasSize.height) else {
            throw corrupt("frame 1 is the default image but covers \(region.width)x\(region.height) at \(region.x),\(region.y), not the whole canvas.")
          }
          defaultIsFrame = true
        }
        let numerator = u16(fields, at + 16), denominator = u16(fields, at + 18) == 0 ? 100 : u16(fields, at + 18)
        frames.append(
          Frame(
            region: region, delay: (numerator * 1000 + denominator / 2) / denominator, dispose: dispose,
            blendsOver: fields[at + 21] == 1))
      case "IDAT":
        if defaultIsFrame { frames[0].data.append(body) }
        seenImageData = true
      case "IHDR":
        throw corrupt("the file has a second IHDR chunk.")
      default:
        if !seenImageData {
          ancillary.append((type, body))
          if type == "tRNS" { hasTransparency = true }
        }
      }
    }
  }
}

/// Reads an APNG's frames in order, each composed on the canvas by its blend and dispose ops.
public final class APNGFrameReader: AnimationFrameReader {
  public let info: AnimationInfo
  public let frameFormat: PixelFormat
  /// The file's bytes: in memory, or a file read in place (`FileWindow`).
  private let input: RandomAccessBytes
  private let structure: APNGStructure
  private let limits: DecodeLimits
  /// The composed canvas, 8-bit straight RGBA.
  private var canvas: PixelBuffer
  /// The region the last frame shown leaves to the next, and how.
  private var pendingDispose: (region: Rect, dispose: APNGStructure.Dispose, saved: PixelBuffer?)?
  private var framesRead = 0
  /// The largest frame's PNG made so far (its compressed data and the chunks before IDAT).
  private var largestFramePNG = 0

  /// Opens `data` (kept), checked against `limits` (canvas pixels, frames); a still PNG is one frame.
  public convenience init(_ data: Data, limits: DecodeLimits) throws {
    try self.init(MemoryBytes(data), limits: limits)
  }

  /// Opens the bytes `input` reads, checked against `limits` (canvas pixels, frames); each frame's
  /// data is read when it is decoded.
  init(_ input: RandomAccessBytes, limits: DecodeLimits) throws {
    let size = PNGDecoder.headerSize(try input.bytes(0..<min(24, input.byteCount)))
    try limits.check(width: size?.0 ?? 0, height: size?.1 ?? 0, what: "PNG image")
    guard let structure = try APNGStructure(input, limits: limits) else {
      throw CodecError(.invalidArgument, "The PNG file is not an animation (it has no acTL chunk).")
    }
    self.input = input
    self.structure = structure
    self.limits = limits
    info = PNGCodec.animation(of: structure)
    frameFormat = PixelFormat(layout: structure.hasAlpha ? .rgba : .rgb, component: .uint8)
    canvas = try PixelBuffer.forDecoding(
      width: structure.canvasSize.width, height: structure.canvasSize.height, format: PixelFormat(layout: .rgba, component: .uint8),
      colorSpace: .sRGB, metadata: ImageMetadata())
    let rows = structure.canvasSize.height
    canvas.withUnsafeMutableBaseAddress { base, stride in _ = base.initializeMemory(as: UInt8.self, repeating: 0, count: stride * rows) }
  }

  /// The whole file for bytes in memory; for a file, its window of chunk headers and the largest
  /// frame's data, made into a PNG of its own while it decodes.
  public var heldInputBytes: Int {
    guard let file = input as? FileWindow else { return input.byteCount }
    return file.mostHeld + largestFramePNG
  }

  public func nextFrame() throws -> PixelBuffer? {
    guard framesRead < structure.frames.count else { return nil }
    let frame = structure.frames[framesRead]
    let pixels: PixelBuffer
    do {
      pixels = try decode(frame)
    } catch let error as CodecError {
      throw CodecError(error.kind, "Frame \(framesRead + 1): \(error.message)")
    }
    if framesRead == 0 { canvas.colorSpace = pixels.colorSpace }
    if let pending = pendingDispose { dispose(pending.region, pending.dispose, saved: pending.saved) }
    let dispose = framesRead == 0 && frame.dispose == .previous ? .background : frame.dispose
    pendingDispose = (frame.region, dispose, dispose == .previous ? try copy(of: frame.region) : nil)
    compose(pixels, at: frame.region, over: frame.blendsOver)
    framesRead += 1
    return frameFormat.layout == .rgba ? canvas : canvas.converted(to: frameFormat)
  }

  /// The frame's pixels, 8-bit RGBA: its data decoded as a PNG of the frame's size, which is held
  /// to `limits.maxInputBytes` (the bytes of the file held in memory at once).
  private func decode(_ frame: APNGStructure.Frame) throws -> PixelBuffer {
    let held = frame.data.reduce(structure.ancillary.reduce(0) { $0 + $1.payload.count }) { $0 + $1.count }
    guard held <= limits.maxInputBytes else {
      throw CodecError(
        .tooLarge,
        "its data is \(held) bytes, more than the \(limits.maxInputBytes) an input may hold in memory; raise the limit (--max-input-bytes) if you trust it.")
    }
    var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    var header = Data(structure.header)
    header.replaceSubrange(0..<8, with: [UInt32(frame.region.width), UInt32(frame.region.height)].flatMap { $0.bigEndianBytes })
    PNGStreamEncoder.appendChunk("IHDR", header, to: &png)
    for chunk in structure.ancillary { PNGStreamEncoder.appendChunk(chunk.type, try input.bytes(chunk.payload), to: &png) }
    for part in frame.data { PNGStreamEncoder.appendChunk("IDAT", try input.bytes(part), to: &png) }
    PNGStreamEncoder.appendChunk("IEND", Data(), to: &png)
    largestFramePNG = max(largestFramePNG, png.count)
    return try PNGDecoder.decode(png, limits: limits).converted(to: PixelFormat(layout: .rgba, component: .uint8))
  }

  /// Writes `pixels` over the canvas region `region`, replacing it or composed over it.
  private func compose(_ pixels: PixelBuffer, at region: Rect, over: Bool) {
    pixels.withUnsafeBaseAddress { source, sourceStride in
      canvas.withUnsafeMutableBaseAddress { target, targetStride in
        for y in 0..<region.height {
          let from = source.advanced(by: y * sourceStride).assumingMemoryBound(to: UInt8.self)
          let to = target.advanced(by: (region.y + y) * targetStride + region.x * 4).assumingMemoryBound(to: UInt8.self)
          guard over else {
            to.update(from: from, count: region.width * 4)
            continue
          }
          for x in 0..<region.width { Self.blend(from + 4 * x, over: to + 4 * x) }
        }
      }
    }
  }

  /// Straight-alpha "over" of one 8-bit RGBA pixel onto another, rounded to nearest.
  static func blend(_ source: UnsafePointer<UInt8>, over target: UnsafeMutablePointer<UInt8>) {
    let sourceAlpha = Int(source[3])
    if sourceAlpha == 255 || target[3] == 0 {
      if sourceAlpha != 0 || target[3] == 0 { target.update(from: source, count: 4) }
      return
    }
    if sourceAlpha == 0 { return }
    // Weights in units of 1/255²: the source's 255·αF, the target's αC·(255 − αF).
    let sourceWeight = sourceAlpha * 255, targetWeight = Int(target[3]) * (255 - sourceAlpha)
    let total = sourceWeight + targetWeight
    for c in 0..<3 {
      target[c] = UInt8((Int(source[c]) * sourceWeight + Int(target[c]) * targetWeight + total / 2) / total)
    }
    target[3] = UInt8((total + 127) / 255)
  }

  /// A copy of the canvas's `region`, for restoring it.
  private func copy(of region: Rect) throws -> PixelBuffer {
    var saved = try PixelBuffer.forDecoding(
      width: region.width, height: region.height, format: canvas.format, colorSpace: canvas.colorSpace, metadata: ImageMetadata())
    canvas.withUnsafeBaseAddress { source, sourceStride in
      saved.withUnsafeMutableBaseAddress { target, targetStride in
        for y in 0..<region.height {
          target.advanced(by: y * targetStride).copyMemory(
            from: source.advanced(by: (region.y + y) * sourceStride + region.x * 4), byteCount: region.width * 4)
        }
      }
    }
    return saved
  }

  /// Leaves `region` as `dispose` says: kept, cleared, or restored from `saved`.
  private func dispose(_ region: Rect, _ dispose: APNGStructure.Dispose, saved: PixelBuffer?) {
    switch dispose {
    case .none: return
    case .previous: if let saved { compose(saved, at: region, over: false) }
    case .background:
      canvas.withUnsafeMutableBaseAddress { base, stride in
        for y in region.y..<region.y + region.height {
          _ = (base + y * stride + region.x * 4).initializeMemory(as: UInt8.self, repeating: 0, count: region.width * 4)
        }
      }
    }
  }
}

extension PNGCodec: AnimationDecoding {
  /// An APNG's canvas, delays and loop count; a still PNG is one frame of no duration played once.
  public static func readAnimation(_ data: Data, limits: DecodeLimits) throws -> AnimationInfo {
    try readAnimation(MemoryBytes(data), limits: limits)
  }

  private static func readAnimation(_ input: RandomAccessBytes, limits: DecodeLimits) throws -> AnimationInfo {
    guard let structure = try APNGStructure(input, limits: limits) else {
      let size = PNGDecoder.headerSize(try input.bytes(0..<min(24, input.byteCount))).map { Size(width: $0.0, height: $0.1) }
      return AnimationInfo(canvasSize: size ?? Size(width: 0, height: 0), delays: [0], loopCount: 1)
    }
    return animation(of: structure)
  }

  public static func makeFrameReader(_ data: Data, limits: DecodeLimits) throws -> any AnimationFrameReader {
    try APNGFrameReader(data, limits: limits)
  }

  /// As `readAnimation(_:limits:)`, walking the file's chunks through its descriptor.
  public static func readAnimation(file: FileHandle, limits: DecodeLimits) throws -> AnimationInfo {
    guard let size = InputBytes.regularFileSize(file.fileDescriptor) else {
      return try readAnimation(InputBytes.contents(of: file, name: "the PNG file", limit: limits.maxInputBytes), limits: limits)
    }
    return try readAnimation(FileWindow(file, size: size), limits: limits)
  }

  /// A reader of the file read in place: its chunk headers through a window, each frame's data
  /// when the frame is decoded.
  public static func makeFrameReader(file: FileHandle, limits: DecodeLimits) throws -> any AnimationFrameReader {
    guard let size = InputBytes.regularFileSize(file.fileDescriptor) else {
      return try makeFrameReader(InputBytes.contents(of: file, name: "the PNG file", limit: limits.maxInputBytes), limits: limits)
    }
    return try APNGFrameReader(FileWindow(file, size: size), limits: limits)
  }

  static func animation(of structure: APNGStructure) -> AnimationInfo {
    AnimationInfo(canvasSize: structure.canvasSize, delays: structure.frames.map(\.delay), loopCount: structure.loopCount)
  }
}

extension UInt32 {
  /// The four bytes, most significant first.
  fileprivate var bigEndianBytes: [UInt8] { [UInt8(self >> 24), UInt8(self >> 16 & 255), UInt8(self >> 8 & 255), UInt8(self & 255)] }
}
