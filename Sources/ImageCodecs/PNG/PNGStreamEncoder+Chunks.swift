// PNGStreamEncoder+Chunks.swift — the PNG chunks PNGStreamEncoder (PNGStreamEncoder.swift) writes
// around the image data: length, type, payload and CRC; metadata chunks; the zlib-compressed ICC profile.

import CPNG
import Foundation
import PixelBufferModule

extension PNGStreamEncoder {
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
