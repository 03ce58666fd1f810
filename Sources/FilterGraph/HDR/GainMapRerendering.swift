// GainMapRerendering.swift — the gain map recomputed from the HDR rendition for a per-pixel colour
// or tone edit that neither carries nor rescales it (invert, a matrix, curve or levels that reverses
// or reshapes the tones, a custom kernel) and for a blur: the edit applied to both renditions, and
// the map made again as their ratio.
//
// Definition: S is the base before the edit, box-averaged in linear light to the map's resolution;
// L_c the map's log boost per map pixel and channel (stored value m: min_c + (max_c − min_c)·m^(1/γ_c));
// o_c and o′_c the SDR and HDR offsets; h = 2^HDRCapacityMax the headroom at which the map is
// applied fully. The input's HDR rendition at full headroom is H_c = (S_c + o_c)·2^L_c − o′_c.
// f is the operation itself (`PointOperation`: its output pixel depends on its input pixel alone,
// in its own working space, on values 0…1), or a blur repeated at the map's resolution in its own
// working space (`ResolutionMappable.mixesLight`, its `mapped`). The edited renditions are
//
//   SDR′ = clamp(f(S), 0, 1),        HDR′ = h · clamp(f(clamp(H / h, 0, 1)), 0, 1)
//
// and the new log boost L′_c = log2((HDR′_c + o′_c) / (SDR′_c + o_c)) per channel, stored with the
// widened range below and γ_c. A gray map becomes an RGB one: an edit that is not gray (invert of a
// colour, a channel's curve) changes the three channels' ratios differently, which one boost per
// pixel cannot restore (GainMapRerenderingTests' red and green ramps under a gray map, inverted and
// halved: 16.7 dB from the reference with the luminance ratio, 36.6 dB per channel).
//
// Why H/h: f is defined on 0…1, black to white of the display the picture is shown on. The HDR
// rendition is shown on a display whose white is h × SDR white, where it is the picture H/h on
// 0…1; the edit applied there and scaled back is the edit applied to the HDR picture, as an
// editor working on it on that display would apply it — invert turns its brightest highlight into
// black and its deepest shadow into the display's peak, a curve shapes its whole range. Clamped
// to the display's range as the SDR output is clamped to its own (every encoder clips at white).
// For an f that scales the light (f(k·B) = k·f(B): a matrix in linear light) h·f(H/h) = f(H): the
// map is carried, as GainMapPolicy.swift carries such matrices. An f applied to H directly has no
// meaning above 1 (invert: 1 − H < 0). The SDR-relative definition the carried tone filters use,
// f(B)·G, needs f to keep brighter brighter: a reversal would light up the new shadows with the
// old highlights' boost.
//
// A blur in linear light is a weighted mean w: HDR′ + o′ = Σ w·(S + o)·2^L and SDR′ + o = Σ w·(S + o),
// so 2^L′ is the (S + o)-weighted mean of 2^L over the kernel (the HDR rendition's own blur over
// the base's), within the map's range: its metadata is kept. Otherwise:
//
// Range: SDR′ ∈ [0, 1] and HDR′ ∈ [0, h], so L′_c lies in [log2(o′_c / (1 + o_c)),
// log2((h + o′_c) / o_c)]; the output's GainMapMin/Max are widened to hold that range (never
// narrowed), so no recomputed boost is clamped (offsets of 0 are taken as 1/64 for the bound, and
// values beyond it clamped: a black SDR pixel has no finite boost without an offset). The 8-bit
// map then covers more stops: with h = 4 and offsets 1/64 the range is −6.0…8.0, 0.055 stops per
// code. HDRCapacityMin/Max are unchanged: the rendition is for the same displays.
//
// Computed at the map's resolution: where the base varies within a map pixel, f of its mean is
// not the mean of f (a non-linear f), as any map at a lower resolution than its base only holds a
// smooth ratio.
import Foundation
import ImageCodecs
import PixelBufferModule

enum GainMapRerendering {
  /// The map `map` made again after `operation` (a `PointOperation`, or a blur at the map's
  /// resolution) applied to `base`, with the metadata it is stored with (widened unless the
  /// operation is a weighted mean in linear light, whose ratios stay within the map's range).
  static func node(map: ImageNode, base: ImageNode, operation: any ImageOperation, mean: Bool, metadata: GainMapMetadata) -> (ImageNode, GainMapMetadata) {
    let widened = mean && operation.workingSpace == .linear ? metadata : metadata.widenedForRerendering
    let sdr = ImageNode(
      operation: ScaleOperation(targetSize: map.info.size, kernel: .box, linearLight: true, allowsShrinkOnLoad: false), inputs: [base])
    let hdr = ImageNode(operation: HDRRenditionOperation(metadata: metadata, gray: map.info.layout.isGray), inputs: [map, sdr])
    let edited = [hdr, sdr].map { ImageNode(operation: operation, inputs: [$0]) }
    let made = ImageNode(operation: RatioMapOperation(metadata: widened), inputs: [map] + edited)
    return (made, widened)
  }

  /// H / h, clamped to 0…1: the HDR rendition of the map (input 0) over the base at its resolution
  /// (input 1), on a display of headroom h (the map's full headroom unless given), alpha 1 (or the
  /// base's, premultiplied, with `keepsAlpha`).
  struct HDRRenditionOperation: ImageOperation {
    let metadata: GainMapMetadata
    let gray: Bool
    var headroom: Double? = nil
    var keepsAlpha = false

    static let table = OperationDescriptor(
      name: "gain map HDR rendition", category: .color,
      summary: "An Ultra HDR image's HDR rendition over its headroom, 0…1 (not a recipe filter).", inputCount: 2, parameters: [], example: "")
    var descriptor: OperationDescriptor { Self.table }
    var arguments: Arguments {
      Arguments(metadata.arguments(gray: gray).values + [("headroom", ParameterValue.number(headroom ?? 0)), ("alpha", ParameterValue.boolean(keepsAlpha))])
    }
    var workingSpace: WorkingSpace? { .linear }

    func outputInfo(inputs: [ImageInfo]) -> ImageInfo {
      var info = inputs[1]
      info.layout = keepsAlpha && info.layout.hasAlpha ? .rgba : .rgb
      return info
    }

    func render(into output: inout Tile, inputs: [Tile]) throws {
      output.buffer = inputs[1].buffer
      let m = metadata, gray = gray, keepsAlpha = keepsAlpha
      let headroom = self.headroom ?? m.fullHeadroom
      output.withMutablePixels { px in
        inputs[0].withPixels { map in
          for y in 0..<px.height {
            let row = px[row: y], stored = map[row: y]
            for x in 0..<px.width {
              let s = RatioMapOperation.straight(row[x])
              var h = SIMD4<Float>(0, 0, 0, 1)
              for c in 0..<3 {
                let boost = m.logBoost(stored: stored[x][gray ? 0 : c], channel: c)
                let light = (Double(s[c]) + m.offsetSDR[c]) * exp2(boost) - m.offsetHDR[c]
                h[c] = Float(min(max(light / headroom, 0), 1))
              }
              row[x] = keepsAlpha ? SIMD4(h.x * row[x].w, h.y * row[x].w, h.z * row[x].w, row[x].w) : h
            }
          }
        }
      }
    }
  }

  /// The map (input 0, for its format, made RGB) made again from the edited HDR rendition over the
  /// headroom (input 1) and the edited SDR one (input 2): L′ = log2((h·HDR′ + o′)/(SDR′ + o)).
  struct RatioMapOperation: ImageOperation {
    let metadata: GainMapMetadata

    static let table = OperationDescriptor(
      name: "gain map from renditions", category: .color,
      summary: "A gain map made as the ratio of an HDR and an SDR rendition (not a recipe filter).", inputCount: 3, parameters: [], example: "")
    var descriptor: OperationDescriptor { Self.table }
    var arguments: Arguments { metadata.arguments(gray: false) }
    var workingSpace: WorkingSpace? { .linear }

    func outputInfo(inputs: [ImageInfo]) -> ImageInfo { inputs[0].asRGB }

    func render(into output: inout Tile, inputs: [Tile]) throws {
      output.buffer = inputs[0].buffer
      let m = metadata
      let headroom = m.fullHeadroom
      output.withMutablePixels { px in
        inputs[1].withPixels { hdrPixels in
          inputs[2].withPixels { sdrPixels in
            for y in 0..<px.height {
              let row = px[row: y], hdrRow = hdrPixels[row: y], sdrRow = sdrPixels[row: y]
              for x in 0..<px.width {
                let h = Self.straight(hdrRow[x]), s = Self.straight(sdrRow[x])
                var p = SIMD4<Float>(0, 0, 0, 1)
                for c in 0..<3 {
                  let hdr = headroom * Double(h[c]) + m.offsetHDR[c], sdr = Double(s[c]) + m.offsetSDR[c]
                  p[c] = m.storedValue(logBoost: log2(max(hdr, .leastNormalMagnitude) / max(sdr, .leastNormalMagnitude)), channel: c)
                }
                row[x] = p
              }
            }
          }
        }
      }
    }

    /// The pixel's colour without its alpha, clamped to 0…1.
    static func straight(_ p: SIMD4<Float>) -> SIMD4<Float> {
      p.w > 0 ? (p / p.w).clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 1)) : .zero
    }
  }
}

extension ImageInfo {
  /// The same info with the RGB layout (a gain map's computations make three channels).
  var asRGB: ImageInfo {
    var info = self
    info.layout = .rgb
    return info
  }
}

extension GainMapMetadata {
  /// 2^HDRCapacityMax: the headroom at which the map is applied fully (at least 1).
  var fullHeadroom: Double { max(exp2(hdrCapacityMax), 1) }

  /// The log2 boost a map sample means in `channel`, from its value as the renderer holds it
  /// (the stored value through the sRGB curve: the map is an untagged source in linear light).
  func logBoost(stored linear: Float, channel c: Int) -> Double {
    logBoost(sample: Double(SRGBCurve.encode(linear)), channel: c)
  }

  /// The sample (as the renderer holds it, through the sRGB curve) meaning the log2 boost `boost`
  /// in `channel`, clamped to the map's range.
  func storedValue(logBoost boost: Double, channel c: Int) -> Float {
    SRGBCurve.decode(Float(sample(logBoost: boost, channel: c)))
  }

  /// The metadata a rerendered map is stored with: GainMapMin/Max widened to every boost the
  /// rerendering can give (see GainMapRerendering.swift).
  var widenedForRerendering: GainMapMetadata {
    var m = self
    let headroom = fullHeadroom
    for c in 0..<3 {
      let sdrOffset = offsetSDR[c] > 0 ? offsetSDR[c] : 1.0 / 64, hdrOffset = offsetHDR[c] > 0 ? offsetHDR[c] : 1.0 / 64
      m.gainMapMin[c] = min(gainMapMin[c], log2(hdrOffset / (1 + sdrOffset)))
      m.gainMapMax[c] = max(gainMapMax[c], log2((headroom + hdrOffset) / sdrOffset))
    }
    return m
  }

  /// The operation arguments (cache key) of an operation defined by this metadata.
  func arguments(gray: Bool) -> Arguments {
    let values = gainMapMin + gainMapMax + gamma + offsetSDR + offsetHDR + [hdrCapacityMax]
    return Arguments(values.enumerated().map { ("v\($0)", ParameterValue.number($1)) } + [("gray", .boolean(gray))])
  }
}
