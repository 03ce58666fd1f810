// PNGStreamEncoder+Chunks.swift — the PNG chunks PNGStreamEncoder (PNGStreamEncoder.swift) writes
// around the image data: length, type, payload and CRC; metadata chunks; the zlib-compressed ICC profile.

import CPNG
import Foundation
import PixelBufferModule

extension PNGStreamEncoder {
  /// The signature, IHDR, the colour chunk (iCCP for `.icc`, sRGB for `.sRGB` when
  /// `options.writeSRGBChunk`) and the metadata chunks of a PNG of `channels` (1…4) at `bitDepth`;
  /// with the warnings for what was left out (an ICC profile that does not suit the image).
  static func header(
    size: Size, channels: Int, bitDepth: Int, options: PNGEncodeOptions, colorSpace: ColorSpace, metadata: ImageMetadata
  ) throws -> (Data, warnings: [String]) {
    var header = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    var warnings: [String] = []
    var ihdr = Data()
    ihdr.appendBigEndian(UInt32(size.width))
    ihdr.appendBigEndian(UInt32(size.height))
    let colorType: UInt8 = [0, 4, 2, 6][channels - 1]
    ihdr.append(contentsOf: [UInt8(bitDepth), colorType, 0, 0, 0])
    appendChunk("IHDR", ihdr, to: &header)
    switch colorSpace {
    case .icc(let profile):
      if let problem = iccProblem(profile, channels: channels) {
        warnings.append("The ICC profile was left out of the PNG: \(problem).")
      } else {
        var iccp = Data("ICC profile".utf8)
        iccp.append(contentsOf: [0, 0])
        iccp.append(try zlibCompress(profile))
        appendChunk("iCCP", iccp, to: &header)
      }
    case .sRGB where options.writeSRGBChunk:
      appendChunk("sRGB", Data([0]), to: &header)
    default: break
    }
    if metadata.hasDescriptiveBlocks { appendMetadata(metadata, to: &header) }
    return (header, warnings)
  }

  /// A zlib stream's two header bytes (CMF: deflate, 32 KiB window; FLG: the level class of
  /// `level` 0…9, no dictionary, check bits).
  static func zlibHeader(level: Int32) -> [UInt8] {
    let cmf: UInt8 = 0x78
    let flevel: UInt8 = level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3
    var flg = flevel << 6
    flg += UInt8(31 - (Int(cmf) * 256 + Int(flg)) % 31)
    return [cmf, flg]
  }

  static func appendChunk(_ type: String, _ payload: Data, to out: inout Data) {
    out.appendBigEndian(UInt32(payload.count))
    let typeBytes = Data(type.utf8)
    out.append(typeBytes)
    out.append(payload)
    var crc = typeBytes.withUnsafeBytes { cpng_crc32(0, $0.bindMemory(to: UInt8.self).baseAddress, $0.count) }
    crc = payload.withUnsafeBytes { raw in
      raw.count == 0 ? crc : cpng_crc32(crc, raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
    }
    out.appendBigEndian(crc)
  }

  /// Appends the eXIf, XMP iTXt and Comment chunks of `metadata`.
  static func appendMetadata(_ metadata: ImageMetadata, to header: inout Data) {
    if let exif = metadata.exif { appendChunk("eXIf", exif, to: &header) }
    if let xmp = metadata.xmp {
      // keyword, NUL, uncompressed (0, 0), empty language tag and translated keyword.
      appendChunk("iTXt", Data(PNGTextChunks.xmpKeyword.utf8) + [0, 0, 0, 0, 0] + xmp, to: &header)
    }
    if let comment = metadata.comment {
      let keyword = Data(PNGTextChunks.commentKeyword.utf8)
      if comment.unicodeScalars.allSatisfy({ $0.value < 256 && $0.value != 0 }) {
        appendChunk("tEXt", keyword + [0] + comment.unicodeScalars.map { UInt8($0.value) }, to: &header)
      } else {
        appendChunk("iTXt", keyword + [0, 0, 0, 0, 0] + Data(comment.utf8), to: &header)
      }
    }
  }

  static func zlibCompress(_ bytes: Data) throws -> Data {
    var out: UnsafeMutablePointer<UInt8>?
    var length = 0
    let status = bytes.withUnsafeBytes { raw in
      cpng_zlib_compress(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, 9, &out, &length)
    }
    defer { cpng_free(out) }
    guard status == CPNG_OK, let out else {
      throw CodecError(.io, "Compressing the ICC profile for the PNG failed (out of memory?).")
    }
    return Data(bytes: out, count: length)
  }

  /// Why an ICC profile cannot go with this image, or nil when it can (the checks libpng makes
  /// that matter: a whole profile, and a colour space matching the image's).
  static func iccProblem(_ profile: Data, channels: Int) -> String? {
    guard profile.count >= 132 else { return "it is shorter than an ICC header" }
    let bytes = [UInt8](profile.prefix(20))
    let declared = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
    guard declared == profile.count else { return "its header gives a length of \(declared) bytes, not \(profile.count)" }
    let space = String(decoding: bytes[16..<20], as: UTF8.self)
    let gray = channels <= 2
    if gray && space != "GRAY" { return "it describes '\(space)' colour, not gray" }
    if !gray && space != "RGB " { return "it describes '\(space)' colour, not RGB" }
    return nil
  }
}

extension Data {
  /// Appends `value` as four bytes, most significant first.
  mutating func appendBigEndian(_ value: UInt32) {
    append(contentsOf: [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
  }
}
