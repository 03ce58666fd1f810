// CMYKConversion.swift — CMYK rows through their embedded ICC profile into sRGB (8 or 16 bits).
//
// Output pixel = sRGB-encode(lcms2(profile → linear sRGB, relative colorimetric with black-point
// compensation)(C, M, Y, K)), each channel clipped to 0…1 and rounded to 8 or 16 bits; alpha is
// carried over (8-bit codes a become a·257 in 16-bit output). Relative colorimetric with
// black-point compensation is what print workflows use to show CMYK on screen (Photoshop's
// default for CMYK to RGB). Samples are ink amounts (0 = no ink); the JPEG shim turns Adobe's
// inverted values back before they get here.
//
// Used by the TIFF decoder (CMYK pages with a profile) and the JPEG decoder (CMYK and YCCK files
// with a profile).
import CLCMS
import Foundation
import PixelBufferModule

/// An lcms2 transform from a CMYK profile to linear sRGB, and the rows it converts.
final class CMYKConversion {
  private let profile: UnsafeMutableRawPointer
  private let transform: UnsafeMutableRawPointer
  private let sampleBytes: Int
  private let hasAlpha: Bool

  /// A conversion for CMYK samples of `sampleBytes` (1 or 2) bytes, followed by an alpha sample
  /// when `hasAlpha`; nil (with the reason) when `iccProfile` is not a usable CMYK profile.
  static func make(iccProfile: Data, sampleBytes: Int, hasAlpha: Bool) -> (CMYKConversion?, String?) {
    guard let profile = iccProfile.withUnsafeBytes({ fg_icc_open($0.baseAddress, $0.count) }) else {
      return (nil, "its ICC profile cannot be read (\(String(cString: fg_icc_last_error())))")
    }
    guard fg_icc_model(profile) == FG_ICC_CMYK else {
      fg_icc_close(profile)
      return (nil, "its ICC profile is not a CMYK profile")
    }
    guard let transform = fg_icc_transform_to_linear(profile, 4, Int32(sampleBytes), hasAlpha ? 1 : 0, 0, 1, 1) else {
      fg_icc_close(profile)
      return (nil, "its ICC profile gives no transform (\(String(cString: fg_icc_last_error())))")
    }
    return (CMYKConversion(profile: profile, transform: transform, sampleBytes: sampleBytes, hasAlpha: hasAlpha), nil)
  }

  private init(profile: UnsafeMutableRawPointer, transform: UnsafeMutableRawPointer, sampleBytes: Int, hasAlpha: Bool) {
    self.profile = profile
    self.transform = transform
    self.sampleBytes = sampleBytes
    self.hasAlpha = hasAlpha
  }

  deinit {
    fg_icc_transform_free(transform)
    fg_icc_close(profile)
  }

  /// Bytes of one stored CMYK(A) pixel.
  var storedPixelBytes: Int { (hasAlpha ? 5 : 4) * sampleBytes }

  /// Converts `width` pixels of CMYK(A) at `source` into 16-bit RGB(A) at `destination`, using
  /// `scratch` (4 floats a pixel, at least `width` pixels).
  func convert(_ source: UnsafeRawPointer, width: Int, into destination: UnsafeMutablePointer<UInt16>, scratch: UnsafeMutablePointer<Float>) {
    fg_icc_run(transform, source, scratch, width)
    let channels = hasAlpha ? 4 : 3
    for x in 0..<width {
      for c in 0..<3 {
        let encoded = SRGBTransfer.encode(min(max(scratch[x * 4 + c], 0), 1))
        destination[x * channels + c] = UInt16((encoded * 65535).rounded())
      }
      if hasAlpha {
        destination[x * channels + 3] =
          sampleBytes == 1
          ? UInt16(source.load(fromByteOffset: x * 5 + 4, as: UInt8.self)) * 257
          : source.loadUnaligned(fromByteOffset: x * 10 + 8, as: UInt16.self)
      }
    }
  }

  /// Converts `width` pixels of 8-bit CMYK (no alpha) at `source` into 8-bit RGB at
  /// `destination`, using `scratch` (4 floats a pixel, at least `width` pixels).
  func convert(_ source: UnsafeRawPointer, width: Int, into destination: UnsafeMutablePointer<UInt8>, scratch: UnsafeMutablePointer<Float>) {
    precondition(sampleBytes == 1 && !hasAlpha, "8-bit output is for 8-bit CMYK without alpha")
    fg_icc_run(transform, source, scratch, width)
    for i in 0..<(width * 3) {
      let x = i / 3, c = i - 3 * x
      let encoded = SRGBTransfer.encode(min(max(scratch[x * 4 + c], 0), 1))
      destination[i] = UInt8((encoded * 255).rounded())
    }
  }
}
