// TransformCache.swift — profiles read once and transforms built once, shared by every render.
//
// Building an lcms2 transform costs from a fraction of a millisecond (matrix/shaper) to tens of
// milliseconds (LUT profiles such as CMYK), so each one is built once per (profile, direction,
// pixel format, intent, black-point compensation) and shared by all tiles of all renders in the
// process. Both caches hold a bounded number of entries and drop the least recently used.

import CLCMS
import Foundation
import ImageCodecs
import Locking
import PixelBufferModule

/// What a source's embedded profile means for its pixels.
enum SourceProfile: Sendable {
  /// sRGB, or close enough that converting would change no 8-bit code by half a step: the fast
  /// sRGB paths apply.
  case sRGB
  /// A profile to convert through.
  case profile(ICCProfile)
  /// Unusable (unreadable, or for another colour model); the pixels are treated as sRGB.
  case unusable(String)
}

/// The process-wide cache of profiles and transforms.
enum TransformCache {
  private struct TransformKey: Hashable {
    let profile: Data
    let direction: ColorTransform.Direction
    let channels: Int, bytes: Int, extra: Int
    let intent: RenderingIntent
    let bpc: Bool
  }
  private struct ProfileKey: Hashable {
    let profile: Data
    let channels: Int
  }

  /// At most this many transforms (and this many classified profiles) are kept.
  static let limit = 32

  private struct Entries {
    var transforms: [TransformKey: (transform: ColorTransform, used: Int)] = [:]
    var profiles: [ProfileKey: (profile: SourceProfile, used: Int)] = [:]
    var clock = 0
    var builtCount = 0
  }
  private static let cache = Locked(Entries())

  /// Transforms built since the process started (`fgrun --stats`).
  static var built: Int { cache.withLock { $0.builtCount } }

  /// The transform for `profile` and the stored pixel `format` in `direction`, built on first use.
  /// Throws `ProfileError` when lcms2 cannot build it.
  static func transform(
    _ profile: ICCProfile, _ direction: ColorTransform.Direction, format: PixelFormat,
    intent: RenderingIntent, bpc: Bool
  ) throws -> ColorTransform {
    let layout = format.layout
    let channels = layout == .gray || layout == .grayAlpha ? 1 : 3
    let bytes = format.component == .uint16 ? 2 : 1
    let extra = layout.hasAlpha ? 1 : 0
    let key = TransformKey(
      profile: profile.data, direction: direction, channels: channels, bytes: bytes, extra: extra,
      intent: intent, bpc: bpc)
    if let hit = cache.withLock({ c -> ColorTransform? in
      c.clock += 1
      guard let entry = c.transforms[key] else { return nil }
      c.transforms[key] = (entry.transform, c.clock)
      return entry.transform
    }) { return hit }
    let handle: UnsafeMutableRawPointer?
    switch direction {
    case .toWorking:
      handle = fg_icc_transform_to_linear(
        profile.handle, Int32(channels), Int32(bytes), Int32(extra), 0, intent.iccValue, bpc ? 1 : 0)
    case .fromWorking:
      handle = fg_icc_transform_from_linear(profile.handle, Int32(channels), intent.iccValue, bpc ? 1 : 0)
    }
    guard let handle else { throw ProfileError(reason: String(cString: fg_icc_last_error())) }
    // The engine's own path for matrix/shaper profiles, used only where it agrees with lcms2.
    let fast = direction == .toWorking
      ? MatrixShaper(profile, channels: channels, bytes: bytes, extra: extra, intent: intent, bpc: bpc) : nil
    let transform = ColorTransform(handle: handle, profileName: profile.name, profileData: profile.data, fast: fast)
    if let fast, !agrees(fast, transform, channels: channels, bytes: bytes, extra: extra) { transform.fast = nil }
    return cache.withLock { c in
      c.builtCount += 1
      c.clock += 1
      if let raced = c.transforms[key] { return raced.transform }
      if c.transforms.count >= limit, let oldest = c.transforms.min(by: { $0.value.used < $1.value.used })?.key {
        c.transforms[oldest] = nil
      }
      c.transforms[key] = (transform, c.clock)
      return transform
    }
  }

  /// True when `fast` and lcms2 give every sample of a 9-level grid (all codes for gray) within
  /// half an 8-bit code of each other after the sRGB curve (values outside 0…1 included).
  static func agrees(_ fast: MatrixShaper, _ transform: ColorTransform, channels: Int, bytes: Int, extra: Int) -> Bool {
    let top = bytes == 2 ? 65535 : 255
    var samples: [[Int]] = []
    if channels == 1 {
      samples = stride(from: 0, through: top, by: max(top / 255, 1)).map { [$0] }
    } else {
      let levels = (0...8).map { min($0 * (top + 1) / 8, top) }
      for r in levels { for g in levels { for b in levels { samples.append([r, g, b]) } } }
    }
    let stride = channels + extra
    var input = [UInt8](repeating: 0, count: samples.count * stride * bytes)
    input.withUnsafeMutableBytes { raw in
      for (i, s) in samples.enumerated() {
        for c in 0..<channels {
          if bytes == 2 {
            raw.storeBytes(of: UInt16(s[c]), toByteOffset: (i * stride + c) * 2, as: UInt16.self)
          } else {
            raw[i * stride + c] = UInt8(s[c])
          }
        }
      }
    }
    var a = [SIMD4<Float>](repeating: .zero, count: samples.count), b = a
    input.withUnsafeBytes { i in
      a.withUnsafeMutableBytes { fast.run(i.baseAddress!, $0.baseAddress!, count: samples.count) }
      b.withUnsafeMutableBytes { transform.runLcms2(i.baseAddress!, $0.baseAddress!, count: samples.count) }
    }
    func encode(_ l: Float) -> Double { Double(l < 0 ? -SRGBTransfer.encode(-l) : SRGBTransfer.encode(l)) * 255 }
    for (x, y) in zip(a, b) { for c in 0..<3 where abs(encode(x[c]) - encode(y[c])) > 0.5 { return false } }
    return true
  }

  /// What `data` means for a source with `channels` colour channels (1 gray, 3 RGB).
  static func sourceProfile(_ data: Data, channels: Int) -> SourceProfile {
    let key = ProfileKey(profile: data, channels: channels)
    if let hit = cache.withLock({ c -> SourceProfile? in
      c.clock += 1
      guard let entry = c.profiles[key] else { return nil }
      c.profiles[key] = (entry.profile, c.clock)
      return entry.profile
    }) { return hit }
    let result = classify(data, channels: channels)
    cache.withLock { c in
      c.clock += 1
      if c.profiles.count >= limit, let oldest = c.profiles.min(by: { $0.value.used < $1.value.used })?.key {
        c.profiles[oldest] = nil
      }
      c.profiles[key] = (result, c.clock)
    }
    return result
  }

  private static func classify(_ data: Data, channels: Int) -> SourceProfile {
    let profile: ICCProfile
    do { profile = try ICCProfile(data) } catch { return .unusable("unreadable ICC profile (\(error))") }
    let expected: ProfileColorModel = channels == 1 ? .gray : .rgb
    guard profile.model == expected else {
      return .unusable("its ICC profile is for \(profile.model.rawValue.uppercased()), the image is \(expected.rawValue.uppercased())")
    }
    let format = PixelFormat(layout: channels == 1 ? .gray : .rgb, component: .uint8)
    guard let transform = try? transform(profile, .toWorking, format: format, intent: .relative, bpc: false) else {
      return .unusable("lcms2 cannot convert from its ICC profile (\(String(cString: fg_icc_last_error())))")
    }
    return isSRGB(transform, channels: channels) ? .sRGB : .profile(profile)
  }

  /// True when every sample of a 16-level grid (and a full gray ramp) lands within half an 8-bit
  /// code of its sRGB decoding: converting would not change the stored codes.
  private static func isSRGB(_ transform: ColorTransform, channels: Int) -> Bool {
    var input: [UInt8] = []
    var expected: [SIMD3<Int>] = []
    let levels = stride(from: 0, through: 255, by: 17).map { $0 }
    for v in 0...255 { input += channels == 1 ? [UInt8(v)] : [UInt8(v), UInt8(v), UInt8(v)]; expected.append(SIMD3(v, v, v)) }
    if channels == 3 {
      for r in levels { for g in levels { for b in levels {
        input += [UInt8(r), UInt8(g), UInt8(b)]
        expected.append(SIMD3(r, g, b))
      } } }
    }
    var output = [SIMD4<Float>](repeating: .zero, count: expected.count)
    input.withUnsafeBytes { i in output.withUnsafeMutableBytes { o in transform.run(i.baseAddress!, o.baseAddress!, count: expected.count) } }
    for (o, e) in zip(output, expected) {
      for c in 0..<3 where abs(Double(SRGBTransfer.encode(o[c])) * 255 - Double(e[c])) > 0.5 { return false }
    }
    return true
  }
}

/// Counters of the process-wide colour-management caches.
public enum ColorStatistics {
  /// lcms2 transforms built since the process started (each is then shared by every render),
  /// those CMYK decoders build included.
  public static var transformsBuilt: Int { TransformCache.built + CMYKConversion.built }
}
