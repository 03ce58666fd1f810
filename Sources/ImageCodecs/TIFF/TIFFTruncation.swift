// TIFFTruncation.swift — a TIFF that ends early, said as a sentence instead of libtiff's log line.

extension TIFFDecoder {
  /// libtiff's message for a file that ends early as a sentence: `TIFFReadEncodedStrip: Read error
  /// at scanline 4294967295; got 771 bytes, expected 1665` (libtiff prints −1 as unsigned) becomes
  /// "The TIFF file is truncated: a strip of its pixel data ends early (771 of 1665 bytes are
  /// there)." The shim's own sentences are kept.
  static func truncation(_ message: String) -> String {
    if message.hasPrefix("The ") { return message }
    let part = message.contains("Tile") ? "a tile" : message.contains("Strip") || message.contains("scanline") ? "a strip" : nil
    let numbers = message.split(separator: ";").last.map { clause -> [Int] in
      clause.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
    } ?? []
    let counts = message.contains("got ") && numbers.count == 2 ? " (\(numbers[0]) of \(numbers[1]) bytes are there)" : ""
    if part == nil, message.contains("directory") { return "The TIFF file is truncated: it ends before its directory of tags." }
    guard let part else { return "The TIFF file is truncated: it ends before its data does (libtiff: \(message))." }
    return "The TIFF file is truncated: \(part) of its pixel data ends early\(counts)."
  }
}
