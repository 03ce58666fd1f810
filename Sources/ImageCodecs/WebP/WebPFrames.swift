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
  /// libwebp reads these between calls; released after the reader (stored properties go after deinit).
  private let bytes: PinnedBytes
  private let colorSpace: ColorSpace
  private var framesRead = 0

  /// Opens `data` (copied), checked against `limits` (canvas pixels, frames).
  public init(_ data: Data, limits: DecodeLimits) throws {
    let file = try WebPFile(data, limits: limits)
    info = try WebPCodec.animation(of: file, data: data, limits: limits)
    frameFormat = PixelFormat(layout: file.hasAlpha ? .rgba : .rgb, component: .uint8)
    colorSpace = file.iccProfile.map { .icc($0) } ?? .sRGB
    bytes = PinnedBytes(data)
    var status: Int32 = 0
    var message = [CChar](repeating: 0, count: 256)
    guard let opened = cwebp_frames_open(bytes.base, bytes.count, &status, &message, message.count) else {
      try WebPFile.check(status, message)
      throw CodecError(.corrupt, "The animated WebP file cannot be opened.")
    }
    frames = opened
  }

  deinit { cwebp_frames_close(frames) }

  public func nextFrame() throws -> PixelBuffer? {
    guard framesRead < info.frameCount else { return nil }
    let channels = Int32(frameFormat.channelCount), rows = Int32(info.canvasSize.height), frames = frames
    let frame = try composedFrame(number: framesRead + 1, colorSpace: colorSpace, end: Int32(CWEBP_END), check: WebPFile.check) {
      cwebp_frames_next(frames, channels, $0, $1, rows, &$2, 256)
    }
    if frame != nil { framesRead += 1 }
    return frame
  }
}

extension WebPCodec: AnimationDecoding {
  public static func readAnimation(_ data: Data, limits: DecodeLimits) throws -> AnimationInfo {
    try animation(of: try WebPFile(data, limits: limits), data: data, limits: limits)
  }

  public static func makeFrameReader(_ data: Data, limits: DecodeLimits) throws -> any AnimationFrameReader {
    try WebPFrameReader(data, limits: limits)
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
