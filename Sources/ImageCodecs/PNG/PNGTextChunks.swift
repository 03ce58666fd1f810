// PNGTextChunks.swift — the XMP packet and the comment of a PNG, from its text chunks.
//
// Text chunks before the image data are read here (libpng is told to skip them, so it never
// inflates them): `iTXt` with keyword `XML:com.adobe.xmp` is the XMP packet (UTF-8), and a
// `tEXt`, `zTXt` or `iTXt` with keyword `Comment` the comment (Latin-1 in tEXt/zTXt, UTF-8 in
// iTXt). A compressed chunk is inflated into at most `MetadataLimits.maxBlockBytes`; a block over
// that limit is left out with a warning (the pixels do not depend on it, and no file FilterGraph
// writes could hold it), a damaged one (bad CRC, bad zlib data) is skipped. The cICP chunk (PNG 3rd
// edition: H.273 primaries, transfer, matrix, range; `PNGCICP`) and the cLLi and mDCv chunks (the
// content's and the mastering display's peak light, `PNGLightLevels`) are read on the same pass.
import CPNG
import Foundation
import PixelBufferModule

/// Limits on metadata read from files, and so on metadata written.
public enum MetadataLimits {
  /// The largest EXIF, XMP, IPTC or comment block read (after decompression): 1 MiB.
  public static let maxBlockBytes = 1 << 20

  /// The record of a block of `kind` and `bytes` over `maxBlockBytes` that a reader leaves out
  /// (`what`: "The WebP's XMP chunk"): the pixels do not depend on it, and no file FilterGraph
  /// writes could hold it.
  static func leftOut(_ kind: LeftOutMetadata.Kind, _ what: String, bytes: Int) -> LeftOutMetadata {
    LeftOutMetadata(kind, "\(what) is \(bytes) bytes, over the 1 MiB limit for a metadata block; it is left out.")
  }

  /// Refuses blocks a reader would refuse: for formats without a smaller limit of their own (PNG,
  /// WebP, TIFF, HEIF), a block over `maxBlockBytes` is a `.tooLarge` error naming it, so no file
  /// is written that FilterGraph would not read back. (JPEG has its segments' own limits.)
  static func checkWritable(exif: Data?, xmp: Data?, iptc: Data? = nil, comment: String? = nil, format: String) throws {
    for (what, count) in [("EXIF block", exif?.count), ("XMP packet", xmp?.count), ("IPTC block", iptc?.count), ("comment", comment?.utf8.count)] {
      guard let count, count > maxBlockBytes else { continue }
      throw CodecError(
        .tooLarge,
        "The \(what) is \(count) bytes; FilterGraph writes metadata blocks of at most 1 MiB (\(maxBlockBytes) bytes), the most it reads, into \(format) files. Leave it out (--keep without it, or --strip).")
    }
  }
}

enum PNGTextChunks {
  /// The XMP keyword of an iTXt chunk.
  static let xmpKeyword = "XML:com.adobe.xmp"
  /// The comment keyword.
  static let commentKeyword = "Comment"

  /// Fills `metadata.xmp` and `metadata.comment` from the text chunks before IDAT in `png`, `cicp`
  /// from its cICP chunk and `light` from its cLLi and mDCv chunks; returns a record of each block
  /// left out for being above `MetadataLimits.maxBlockBytes`.
  static func read(_ png: Data, into metadata: inout ImageMetadata, cicp: inout PNGCICP?, light: inout PNGLightLevels) -> [LeftOutMetadata] {
    var leftOut: [LeftOutMetadata] = []
    png.withUnsafeBytes { raw in
      let b = raw.bindMemory(to: UInt8.self)
      func u32(_ o: Int) -> Int { Int(b[o]) << 24 | Int(b[o + 1]) << 16 | Int(b[o + 2]) << 8 | Int(b[o + 3]) }
      var at = 8
      while at + 12 <= b.count {
        let length = u32(at)
        guard length <= b.count - at - 12 else { return }
        let type = String(decoding: UnsafeBufferPointer(rebasing: b[(at + 4)..<(at + 8)]), as: UTF8.self)
        if type == "IDAT" || type == "IEND" { return }
        let dataRange = (at + 8)..<(at + 8 + length)
        defer { at += 12 + length }
        if type == "cICP", length == 4, cicp == nil,
          cpng_crc32(0, b.baseAddress! + at + 4, length + 4) == UInt32(truncatingIfNeeded: u32(at + 8 + length))
        {
          cicp = PNGCICP(primaries: Int(b[at + 8]), transfer: Int(b[at + 9]), matrix: Int(b[at + 10]), isFullRange: b[at + 11] != 0)
          continue
        }
        if (type == "cLLi" && length == 8) || (type == "mDCv" && length == 24),
          cpng_crc32(0, b.baseAddress! + at + 4, length + 4) == UInt32(truncatingIfNeeded: u32(at + 8 + length))
        {
          // Both in units of 0.0001 cd/m²: MaxCLL first in cLLi, the maximum luminance after the
          // eight chromaticities in mDCv.
          if type == "cLLi" { light.maxCLL = Double(u32(at + 8)) / 10000 } else { light.masteringMax = Double(u32(at + 8 + 16)) / 10000 }
          continue
        }
        guard type == "tEXt" || type == "zTXt" || type == "iTXt" else { continue }
        let crc = cpng_crc32(0, b.baseAddress! + at + 4, length + 4)
        guard crc == UInt32(truncatingIfNeeded: u32(at + 8 + length)) else { continue }
        let chunk = Array(b[dataRange])
        guard let nul = chunk.firstIndex(of: 0), nul < 80 else { continue }
        let keyword = String(decoding: chunk[..<nul], as: UTF8.self)
        let isXMP = type == "iTXt" && keyword == xmpKeyword
        guard isXMP || keyword == commentKeyword else { continue }
        let text: [UInt8]
        switch Self.text(of: type, chunk, after: nul) {
        case .text(let bytes): text = bytes
        case .malformed: continue
        case .overLimit:
          leftOut.append(
            LeftOutMetadata(
              isXMP ? .xmp : .comment,
              "The PNG's '\(keyword)' text chunk holds more than \(MetadataLimits.maxBlockBytes) bytes, over the 1 MiB limit for a metadata block; it is left out."))
          continue
        }
        if isXMP {
          if metadata.xmp == nil { metadata.xmp = Data(text) }
        } else if metadata.comment == nil {
          metadata.comment = type == "iTXt" ? String(decoding: text, as: UTF8.self) : String(text.map { Character(Unicode.Scalar($0)) })
        }
      }
    }
    return leftOut
  }

  /// What a text chunk holds.
  private enum Contents {
    case text([UInt8])
    case malformed
    case overLimit
  }

  /// The text bytes of a text chunk whose keyword ends at `nul`, inflated when compressed.
  private static func text(of type: String, _ chunk: [UInt8], after nul: Int) -> Contents {
    var i = nul + 1
    var compressed = false
    switch type {
    case "tEXt": break
    case "zTXt":
      guard i < chunk.count, chunk[i] == 0 else { return .malformed }
      compressed = true
      i += 1
    default:  // iTXt: compression flag, method, language tag, translated keyword
      guard i + 2 <= chunk.count, chunk[i + 1] == 0 else { return .malformed }
      compressed = chunk[i] == 1
      i += 2
      for _ in 0..<2 {
        guard let end = chunk[i...].firstIndex(of: 0) else { return .malformed }
        i = end + 1
      }
    }
    let body = Array(chunk[i...])
    if !compressed { return body.count > MetadataLimits.maxBlockBytes ? .overLimit : .text(body) }
    let capacity = MetadataLimits.maxBlockBytes
    var out = [UInt8](repeating: 0, count: capacity)
    var produced = 0
    let status = body.withUnsafeBufferPointer { input in
      out.withUnsafeMutableBufferPointer { cpng_zlib_uncompress(input.baseAddress, input.count, $0.baseAddress, capacity, &produced) }
    }
    if status != CPNG_OK { return produced == capacity ? .overLimit : .malformed }
    return .text(Array(out[..<produced]))
  }
}
