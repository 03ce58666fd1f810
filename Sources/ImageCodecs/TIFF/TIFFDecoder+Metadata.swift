// TIFFDecoder+Metadata.swift — the metadata of a TIFF page for TIFFDecoder (TIFFDecoder.swift):
// orientation, XMP, IPTC, description, EXIF (walked over a copy of the file) and ICC profile.

import CTIFF
import Foundation
import PixelBufferModule

extension TIFFDecoder {
  /// The metadata of the page `info` describes (read before another directory is selected: its
  /// profile, XMP and IPTC point into the reader).
  static func metadata(_ info: ctiff_info, input: Input) -> ImageMetadata {
    var metadata = ImageMetadata(orientation: Orientation(rawValue: Int(info.orientation)) ?? .up)
    // A block over the metadata limit is left out (TIFFDecoder warns).
    if let xmp = info.xmp, info.xmp_length > 0, info.xmp_length <= MetadataLimits.maxBlockBytes {
      metadata.xmp = Data(bytes: xmp, count: Int(info.xmp_length))
    }
    if let iptc = info.iptc, info.iptc_length > 0, info.iptc_length <= MetadataLimits.maxBlockBytes {
      var records = [UInt8](UnsafeBufferPointer(start: iptc, count: Int(info.iptc_length)))
      // libtiff swapped each 32-bit word of a file in the other byte order: swap them back.
      if info.iptc_words_swapped != 0 {
        for i in stride(from: 0, to: records.count - 3, by: 4) { records[i..<(i + 4)].reverse() }
      }
      while records.last == 0 { records.removeLast() }
      metadata.iptc = records.isEmpty ? nil : Data(records)
    }
    if let description = info.description { metadata.comment = String(cString: description) }
    // Only a page pointing to EXIF or GPS directories is worth a walk over a copy of the file.
    if info.has_exif != 0, info.is_bigtiff == 0, info.ifd_offset > 0, let file = input.allBytes(), info.ifd_offset < UInt64(file.count) {
      metadata.exif = TIFFEXIFBlock.extract(from: file, ifdOffset: Int(info.ifd_offset))
    }
    // A CMYK page's profile is used up by the conversion to sRGB: the pixels are no longer in it.
    if let icc = info.icc, info.icc_length > 0, info.is_cmyk == 0 {
      metadata.iccProfile = Data(bytes: icc, count: Int(info.icc_length))
    }
    return metadata
  }
}

extension TIFFDecoder.Input {
  /// Every byte of the file (read with pread from an open file), or nil when it cannot be read.
  func allBytes() -> [UInt8]? {
    switch self {
    case .bytes(let data, _): return [UInt8](data)
    case .file(let handle):
      let fd = handle.fileDescriptor
      var status = stat()
      guard fstat(fd, &status) == 0 else { return nil }
      var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
      var done = 0
      while done < bytes.count {
        let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(done)) }
        if got < 0 && errno == EINTR { continue }
        guard got > 0 else { return nil }
        done += got
      }
      return bytes
    }
  }
}
