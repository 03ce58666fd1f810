// SSIMULACRA2.swift — the SSIMULACRA 2 perceptual score of a distorted image against its
// reference (Jon Sneyers, Cloudinary, 2022–2023): 100 means no visible difference, 90 very high
// quality, 70 high, 50 medium, 30 low; it can go below 0. `fgrun --target ssimulacra2=N` searches
// the encoder quality that reaches a score (Render/QualityTarget.swift).
//
// Definition (the published metric; its PyPI implementation is the oracle of the tests):
//   1. Both images are taken as sRGB-encoded straight RGB in 0…1 (gray replicated). An image with
//      alpha is blended onto a gray background b in encoded values, v' = α·v + (1 − α)·b, and
//      scored twice, on b = 0.1 and b = 0.9; its score is the lower one. Values are then decoded
//      to linear light with the sRGB curve.
//   2. Six scales, s = 0…5: scale 0 is the image, scale s + 1 averages 2 × 2 blocks of scale s in
//      linear light (a last odd row or column averages the pixels it has); the loop stops early
//      at a scale narrower or shorter than 8 pixels.
//   3. At each scale, linear RGB becomes a positive XYB: with the opsin matrix M (rows
//      0.30 0.622 0.078 / 0.23 0.692 0.078 / 0.24342268924547819 0.20476744424496821 rest) and
//      bias β = 0.0037930732552754493, m = ∛max(M·rgb + β, 0) − ∛β; X = (m₀ − m₁)/2,
//      Y = (m₀ + m₁)/2, B = m₂; then B ← B − Y + 0.55, X ← 14·X + 0.42, Y ← Y + 0.01.
//   4. G(·) is a Gaussian blur of σ = 1.5 (11 taps, weights normalised), zero left and right of
//      the image and mirrored above and below it (…, p₁, p₀ | p₀, p₁, …), as the PyPI
//      implementation computes it (libjxl's recursive blur is zero on every side; at 256 pixels
//      the two differ by up to 7 points, at 800 by well under 1). Per channel,
//      μ₁ = G(I₁), μ₂ = G(I₂), σ₁₁ = G(I₁²), σ₂₂ = G(I₂²), σ₁₂ = G(I₁·I₂), and per pixel
//        ssim     d = max(0, 1 − (1 − (μ₁ − μ₂)²)·(2(σ₁₂ − μ₁μ₂) + C₂)/((σ₁₁ − μ₁²) + (σ₂₂ − μ₂²) + C₂)),
//                 C₂ = 0.0009;
//        edge     e = (1 + |I₂ − μ₂|)/(1 + |I₁ − μ₁|) − 1, artifact = max(e, 0), detail lost = max(−e, 0).
//      Each of the three maps gives two norms over the N pixels: mean (Σd/N) and (Σd⁴/N)^¼.
//   5. S = Σ wᵢ·normᵢ over channel (X, Y, B), then scale, then norm (1, 4), then map (ssim,
//      artifact, detail lost), with the 108 published weights `weights` (the index only advances
//      over the scales computed). Then S ← 0.9562382616834844·S,
//      S ← 2.326765642916932·S − 0.020884521182843837·S² + 6.248496625763138e-05·S³, and the
//      score is 100 − 10·S^0.6276336467831387 for S > 0, else 100.
//
// A `Reference` keeps the reference's scales (XYB, μ₁, σ₁₁: 36 bytes per pixel, about 48 in all
// scales), so scoring several encodes of one image (a quality search) blurs only the distorted
// side. The per-pixel steps are C (CKernels/ssimulacra2.c).

import CKernels
import Foundation
import ImageCodecs
import PixelBufferModule

/// The SSIMULACRA 2 score (see the file header).
public enum SSIMULACRA2 {
  /// The score of `distorted` against `reference` (same size).
  ///
  /// - Throws: `CodecError(.invalidArgument)` when the sizes differ.
  public static func score(_ distorted: PixelBuffer, against reference: PixelBuffer) throws -> Double {
    try Reference(reference).score(distorted)
  }

  /// A reference image prepared for scoring any number of distorted versions of it.
  public struct Reference: Sendable {
    /// The reference's size.
    public let size: Size
    private let backgrounds: [Float?]
    private let prepared: [[ScaleReference]]

    /// Prepares `pixels` (any format; colour values taken as sRGB-encoded).
    public init(_ pixels: PixelBuffer) {
      size = pixels.size
      backgrounds = pixels.format.layout.hasAlpha ? [0.1, 0.9] : [nil]
      prepared = backgrounds.map { background in
        SSIMULACRA2.pyramid(SSIMULACRA2.linearPlanes(pixels, background: background)).map(ScaleReference.init)
      }
    }

    /// The score of `distorted` against this reference.
    ///
    /// - Throws: `CodecError(.invalidArgument)` when the sizes differ.
    public func score(_ distorted: PixelBuffer) throws -> Double {
      guard distorted.size == size else {
        throw CodecError(.invalidArgument, "SSIMULACRA2 compares images of one size, not \(distorted.size) with \(size).")
      }
      var lowest = Double.infinity
      for (background, scales) in zip(backgrounds, prepared) {
        let other = SSIMULACRA2.pyramid(SSIMULACRA2.linearPlanes(distorted, background: background))
        var norms: [[Double]] = []
        for (reference, planes) in zip(scales, other) { norms.append(reference.norms(against: planes)) }
        lowest = min(lowest, SSIMULACRA2.finalScore(norms))
      }
      return lowest
    }
  }

  // MARK: - Planes and scales

  /// One channel of one scale, row-major.
  struct Plane {
    let width: Int, height: Int
    var values: [Float]
    init(width: Int, height: Int, values: [Float]? = nil) {
      self.width = width
      self.height = height
      self.values = values ?? [Float](repeating: 0, count: width * height)
    }
  }

  /// Linear-light R, G, B planes of `pixels`, blended onto `background` (encoded) when given.
  static func linearPlanes(_ pixels: PixelBuffer, background: Float?) -> [Plane] {
    let (w, h) = (pixels.width, pixels.height)
    var (r, g, b) = ([Float](repeating: 0, count: w * h), [Float](repeating: 0, count: w * h), [Float](repeating: 0, count: w * h))
    // 8-bit pixels are read as they are; others through a float conversion.
    let bytes = pixels.format.component == .uint8 && pixels.format.alphaMode != .premultiplied && !pixels.colorSpace.isLinear
    let space = pixels.colorSpace.isLinear ? pixels.colorSpace.encoded : pixels.colorSpace
    let layout: ChannelLayout = background == nil ? .rgb : .rgba
    let source = bytes
      ? pixels
      : pixels.converted(
        to: PixelFormat(layout: layout, component: .float32, alphaMode: background == nil ? nil : .straight), colorSpace: space)
    let n = source.format.channelCount
    source.withUnsafeBaseAddress { base, rowBytes in
      r.withUnsafeMutableBufferPointer { r in
        g.withUnsafeMutableBufferPointer { g in
          b.withUnsafeMutableBufferPointer { b in
            for y in 0..<h {
              let (row, offset) = (base + y * rowBytes, y * w)
              let (rs, gs, bs) = (r.baseAddress! + offset, g.baseAddress! + offset, b.baseAddress! + offset)
              if bytes {
                fg_ssim2_linear8(row.assumingMemoryBound(to: UInt8.self), w, Int32(n), background ?? 0, rs, gs, bs)
              } else {
                fg_ssim2_linear(row.assumingMemoryBound(to: Float.self), w, Int32(n), background ?? 0, rs, gs, bs)
              }
            }
          }
        }
      }
    }
    return [r, g, b].map { Plane(width: w, height: h, values: $0) }
  }

  /// The positive-XYB planes of each scale of linear RGB `rgb` (steps 2 and 3).
  static func pyramid(_ rgb: [Plane]) -> [[Plane]] {
    var scales: [[Plane]] = []
    var current = rgb
    for scale in 0..<6 {
      if current[0].width < 8 || current[0].height < 8 { break }
      scales.append(xyb(current))
      if scale < 5 { current = current.map(halved) }
    }
    return scales
  }

  /// 2 × 2 block means (a last odd row or column averages what it has).
  static func halved(_ plane: Plane) -> Plane {
    var out = Plane(width: (plane.width + 1) / 2, height: (plane.height + 1) / 2)
    out.values.withUnsafeMutableBufferPointer { fg_ssim2_halve(plane.values, plane.width, plane.height, $0.baseAddress!) }
    return out
  }

  /// Positive XYB of linear RGB (step 3).
  static func xyb(_ rgb: [Plane]) -> [Plane] {
    var (x, y, b) = (Plane(width: rgb[0].width, height: rgb[0].height), Plane(width: rgb[0].width, height: rgb[0].height),
      Plane(width: rgb[0].width, height: rgb[0].height))
    x.values.withUnsafeMutableBufferPointer { xs in
      y.values.withUnsafeMutableBufferPointer { ys in
        b.values.withUnsafeMutableBufferPointer { bs in
          fg_ssim2_xyb(rgb[0].values, rgb[1].values, rgb[2].values, xs.baseAddress!, ys.baseAddress!, bs.baseAddress!, xs.count)
        }
      }
    }
    return [x, y, b]
  }

  /// The normalised 11-tap Gaussian of σ = 1.5.
  static let kernel: [Float] = {
    let taps = (-5...5).map { exp(-Double($0 * $0) / (2 * 1.5 * 1.5)) }
    let total = taps.reduce(0, +)
    return taps.map { Float($0 / total) }
  }()

  /// G(plane) (step 4).
  static func blurred(_ plane: Plane) -> Plane {
    var out = Plane(width: plane.width, height: plane.height)
    var scratch = [Float](repeating: 0, count: plane.values.count)
    out.values.withUnsafeMutableBufferPointer { dst in
      scratch.withUnsafeMutableBufferPointer {
        fg_ssim2_blur(plane.values, plane.width, plane.height, kernel, $0.baseAddress!, dst.baseAddress!)
      }
    }
    return out
  }

  /// a · b, pixel by pixel.
  static func product(_ a: Plane, _ b: Plane) -> Plane {
    var out = Plane(width: a.width, height: a.height)
    out.values.withUnsafeMutableBufferPointer { fg_ssim2_product(a.values, b.values, $0.count, $0.baseAddress!) }
    return out
  }

  /// One scale of the reference: per channel its XYB values, μ₁ and σ₁₁.
  struct ScaleReference: Sendable {
    let image: [Plane], mean: [Plane], square: [Plane]

    init(_ image: [Plane]) {
      self.image = image
      mean = image.map(SSIMULACRA2.blurred)
      square = image.map { SSIMULACRA2.blurred(SSIMULACRA2.product($0, $0)) }
    }

    /// The 18 norms of this scale against the distorted scale `other`, ordered by channel, then
    /// norm (1, 4), then map (ssim, artifact, detail lost).
    func norms(against other: [Plane]) -> [Double] {
      var result: [Double] = []
      for c in 0..<3 {
        let i2 = other[c]
        let mu2 = SSIMULACRA2.blurred(i2)
        let s22 = SSIMULACRA2.blurred(SSIMULACRA2.product(i2, i2))
        let s12 = SSIMULACRA2.blurred(SSIMULACRA2.product(image[c], i2))
        var sums = [Double](repeating: 0, count: 6)
        fg_ssim2_sums(
          image[c].values, mean[c].values, square[c].values, i2.values, mu2.values, s22.values, s12.values, i2.values.count,
          &sums)
        let means = sums.map { $0 / Double(i2.values.count) }
        result += [means[0], means[2], means[4], pow(means[1], 0.25), pow(means[3], 0.25), pow(means[5], 0.25)]
      }
      return result
    }
  }

  /// Step 5 from each scale's norms (`ScaleReference.norms`).
  static func finalScore(_ scales: [[Double]]) -> Double {
    var sum = 0.0, i = 0
    for c in 0..<3 {
      for norms in scales {
        for k in 0..<6 {
          sum += weights[i] * abs(norms[c * 6 + k])
          i += 1
        }
      }
    }
    sum *= 0.9562382616834844
    sum = 2.326765642916932 * sum - 0.020884521182843837 * sum * sum + 6.248496625763138e-05 * sum * sum * sum
    return sum > 0 ? 100 - 10 * pow(sum, 0.6276336467831387) : 100
  }

  /// The published weights, in step 5's order.
  static let weights: [Double] = [
    0.0, 0.0007376606707406586, 0.0, 0.0, 0.0007793481682867309, 0.0,
    0.0, 0.0004371155730107379, 0.0, 1.1041726426657346, 0.00066284834129271, 0.00015231632783718752,
    0.0, 0.0016406437456599754, 0.0, 1.8422455520539298, 11.441172603757666, 0.0,
    0.0007989109436015163, 0.000176816438078653, 0.0, 1.8787594979546387, 10.94906990605142, 0.0,
    0.0007289346991508072, 0.9677937080626833, 0.0, 0.00014003424285435884, 0.9981766977854967, 0.00031949755934435053,
    0.0004550992113792063, 0.0, 0.0, 0.0013648766163243398, 0.0, 0.0,
    0.0, 0.0, 0.0, 7.466890328078848, 0.0, 17.445833984131262,
    0.0006235601634041466, 0.0, 0.0, 6.683678146179332, 0.00037724407979611296, 1.027889937768264,
    225.20515300849274, 0.0, 0.0, 19.213238186143016, 0.0011401524586618361, 0.001237755635509985,
    176.39317598450694, 0.0, 0.0, 24.43300999870476, 0.28520802612117757, 0.0004485436923833408,
    0.0, 0.0, 0.0, 34.77906344483772, 44.835625328877896, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0008680556573291698, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0005313191874358747, 0.0, 0.00016533814161379112, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0004179171803251336, 0.0017290828234722833, 0.0,
    0.0020827005846636437, 0.0, 0.0, 8.826982764996862, 23.19243343998926, 0.0,
    95.1080498811086, 0.9863978034400682, 0.9834382792465353, 0.0012286405048278493, 171.2667255897307, 0.9807858872435379,
    0.0, 0.0, 0.0, 0.0005130064588990679, 0.0, 0.00010854057858411537,
  ]
}
