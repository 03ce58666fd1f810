// PNGShimSupport.swift — turning the CPNG reader's status codes and messages into CodecErrors.
import CPNG

/// Internal helpers for the PNG decoder.
enum PNGShimSupport {
  /// The CodecError for a reader status code.
  static func readError(_ status: Int32, _ message: String) -> CodecError {
    let detail = message.isEmpty ? "" : " (libpng: \(message))"
    switch Int(status) {
    case Int(CPNG_ERR_TRUNCATED):
      return CodecError(.truncated, "The PNG file ends before its image data does\(detail).")
    case Int(CPNG_ERR_TOO_LARGE):
      return CodecError(
        .tooLarge,
        "The PNG image is larger than the pixel limit allows\(detail); "
          + "raise the limit (--max-pixels) if you trust this file.")
    case Int(CPNG_ERR_NO_MEMORY):
      return CodecError(.tooLarge, "Decoding the PNG ran out of memory\(detail).")
    case Int(CPNG_ERR_INVALID):
      return CodecError(.invalidArgument, "The PNG decoder was used out of order\(detail).")
    default:
      return CodecError(.corrupt, "The PNG file is corrupt\(detail).")
    }
  }

  /// The reader's collected warnings.
  static func warnings(of reader: OpaquePointer) -> [String] {
    (0..<cpng_reader_warning_count(reader)).map { String(cString: cpng_reader_warning(reader, $0)) }
  }
}
