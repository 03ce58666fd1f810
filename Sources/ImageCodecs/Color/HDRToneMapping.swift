// HDRToneMapping.swift — HDR (PQ or HLG) pixels to SDR sRGB: the tone-mapping operator of ITU-R
// BT.2446-1 method A, in BT.2020, then gamut mapping to BT.709 in linear light.
//
// Input: R'G'B' samples s ∈ [0, 1] with an HDR transfer, in the file's primaries.
//   1. Display light in cd/m² (ITU-R BT.2100):
//      PQ (SMPTE ST 2084) EOTF: F = 10000 · (max(s^(1/m2) − c1, 0) / (c2 − c3 · s^(1/m2)))^(1/m1),
//        m1 = 2610/16384, m2 = 2523/4096 · 128, c1 = 3424/4096, c2 = 2413/4096 · 32, c3 = 2392/4096 · 32;
//      HLG: scene light E = s²/3 for s ≤ 1/2, else (exp((s − c)/a) + b)/12 (a = 0.17883277,
//        b = 1 − 4a, c = 0.5 − a·ln(4a)), then the OOTF F = Lw · Ys^(γ−1) · E with Lw = 1000 cd/m²,
//        γ = 1.2 and Ys = 0.2627 R + 0.6780 G + 0.0593 B (black level 0).
//   2. The file's primaries to BT.2020 (a 3×3 matrix from the chromaticities; identity for BT.2020).
//   3. BT.2446 method A, with L_HDR the content's peak (HDRContentPeak.swift: MaxCLL, else the
//      mastering display's maximum, else measured; 1000 cd/m², the nominal peak the recommendation
//      and BT.2408 assume, where no content is given; light above it is clipped to it) and
//      L_SDR = 100 cd/m²:
//      R' = (R / L_HDR)^(1/2.4) (each of R, G, B clamped to [0, L_HDR]);
//      Y' = 0.2627 R' + 0.6780 G' + 0.0593 B';  ρ(L) = 1 + 32 (L / 10000)^(1/2.4);
//      Y'p = log(1 + (ρ_HDR − 1) Y') / log ρ_HDR;
//      Y'c = 1.0770 Y'p (Y'p ≤ 0.7399); −1.1510 Y'p² + 2.7811 Y'p − 0.6302 (≤ 0.9909); 0.5 Y'p + 0.5;
//      Y'sdr = (ρ_SDR^Y'c − 1) / (ρ_SDR − 1);
//      Cb = (B' − Y') / 1.8814, Cr = (R' − Y') / 1.4746, each times f = Y'sdr / (1.1 Y') (0 for Y' = 0);
//      Y'tmo = Y'sdr − max(0.1 Cr·f, 0); R'G'B' from Y'tmo, Cb·f, Cr·f (the inverse of the same
//      BT.2020 non-constant-luminance matrix); linear SDR light = clamp(R', 0, 1)^2.4 (BT.1886).
//   4. Gamut mapping BT.2020 → BT.709 in linear light: the BT.2020-to-BT.709 matrix, then a colour
//      outside [0, 1]³ is moved towards the grey of its own BT.709 luminance Y (c ← Y + t(c − Y) with
//      the largest t ≤ 1 that brings every component inside, Y clamped to [0, 1] first). Mixing with
//      grey in linear light moves along the straight line to the white point in the xy diagram, so
//      the dominant wavelength (hue) and the luminance are kept and only saturation is given up —
//      where a hard clip of each component would shift hues (saturated reds towards orange).
//   5. The sRGB curve, 16-bit (or 8-bit) samples.
// Alpha is left as it is.
import Foundation
import PixelBufferModule

/// An HDR transfer characteristic (ITU-T H.273 `transfer_characteristics`).
public enum HDRTransfer: String, Hashable, Sendable {
  /// SMPTE ST 2084 perceptual quantizer (code 16).
  case pq
  /// ARIB STD-B67 / BT.2100 hybrid log-gamma (code 18).
  case hlg

  /// The transfer of H.273 code `code`, or nil for an SDR one.
  public init?(code: Int) {
    switch code {
    case 16: self = .pq
    case 18: self = .hlg
    default: return nil
    }
  }

  /// "PQ (SMPTE ST 2084)" or "HLG (ARIB STD-B67)".
  public var name: String { self == .pq ? "PQ (SMPTE ST 2084)" : "HLG (ARIB STD-B67)" }

  /// What the decoder does to such pixels whose content peak is `peak` cd/m², in a sentence for
  /// `explain` and `info`.
  public func toneMappingSummary(peak: Double) -> String {
    "\(name) → SDR sRGB by the decoder: ITU-R BT.2446 method A (\(Int(peak.rounded())) → 100 cd/m², in BT.2020), gamut-mapped to BT.709 in linear light by desaturation at constant luminance and hue"
  }
}

/// An HDR signal: its transfer, the matrix from its primaries to BT.2020 (rows) and its content's peak.
public struct HDRSignal: Sendable {
  /// PQ or HLG.
  public var transfer: HDRTransfer
  /// The primaries' matrix to BT.2020 (identity for BT.2020 itself).
  public var toBT2020: [SIMD3<Double>]
  /// The content's peak light, cd/m² (HDRContentPeak.swift): method A's L_HDR and the map's headroom.
  public var peak: Double

  /// A signal with this transfer, primaries and content peak.
  public init(transfer: HDRTransfer, toBT2020: [SIMD3<Double>], peak: Double) {
    self.transfer = transfer
    self.toBT2020 = toBT2020
    self.peak = peak
  }
}

/// The HDR-to-SDR conversion described above.
public enum HDRToneMapping {
  /// The nominal HDR peak (cd/m²) BT.2446 and BT.2408 assume, method A's L_HDR where no content peak is given.
  public static let nominalPeak = 1000.0
  /// HLG's nominal display peak Lw (cd/m²), its OOTF's.
  public static let hlgDisplayPeak = 1000.0
  /// The SDR peak (cd/m²).
  public static let sdrPeak = 100.0

  /// The PQ EOTF: display light in cd/m² of the signal `s` ∈ [0, 1].
  public static func pqEOTF(_ s: Double) -> Double {
    let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128, c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
    let p = pow(min(max(s, 0), 1), 1 / m2)
    return 10000 * pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1)
  }

  /// The HLG inverse OETF: normalized scene light E ∈ [0, 1] of the signal `s` ∈ [0, 1].
  public static func hlgInverseOETF(_ s: Double) -> Double {
    let a = 0.17883277, b = 1 - 4 * a, c = 0.5 - a * log(4 * a)
    let s = min(max(s, 0), 1)
    return s <= 0.5 ? s * s / 3 : (exp((s - c) / a) + b) / 12
  }

  /// BT.2446 method A: SDR R'G'B' (BT.1886-encoded, BT.2020 primaries, [0, 1]) of HDR display light
  /// `rgb` in cd/m² (BT.2020 primaries), for content whose peak is `hdrPeak` cd/m².
  public static func bt2446A(_ rgb: SIMD3<Double>, hdrPeak: Double = nominalPeak) -> SIMD3<Double> {
    let clamped = rgb.clamped(lowerBound: .zero, upperBound: SIMD3(repeating: hdrPeak)) / hdrPeak
    let e = SIMD3(pow(clamped.x, 1 / 2.4), pow(clamped.y, 1 / 2.4), pow(clamped.z, 1 / 2.4))
    let y = 0.2627 * e.x + 0.6780 * e.y + 0.0593 * e.z
    func rho(_ l: Double) -> Double { 1 + 32 * pow(l / 10000, 1 / 2.4) }
    let rhoHDR = rho(hdrPeak), rhoSDR = rho(sdrPeak)
    let yp = log(1 + (rhoHDR - 1) * y) / log(rhoHDR)
    let yc = yp <= 0.7399 ? 1.0770 * yp : yp < 0.9909 ? -1.1510 * yp * yp + 2.7811 * yp - 0.6302 : 0.5 * yp + 0.5
    let ySDR = (pow(rhoSDR, yc) - 1) / (rhoSDR - 1)
    let f = y > 0 ? ySDR / (1.1 * y) : 0
    let cb = (e.z - y) / 1.8814 * f, cr = (e.x - y) / 1.4746 * f
    let yt = ySDR - max(0.1 * cr, 0)
    let r = yt + 1.4746 * cr, b = yt + 1.8814 * cb
    let g = (yt - 0.2627 * r - 0.0593 * b) / 0.6780
    return SIMD3(r, g, b).clamped(lowerBound: .zero, upperBound: SIMD3(repeating: 1))
  }

  /// BT.2020 linear RGB to BT.709 linear RGB (ITU-R BT.2087).
  static let bt2020ToBT709: [SIMD3<Double>] = [
    SIMD3(1.6605, -0.5876, -0.0728), SIMD3(-0.1246, 1.1329, -0.0083), SIMD3(-0.0182, -0.1006, 1.1187),
  ]

  /// Linear BT.709 `rgb` brought inside [0, 1]³ towards the grey of its luminance (step 4).
  public static func gamutMapped(_ rgb: SIMD3<Double>) -> SIMD3<Double> {
    let y = min(max(0.2126 * rgb.x + 0.7152 * rgb.y + 0.0722 * rgb.z, 0), 1)
    var t = 1.0
    for c in [rgb.x, rgb.y, rgb.z] {
      if c < 0 { t = min(t, y / (y - c)) }
      if c > 1 { t = min(t, (1 - y) / (c - y)) }
    }
    let mapped = SIMD3(repeating: y) + t * (rgb - SIMD3(repeating: y))
    return mapped.clamped(lowerBound: .zero, upperBound: SIMD3(repeating: 1))
  }

  /// Linear SDR BT.709 light of the HDR signal `signal` (R'G'B' ∈ [0, 1]) with `transfer`, whose
  /// primaries go to BT.2020 by `toBT2020` (rows), for content whose peak is `hdrPeak` cd/m².
  public static func sdrLight(
    _ signal: SIMD3<Double>, transfer: HDRTransfer, toBT2020: [SIMD3<Double>], hdrPeak: Double = nominalPeak
  ) -> SIMD3<Double> {
    var light = displayLight(signal, transfer: transfer)
    light = SIMD3((toBT2020[0] * light).sum(), (toBT2020[1] * light).sum(), (toBT2020[2] * light).sum())
    let sdr = bt2446A(light, hdrPeak: hdrPeak)
    let linear2020 = SIMD3(pow(sdr.x, 2.4), pow(sdr.y, 2.4), pow(sdr.z, 2.4))
    let m = bt2020ToBT709
    return gamutMapped(SIMD3((m[0] * linear2020).sum(), (m[1] * linear2020).sum(), (m[2] * linear2020).sum()))
  }

  /// Display light in cd/m² (step 1, the file's primaries) of the signal `signal`.
  static func displayLight(_ signal: SIMD3<Double>, transfer: HDRTransfer) -> SIMD3<Double> {
    switch transfer {
    case .pq: return SIMD3(pqEOTF(signal.x), pqEOTF(signal.y), pqEOTF(signal.z))
    case .hlg:
      let e = SIMD3(hlgInverseOETF(signal.x), hlgInverseOETF(signal.y), hlgInverseOETF(signal.z))
      let ys = 0.2627 * e.x + 0.6780 * e.y + 0.0593 * e.z
      return e * (ys > 0 ? hlgDisplayPeak * pow(ys, 0.2) : 0)
    }
  }

  /// The matrix (rows) from RGB with `chromaticities` (red, green, blue, white x y) to BT.2020 RGB, or
  /// nil when they do not describe primaries (identity is then the caller's choice).
  public static func toBT2020(chromaticities c: [Double]) -> [SIMD3<Double>]? {
    guard c.count == 8, c.allSatisfy({ $0.isFinite && $0 > 0 && $0 < 1 }) else { return nil }
    guard let source = rgbToXYZ(c), let bt2020 = rgbToXYZ([0.708, 0.292, 0.170, 0.797, 0.131, 0.046, 0.3127, 0.3290]),
      let inverse = inverted(bt2020)
    else { return nil }
    return multipliedRows(inverse, source)
  }

  /// Tone-maps the RGB samples of `buffer`'s `rows` (default: all; 8- or 16-bit RGB or RGBA, HDR
  /// signal `signal`) in place to sRGB-encoded SDR.
  public static func apply(to buffer: inout PixelBuffer, rows: Range<Int>? = nil, signal hdr: HDRSignal) {
    let channels = buffer.format.channelCount, width = buffer.width, rows = rows ?? 0..<buffer.height
    let srgb: (Double) -> Double = { l in l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055 }
    func run<T: FixedWidthInteger & UnsignedInteger>(_: T.Type) {
      let scale = Double(T.max)
      buffer.withUnsafeMutablePixels(as: T.self) { pixels in
        for y in rows {
          let row = pixels[row: y]
          for x in 0..<width {
            let i = x * channels
            let signal = SIMD3(Double(row[i]), Double(row[i + 1]), Double(row[i + 2])) / scale
            let out = sdrLight(signal, transfer: hdr.transfer, toBT2020: hdr.toBT2020, hdrPeak: hdr.peak)
            row[i] = T((srgb(out.x) * scale).rounded())
            row[i + 1] = T((srgb(out.y) * scale).rounded())
            row[i + 2] = T((srgb(out.z) * scale).rounded())
          }
        }
      }
    }
    if buffer.format.component == .uint16 { run(UInt16.self) } else { run(UInt8.self) }
  }

  /// RGB → XYZ (rows) for chromaticities (red, green, blue, white x y).
  private static func rgbToXYZ(_ c: [Double]) -> [SIMD3<Double>]? {
    func xyz(_ x: Double, _ y: Double) -> SIMD3<Double> { SIMD3(x / y, 1, (1 - x - y) / y) }
    let r = xyz(c[0], c[1]), g = xyz(c[2], c[3]), b = xyz(c[4], c[5]), w = xyz(c[6], c[7])
    let columns = [SIMD3(r.x, g.x, b.x), SIMD3(r.y, g.y, b.y), SIMD3(r.z, g.z, b.z)]
    guard let inverse = inverted(columns) else { return nil }
    let s = SIMD3((inverse[0] * w).sum(), (inverse[1] * w).sum(), (inverse[2] * w).sum())
    return columns.map { $0 * s }
  }

  /// The inverse of a 3×3 matrix (rows), or nil when it is singular.
  private static func inverted(_ m: [SIMD3<Double>]) -> [SIMD3<Double>]? {
    let a = m[0], b = m[1], c = m[2]
    let det = a.x * (b.y * c.z - b.z * c.y) - a.y * (b.x * c.z - b.z * c.x) + a.z * (b.x * c.y - b.y * c.x)
    guard abs(det) > 1e-12 else { return nil }
    return [
      SIMD3(b.y * c.z - b.z * c.y, a.z * c.y - a.y * c.z, a.y * b.z - a.z * b.y) / det,
      SIMD3(b.z * c.x - b.x * c.z, a.x * c.z - a.z * c.x, a.z * b.x - a.x * b.z) / det,
      SIMD3(b.x * c.y - b.y * c.x, a.y * c.x - a.x * c.y, a.x * b.y - a.y * b.x) / det,
    ]
  }
}
