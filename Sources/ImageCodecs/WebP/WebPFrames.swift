// WebPFrames.swift — an animated WebP's frames one at a time through libwebp's animation decoder
// (CWebP shim), which blends and disposes them on the canvas.
import CWebP
import Foundation
import PixelBufferModule

/// Reads an animated WebP's frames in order; libwebp holds the canvas and the previous one.
public final class WebPFrameReader: AnimationFrameReader {
  public let info: AnimationInfo
  public let frameFormat: PixelFormat
  private let frames: OpaquePointer
  /// What libwebp reads between calls; released after the reader (stored properties go after deinit).
  private let bytes: Bytes
  private let colorSpace: ColorSpace
  private var framesRead = 0
  /// The most bytes of a mapped file a frame's decode touched (its data, out to whole pages).
  private var largestFrameSpan = 0

  /// The file's bytes: a private copy, or a mapped file whose pages are released behind each frame.
  private enum Bytes {
    case pinned(PinnedBytes)
    case mapped(GuardedMapping)
  }

  /// Opens `data` (copied), checked against `limits` (canvas pixels, frames).
  public convenience init(_ data: Data, limits: DecodeLimits) throws {
    try self.init(data, bytes: .pinned(PinnedBytes(data)), limits: limits)
  }

  /// Opens the file `mapping` maps, checked against `limits`; its pages are given back once the
  /// decoder is open and after each frame, and a file truncated meanwhile is a `.truncated` error.
  convenience init(mapping: GuardedMapping, limits: DecodeLimits) throws {
    try self.init(mapping.data, bytes: .mapped(mapping), limits: limits)
    mapping.release()
    try checkMapping()
  }

  private init(_ data: Data, bytes: Bytes, limits: DecodeLimits) throws {
    let file = try WebPFile(data, limits: limits)
    info = try WebPCodec.animation(of: file, data: data, limits: limits)
    frameFormat = PixelFormat(layout: file.hasAlpha ? .rgba : .rgb, component: .uint8)
    colorSpace = file.iccProfile.map { .icc($0) } ?? .sRGB
    self.bytes = bytes
    let (base, count): (UnsafePointer<UInt8>?, Int)
    switch bytes {
    case .pinned(let pinned): (base, count) = (pinned.base, pinned.count)
    case .mapped(let mapping): (base, count) = (mapping.baseAddress.assumingMemoryBound(to: UInt8.self), mapping.byteCount)
    }
    var status: Int32 = 0
    var message = [CChar](repeating: 0, count: 256)
    guard let opened = cwebp_frames_open(base, count, &status, &message, message.count) else {
      try WebPFile.check(status, message)
      throw CodecError(.corrupt, "The animated WebP file cannot be opened.")
    }
    frames = opened
  }

  deinit { cwebp_frames_close(frames) }

  /// The whole file for bytes in memory; for a mapped file, the pages the largest frame's decode
  /// touched (each frame's are released after it). Not counted: while the decoder opens, libwebp's
  /// demuxer reads every chunk header, and the kernel maps the file's cached pages around each
  /// read (64 KiB), up to the whole file, released before the first frame (docs/Performance.md).
  public var heldInputBytes: Int {
    switch bytes {
    case .pinned(let pinned): return pinned.count
    case .mapped: return largestFrameSpan
    }
  }

  public func nextFrame() throws -> PixelBuffer? {
    guard framesRead < info.frameCount else { return nil }
    let channels = Int32(frameFormat.channelCount), rows = Int32(info.canvasSize.height), frames = frames
    let frame: PixelBuffer?
    do {
      frame = try composedFrame(number: framesRead + 1, colorSpace: colorSpace, end: Int32(CWEBP_END), check: WebPFile.check) {
        cwebp_frames_next(frames, channels, $0, $1, rows, &$2, 256)
      }
    } catch {
      try checkMapping()
      throw error
    }
    if case .mapped(let mapping) = bytes {
      var (offset, size) = (0, 0)
      cwebp_frames_last_extent(frames, &offset, &size)
      let page = 4096, window = 64 << 10
      // The kernel maps the cached pages of the 64 KiB-aligned window around each page read.
      let first = offset / window * window, end = min(mapping.byteCount, (offset + size + window - 1) / window * window)
      largestFrameSpan = max(largestFrameSpan, (end - first + page - 1) / page * page)
      mapping.release()
      try checkMapping()
    }
    if frame != nil { framesRead += 1 }
    return frame
  }

  /// Throws `.truncated` once a read of the mapped file went past its end (it shrank).
  private func checkMapping() throws {
    if case .mapped(let mapping) = bytes, mapping.wasTruncated {
      throw CodecError(.truncated, "The WebP file was truncated while it was read.")
    }
  }
}

extension WebPCodec: AnimationDecoding {
  public static func readAnimation(_ data: Data, limits: DecodeLimits) throws -> AnimationInfo {
    try animation(of: try WebPFile(data, limits: limits), data: data, limits: limits)
  }

  public static func makeFrameReader(_ data: Data, limits: DecodeLimits) throws -> any AnimationFrameReader {
    try WebPFrameReader(data, limits: limits)
  }

  public static func readAnimation(file: FileHandle, limits: DecodeLimits) throws -> AnimationInfo {
    try withMapping(file, limit: limits.maxInputBytes) { data, _ in try readAnimation(data, limits: limits) }
  }

  public static func makeFrameReader(file: FileHandle, limits: DecodeLimits) throws -> any AnimationFrameReader {
    guard let mapping = GuardedMapping(file) else {
      return try makeFrameReader(InputBytes.contents(of: file, name: "the WebP file", limit: limits.maxInputBytes), limits: limits)
    }
    return try WebPFrameReader(mapping: mapping, limits: limits)
  }

  /// The canvas, durations and loop count of `file` (read from `data`); a still file is one
  /// frame of no duration played once.
  static func animation(of file: WebPFile, data: Data, limits: DecodeLimits) throws -> AnimationInfo {
    guard file.isAnimated else { return AnimationInfo(canvasSize: file.size, delays: [0], loopCount: 1) }
    try limits.check(frameCount: file.frameCount, what: "animated WebP")
    var durations = [Int32](repeating: 0, count: file.frameCount)
    var message = [CChar](repeating: 0, count: 256)
    let status = data.withUnsafeBytes { raw in
      cwebp_read_durations(
        raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &durations, Int32(durations.count), &message, message.count)
    }
    try WebPFile.check(status, message)
    return AnimationInfo(canvasSize: file.size, delays: durations.map { Int($0) }, loopCount: file.loopCount)
  }
}
