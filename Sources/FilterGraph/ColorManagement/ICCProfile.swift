// ICCProfile.swift — an ICC profile opened by lcms2 (through the CLCMS shim), and what it says.

import CLCMS
import Foundation

/// The colour models an ICC profile can describe.
public enum ProfileColorModel: String, Sendable {
  /// One gray channel.
  case gray
  /// Red, green, blue.
  case rgb
  /// Cyan, magenta, yellow, black.
  case cmyk
  /// Anything else (Lab, named colours, …): not usable for images here.
  case other
}

/// A profile lcms2 could read. Thread-safe: it is only read after it is opened.
final class ICCProfile: @unchecked Sendable {  // all lets; an lcms2 handle only read after it is opened
  /// The lcms2 profile handle.
  let handle: UnsafeMutableRawPointer
  /// The bytes it was read from.
  let data: Data
  /// Its colour model.
  let model: ProfileColorModel
  /// Its description ("Adobe RGB (1998)"), or "ICC profile" when it has none.
  let name: String

  /// Opens `data`; throws `ProfileError` with lcms2's reason when it cannot be read.
  init(_ data: Data) throws {
    guard let handle = data.withUnsafeBytes({ fg_icc_open($0.baseAddress, $0.count) }) else {
      throw ProfileError(reason: String(cString: fg_icc_last_error()))
    }
    self.handle = handle
    self.data = data
    switch fg_icc_model(handle) {
    case Int32(FG_ICC_GRAY): model = .gray
    case Int32(FG_ICC_RGB): model = .rgb
    case Int32(FG_ICC_CMYK): model = .cmyk
    default: model = .other
    }
    var buffer = [CChar](repeating: 0, count: 128)
    let n = fg_icc_description(handle, &buffer, buffer.count)
    name = n > 0 ? String(cString: buffer) : "ICC profile"
  }

  deinit { fg_icc_close(handle) }

  /// The built-in Display P3 profile (P3 primaries, D65 white, the sRGB curve), made by lcms2:
  /// a few hundred bytes, identical on every run.
  static let displayP3Data = makeRGB(name: "Display P3", primaries: [0.680, 0.320, 0.265, 0.690, 0.150, 0.060])

  /// A Rec. 2020 profile (ITU-R BT.2020 primaries, D65) with the sRGB curve, for tests and examples.
  static let rec2020Data = makeRGB(name: "Rec. 2020 (sRGB curve)", primaries: [0.708, 0.292, 0.170, 0.797, 0.131, 0.046])

  /// A matrix/shaper profile with a power-law curve (linear = value^`exponent`), white `white`
  /// (x, y) and, for RGB, `primaries` (red, green, blue x, y; nil makes a gray profile), made by
  /// lcms2; nil when lcms2 refuses the values.
  static func gammaProfile(exponent: Double, white: [Double], primaries: [Double]?) -> Data? {
    var buffer = [UInt8](repeating: 0, count: 4096)
    let n = primaries.map { fg_icc_gamma_profile($0, white, exponent, "PNG gAMA/cHRM", &buffer, buffer.count) }
      ?? fg_icc_gamma_profile(nil, white, exponent, "PNG gAMA/cHRM", &buffer, buffer.count)
    return n > 0 ? Data(buffer[0..<n]) : nil
  }

  /// A matrix/shaper RGB profile with D65 white and the sRGB curve, made by lcms2.
  static func makeRGB(name: String, primaries: [Double]) -> Data {
    var buffer = [UInt8](repeating: 0, count: 4096)
    let white = [0.3127, 0.3290]
    let n = fg_icc_rgb_profile(primaries, white, name, &buffer, buffer.count)
    return Data(buffer[0..<n])
  }
}

/// Why a profile was not used.
struct ProfileError: Error, CustomStringConvertible {
  /// lcms2's message or ours.
  let reason: String
  var description: String { reason.isEmpty ? "unreadable ICC profile" : reason }
}
