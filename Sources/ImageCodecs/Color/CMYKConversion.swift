// CMYKConversion.swift — CMYK rows through their embedded ICC profile into sRGB (8 or 16 bits).
//
// Output pixel = sRGB-encode(lcms2(profile → linear sRGB, intent, black-point compensation)
// (C, M, Y, K)), each channel clipped to 0…1 and rounded to 8 or 16 bits; alpha is carried over
// (8-bit codes a become a·257 in 16-bit output). The intent and black-point compensation are the
// request's (`ColorRendering`: the renderer's, by default relative colorimetric without
// black-point compensation, like every other profile conversion). Samples are ink amounts
// (0 = no ink); the JPEG shim turns Adobe's inverted values back before they get here.
//
// Each conversion is built once per (profile, sample size, alpha, rendering) and shared by every
// decoder of the process (lcms2 transforms are built without their one-pixel cache, so decoders
// on different threads run one concurrently). Used by the TIFF decoder (CMYK pages with a
// profile) and the JPEG decoder (CMYK and YCCK files with a profile).
import CLCMS
import Foundation
import PixelBufferModule
import Locking

/// An lcms2 transform from a CMYK profile to linear sRGB, and the rows it converts.
package final class CMYKConversion: @unchecked Sendable {  // all lets; lcms2 transforms without cache are thread-safe
  private let profile: UnsafeMutableRawPointer
  private let transform: UnsafeMutableRawPointer
  private let sampleBytes: Int
  private let hasAlpha: Bool

  /// The profile is kept as an array: `Data` stores its buffer behind an enum whose case bits sit
  /// in the pointer, which LeakSanitizer cannot follow, so fuzzing reported the cached profiles
  /// as leaked.
  private struct Key: Hashable {
    let profile: [UInt8]
    let sampleBytes: Int
    let hasAlpha: Bool
    let rendering: ColorRendering
  }

  /// At most this many conversions are kept; the least recently used goes first.
  private static let limit = 16
  /// The conversions built, with the clock of their last use; the clock; how many were built.
  private static let cache = Locked<(entries: [Key: (conversion: CMYKConversion, used: Int)], clock: Int, built: Int)>(([:], 0, 0))

  /// lcms2 transforms built for CMYK sources since the process started (`fgrun --stats`).
  package static var built: Int { cache.withLock { $0.built } }

  /// The conversion for CMYK samples of `sampleBytes` (1 or 2) bytes, followed by an alpha sample
  /// when `hasAlpha`, with `rendering`'s intent and black-point compensation (built on first
  /// use, then shared); nil (with the reason) when `iccProfile` is not a usable CMYK profile.
  static func make(
    iccProfile: Data, sampleBytes: Int, hasAlpha: Bool, rendering: ColorRendering
  ) -> (CMYKConversion?, String?) {
    let key = Key(profile: [UInt8](iccProfile), sampleBytes: sampleBytes, hasAlpha: hasAlpha, rendering: rendering)
    if let hit = cache.withLock({ state -> CMYKConversion? in
      state.clock += 1
      guard let entry = state.entries[key] else { return nil }
      state.entries[key] = (entry.conversion, state.clock)
      return entry.conversion
    }) { return (hit, nil) }
    guard let profile = iccProfile.withUnsafeBytes({ fg_icc_open($0.baseAddress, $0.count) }) else {
      return (nil, "its ICC profile cannot be read (\(String(cString: fg_icc_last_error())))")
    }
    guard fg_icc_model(profile) == FG_ICC_CMYK else {
      fg_icc_close(profile)
      return (nil, "its ICC profile is not a CMYK profile")
    }
    guard
      let transform = fg_icc_transform_to_linear(
        profile, 4, Int32(sampleBytes), hasAlpha ? 1 : 0, 0, rendering.intent.iccValue, rendering.blackPointCompensation ? 1 : 0)
    else {
      fg_icc_close(profile)
      return (nil, "its ICC profile gives no transform (\(String(cString: fg_icc_last_error())))")
    }
    let made = CMYKConversion(profile: profile, transform: transform, sampleBytes: sampleBytes, hasAlpha: hasAlpha)
    return (cache.withLock { state in
      state.built += 1
      state.clock += 1
      if let raced = state.entries[key] { return raced.conversion }
      if state.entries.count >= limit, let oldest = state.entries.min(by: { $0.value.used < $1.value.used })?.key {
        state.entries[oldest] = nil
      }
      state.entries[key] = (made, state.clock)
      return made
    }, nil)
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
