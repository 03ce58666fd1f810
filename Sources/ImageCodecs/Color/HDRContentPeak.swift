// HDRContentPeak.swift — the peak light of an HDR (PQ/HLG) image's content: the light ITU-R BT.2446
// method A maps to SDR white (its L_HDR, HDRToneMapping.swift) and the headroom of the gain map that
// restores the HDR light (HDRGainMap.swift).
//
// Where it comes from, the first that applies:
//   1. MaxCLL (CTA-861.3; PNG cLLi, HEIF clli): the largest max(R, G, B) of any pixel, in cd/m² — the
//      content's own statement of its peak;
//   2. the mastering display's maximum luminance (SMPTE ST 2086; PNG mDCv, HEIF mdcv): the content was
//      graded on that display, which shows nothing brighter;
//   3. measured: the largest component of the decoded display light in BT.2020 primaries (the light
//      method A clamps per component), one pass over the decoded signal, made once per file in a
//      process (remembered by a hash of the file's bytes: the header, the base's decoder and the
//      map's share it).
// A declared value that is not finite, not above 0 or above 10000 cd/m² (PQ's ceiling) is absurd: it
// is ignored with a header warning that names it, and the next source applies. Declared metadata
// wins over the pixels: when it is plausible no measurement is made, and light above it is clipped to
// it (method A clamps at L_HDR and the map's range ends there), as the mastering said. A file whose
// pixels cannot be read for the measurement (truncated, damaged) takes the nominal 1000 cd/m² with a
// warning, and its decode reports the damage where it meets it. The peak used
// is kept within [406, 10000] cd/m²: at least one stop above SDR white (203 cd/m², BT.2408), so the
// map has a headroom and method A a range to compress, and at most PQ's ceiling.
import Foundation
import Locking
import PixelBufferModule

/// Where an HDR image's content peak (`ImageHeader.hdrPeak`) came from: declared by the file, or
/// measured from its pixels (HDRContentPeak.swift gives the order).
public enum HDRPeakSource: String, CaseIterable, Hashable, Sendable {
  /// The content light level's MaxCLL (PNG cLLi, HEIF clli).
  case maxCLL = "max-cll"
  /// The mastering display's maximum luminance (PNG mDCv, HEIF mdcv).
  case masteringDisplay = "mastering-display"
  /// The largest component of the decoded display light: nothing plausible was declared.
  case measured
  /// The nominal 1000 cd/m²: nothing plausible was declared and the pixels could not be read.
  case nominal

  /// How `fgrun info` says it: "declared by its MaxCLL", "measured from the pixels"…
  public var phrase: String {
    switch self {
    case .maxCLL: "declared by its MaxCLL"
    case .masteringDisplay: "declared by its mastering display"
    case .measured: "measured from the pixels"
    case .nominal: "nominal (nothing declared, the pixels unreadable)"
    }
  }
}

/// The content peak of an HDR image and where it came from.
struct HDRContentPeak: Sendable {
  /// The lowest peak used: one stop above BT.2408's HDR reference white.
  static let lowest = 2 * 203.0
  /// PQ's ceiling.
  static let highest = 10000.0

  /// cd/m², within `lowest...highest`.
  var value: Double
  /// Which value it is.
  var source: HDRPeakSource
  /// Sentences about declared values that were ignored.
  var warnings: [String]

  /// The peak from the declared `maxCLL` and `masteringMax` (cd/m², nil where the file has none) of a
  /// file called `container` ("PNG", "AVIF"…), else from `measure()` — the largest component of its
  /// display light — made once for `data` in this process.
  static func resolve(
    maxCLL: Double?, masteringMax: Double?, container: String, data: Data, measure: () throws -> Double
  ) -> HDRContentPeak {
    var warnings: [String] = []
    let declared: [(Double?, String, String, HDRPeakSource)] = [
      (maxCLL, "MaxCLL", "content light level", .maxCLL),
      (masteringMax, "mastering display's maximum luminance", "mastering display", .masteringDisplay),
    ]
    for (value, name, chunk, source) in declared {
      guard let value else { continue }
      if value.isFinite && value > 0 && value <= highest {
        return HDRContentPeak(value: min(max(value, lowest), highest), source: source, warnings: warnings)
      }
      warnings.append(
        "The \(container)'s \(chunk) says its \(name) is \(value) cd/m², which no content has (it must be above 0 and at most 10000); it is ignored.")
    }
    let measured: Double
    do {
      measured = try memo(data, measure)
    } catch {
      warnings.append(
        "The \(container)'s peak light could not be measured, so the nominal \(Int(HDRToneMapping.nominalPeak)) cd/m² is taken as its content's peak: \(error)")
      return HDRContentPeak(value: HDRToneMapping.nominalPeak, source: .nominal, warnings: warnings)
    }
    if !warnings.isEmpty && measured > 0 {
      warnings[warnings.count - 1] += " The peak is measured from the pixels instead: \(Int(measured.rounded())) cd/m²."
    }
    return HDRContentPeak(value: min(max(measured, lowest), highest), source: .measured, warnings: warnings)
  }

  /// The largest component of the display light (cd/m², BT.2020 primaries) of `signal`'s rows (8- or
  /// 16-bit RGB(A), HDR signal in `transfer`, primaries to BT.2020 by `toBT2020`): the per-sample
  /// transfer through a table, the matrix per pixel.
  static func measured(_ signal: PixelBuffer, transfer: HDRTransfer, toBT2020: [SIMD3<Double>]) -> Double {
    let channels = signal.format.channelCount
    func run<T: FixedWidthInteger & UnsignedInteger>(_: T.Type) -> Double {
      let scale = Double(T.max)
      let table = (0...Int(T.max)).map { code in
        transfer == .pq ? HDRToneMapping.pqEOTF(Double(code) / scale) : HDRToneMapping.hlgInverseOETF(Double(code) / scale)
      }
      var peak = 0.0
      signal.withUnsafePixels(as: T.self) { pixels in
        for y in 0..<signal.height {
          let row = pixels[row: y]
          for x in 0..<signal.width {
            let i = x * channels
            var light = SIMD3(table[Int(row[i])], table[Int(row[i + 1])], table[Int(row[i + 2])])
            if transfer == .hlg {
              let ys = 0.2627 * light.x + 0.6780 * light.y + 0.0593 * light.z
              light *= ys > 0 ? HDRToneMapping.hlgDisplayPeak * pow(ys, 0.2) : 0
            }
            let bt2020 = SIMD3((toBT2020[0] * light).sum(), (toBT2020[1] * light).sum(), (toBT2020[2] * light).sum())
            peak = max(peak, bt2020.max())
          }
        }
      }
      return peak
    }
    return signal.format.component == .uint16 ? run(UInt16.self) : run(UInt8.self)
  }

  /// Measured peaks by a hash of their file's bytes.
  private static let measuredPeaks = Locked<[Int: Double]>([:])

  /// `measure()`'s result for `data`, measured once (at most 64 files are remembered).
  private static func memo(_ data: Data, _ measure: () throws -> Double) rethrows -> Double {
    var hasher = Hasher()
    hasher.combine(data.count)
    data.withUnsafeBytes { hasher.combine(bytes: $0) }
    let key = hasher.finalize()
    if let known = measuredPeaks.withLock({ $0[key] }) { return known }
    let peak = try measure()
    measuredPeaks.withLock {
      if $0.count >= 64 { $0.removeAll() }
      $0[key] = peak
    }
    return peak
  }
}
