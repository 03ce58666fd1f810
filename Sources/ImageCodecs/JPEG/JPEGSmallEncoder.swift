// JPEGSmallEncoder.swift — the perceptual encoder's back end of JPEGStreamEncoder: rows are
// gathered into one 8-bit image, then coded in one call (cj_small_encode: the shim's own DCT,
// masking-driven trellis quantisation and libjpeg-turbo's entropy coder; Sources/CJPEG/small.h
// defines what it computes).
import CJPEG
import Foundation
import PixelBufferModule

/// Holds the image until `finish()`, because choosing each block's coefficients and optimal
/// Huffman tables (and 4:4:4 or 4:2:0 for `.automatic`) needs all of it: width × height ×
/// channels bytes, plus libjpeg's coefficient arrays while coding (2 bytes per sample of each
/// component).
final class JPEGSmallEncoder {
  private let size: Size
  private let layout: ChannelLayout
  private let options: JPEGEncodeOptions
  private let icc: [UInt8]?
  private let segments: [JPEGSegment]
  private let output: OutputHandle?
  /// The image's 8-bit samples, rows packed (nil once coded).
  private var pixels: PixelStorage?
  private var rowsWritten = 0

  /// - Throws: `.tooLarge` when the system refuses the memory to hold the image.
  init(size: Size, layout: ChannelLayout, options: JPEGEncodeOptions, icc: [UInt8]?, segments: [JPEGSegment], output: OutputHandle?) throws {
    self.size = size
    self.layout = layout
    self.options = options
    self.icc = icc
    self.segments = segments
    self.output = output
    let samples = size.width.multipliedReportingOverflow(by: size.height)
    pixels = try PixelStorage.forEncoding(
      samples.overflow ? .max : samples.partialValue, of: layout.channelCount,
      what: "the \(size.width)×\(size.height) image the small encoder holds", file: output?.path ?? "the JPEG")
  }

  /// Copies `rows` (already checked by JPEGStreamEncoder) as the next rows, keeping the high byte
  /// of 16-bit values and dropping alpha.
  func write(rows: PixelBuffer) throws {
    let channels = layout.channelCount, rowLength = size.width * channels
    guard let pixels else { throw CodecError(.invalidArgument, "The JPEG has already been coded.") }
    let inChannels = rows.format.channelCount, wide = rows.format.component != .uint8
    let out = pixels.baseAddress.assumingMemoryBound(to: UInt8.self)
    rows.withUnsafeBaseAddress { base, rowBytes in
      for y in 0..<rows.height {
        let dst = out + (rowsWritten + y) * rowLength
        let line = base + y * rowBytes
        if !wide && inChannels == channels {
          dst.update(from: line.assumingMemoryBound(to: UInt8.self), count: rowLength)
        } else if !wide {
          let src = line.assumingMemoryBound(to: UInt8.self)
          for x in 0..<size.width {
            for c in 0..<channels { dst[x * channels + c] = src[x * inChannels + c] }
          }
        } else {
          let src = line.assumingMemoryBound(to: UInt16.self)
          for x in 0..<size.width {
            for c in 0..<channels { dst[x * channels + c] = UInt8(src[x * inChannels + c] >> 8) }
          }
        }
      }
    }
    rowsWritten += rows.height
  }

  /// Codes the image; returns its bytes, or nil when they went to the output handle.
  func finish() throws -> Data? {
    guard let handle = output.map({ cj_encoder_create_fd($0.fileDescriptor) }) ?? cj_encoder_create() else {
      throw CodecError(.tooLarge, "Out of memory creating a JPEG encoder.")
    }
    defer { cj_encoder_destroy(handle) }
    let subsampling: cj_subsampling
    switch options.chromaSubsampling {
    case .s444: subsampling = CJ_SUBSAMPLE_444
    case .s422: subsampling = CJ_SUBSAMPLE_422
    case .s420: subsampling = CJ_SUBSAMPLE_420
    case .automatic: subsampling = CJ_SUBSAMPLE_AUTO
    }
    var bytes: UnsafePointer<UInt8>?
    var length = 0
    let channels = layout.channelCount
    let status = icc.withOptionalBytes { iccBytes in segments.withMarkers { markers, markerCount in
      var params = cj_encode_params(
        width: UInt32(size.width), height: UInt32(size.height), components: Int32(channels),
        quality: Int32(options.quality), subsampling: Int32(bitPattern: subsampling.rawValue),
        progressive: 1, optimize_coding: 1,
        icc: iccBytes?.baseAddress, icc_length: iccBytes?.count ?? 0, restart_interval: 0,
        markers: markers, marker_count: markerCount)
      return cj_small_encode(
        handle, &params, pixels?.baseAddress.assumingMemoryBound(to: UInt8.self), size.width * channels, &bytes, &length)
    } }
    pixels = nil
    if let error = JPEGStreamEncoder.error(handle, status, output: output) { throw error }
    if output != nil { return nil }
    guard let bytes else { return Data() }
    return Data(bytes: bytes, count: length)
  }
}
