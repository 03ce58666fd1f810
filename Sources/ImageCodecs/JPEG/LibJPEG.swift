// LibJPEG.swift — turns the CJPEG shim's status codes into CodecErrors (internal).
import CJPEG

/// Helpers shared by the JPEG decoder and encoders.
enum LibJPEG {
  /// The libjpeg-turbo version the shim was built against, for example "2.1.5".
  static let version = String(cString: cj_library_version())

  /// The error for a failed shim call, or nil for `CJ_OK`.
  ///
  /// - Parameters:
  ///   - status: the shim's status code.
  ///   - message: libjpeg's own message (format_message), quoted in the result.
  ///   - parameter: the error's first numeric parameter (precision or SOF marker).
  ///   - decoding: true for the decoder, false for the encoder.
  static func error(status: Int32, message: String, parameter: Int32, decoding: Bool) -> CodecError? {
    let quoted = message.isEmpty ? "" : " (libjpeg-turbo: “\(message)”)"
    switch cj_status(rawValue: UInt32(bitPattern: status)) {
    case CJ_OK:
      return nil
    case CJ_ERR_TRUNCATED:
      return CodecError(
        .truncated, "The JPEG file is truncated: it ends before the image data is complete\(quoted).")
    case CJ_ERR_UNSUPPORTED_PRECISION:
      if parameter == 12 {
        return CodecError(
          .unsupported,
          "This is a 12-bit JPEG (12 bits per sample). 12-bit JPEG is not supported by this build's "
            + "libjpeg-turbo \(version), which decodes 8-bit JPEGs only\(quoted).")
      }
      return CodecError(
        .corrupt, "The JPEG header gives an invalid sample precision of \(parameter) bits\(quoted).")
    case CJ_ERR_UNSUPPORTED_PROCESS:
      let process: String
      switch parameter {
      case 0xC3, 0xCB: process = "a lossless JPEG (SOF\(parameter - 0xC0))"
      case 0xC5, 0xC6, 0xC7, 0xCD, 0xCE, 0xCF:
        process = "a hierarchical (differential) JPEG (SOF\(parameter - 0xC0))"
      default: process = "a JPEG coding process (marker 0x\(String(parameter, radix: 16)))"
      }
      return CodecError(
        .unsupported,
        "This file is \(process), which is not supported by this build's libjpeg-turbo "
          + "\(version); only baseline, extended and progressive 8-bit JPEGs can be decoded\(quoted).")
    case CJ_ERR_UNSUPPORTED:
      return CodecError(
        .unsupported,
        "This JPEG uses a feature this build's libjpeg-turbo \(version) does not support\(quoted).")
    case CJ_ERR_NO_MEMORY:
      return CodecError(
        .tooLarge, "libjpeg-turbo ran out of memory while \(decoding ? "decoding" : "encoding") the JPEG\(quoted).")
    case CJ_ERR_TOO_LARGE:
      return CodecError(.tooLarge, "The image is larger than JPEG allows (65500 pixels a side)\(quoted).")
    case CJ_ERR_FILE_CHANGED:
      return CodecError(
        .truncated, "The JPEG file changed size while it was read, so its bytes are not those of one file; it was not decoded.")
    case CJ_ERR_IO where decoding:
      return CodecError(.io, "The JPEG file could not be read: \(message.isEmpty ? "a read failed" : message).")
    case CJ_ERR_USAGE:
      return CodecError(
        .invalidArgument,
        "The JPEG \(decoding ? "decoder" : "encoder") was used incorrectly: \(message.isEmpty ? "unknown misuse" : message).")
    default:
      return CodecError(
        decoding ? .corrupt : .invalidArgument,
        decoding
          ? "The JPEG data is corrupt or is not a JPEG file\(quoted)."
          : "libjpeg-turbo could not encode the image\(quoted).")
    }
  }
}
