// GainMapClipping.swift — the gain map recomputed where an edit that scales the light takes the SDR
// base past its white (exposure above 0): the HDR rendition keeps the edit there too.
//
// Definition: f is a carried operation that scales the light (`LightScalingOperation`: a colour
// matrix without offsets in linear light — exposure's 2^ev, linear-light saturate), B the base's
// linear light before it, V = f(B) after it and C = min(max(V, 0), 1) what the SDR output keeps
// (every encoder clips at white). With the map's log boost L (at full headroom) and offsets o (SDR)
// and o_h (HDR), the carried map renders (C + o)·2^L − o_h, which loses V − C where the base
// clips; the edit applied to the HDR light is (V + o)·2^L − o_h (a carried matrix scales the
// light: GainMapPolicy.swift). So per map pixel u and channel c the log boost becomes
//
//   L′(u) = L(u) + D(u),   D(u) = the mean over the base pixels u covers (a box) of
//   d(x) = log2((V_c(x) + o_c) / (C_c(x) + o_c))     for a map of three channels,
//   d(x) = log2((Y(V) + o_0) / (Y(C) + o_0))         for a gray map, Y the BT.709 luminance,
//
// stored as ((L′ − min_c) / (max′_c − min_c))^γ_c (max′_c below). d = 0 where nothing clips, so elsewhere the map
// is carried exactly; d is averaged as the log boosts are when the map is resampled. The output's
// max boost is widened to hold every L′: with k the largest sum of an output channel's positive
// coefficients (2^ev for exposure), V ≤ k where B ≤ 1 and C = 1 where V passes white, so
// d ≤ log2((k + o_c)/(1 + o_c)) and max′_c = max_c + that. Clamped at the old max instead, a
// highlight the edit brightens past it would render darker than the edit made it on every display
// (and say nothing); widened, the 8-bit map's steps grow by (max′ − min)/(max − min). The headroom
// (HDRCapacityMin/Max) is unchanged: the rendition is for the same displays, and one of less
// headroom than a boost shows that highlight at its own peak, as for any map.
// A gray map's one boost per pixel cannot restore channels that clip unequally: the luminance is
// restored (as a gray map restores it when it is made), the colour stays as the clipped base's.
import Foundation
import ImageCodecs
import PixelBufferModule

/// A carried operation that scales the light (f(k·B) = k·f(B)), after which the map is recomputed
/// where the base clips (see GainMapClipping.swift).
public protocol LightScalingOperation: GainMapCarrying {
  /// True when this instance scales the light and can take a channel within SDR white past it.
  var passesSDRWhite: Bool { get }
  /// The largest value an output channel reaches from inputs within SDR white (k ≥ 1 when
  /// `passesSDRWhite`).
  var largestOutput: Double { get }
}

extension ColorMatrixOperation: LightScalingOperation {
  /// In linear light, with no offset (bias or alpha column) on red, green and blue, when an output
  /// channel's positive coefficients sum above 1.
  public var passesSDRWhite: Bool {
    let rows = [matrix.red, matrix.green, matrix.blue]
    guard space == .linear, carriesGainMap, rows.allSatisfy({ $0.w == 0 }), matrix.bias.x == 0, matrix.bias.y == 0, matrix.bias.z == 0 else {
      return false
    }
    return largestOutput > 1
  }

  /// The largest sum of an output channel's positive red, green and blue coefficients.
  public var largestOutput: Double {
    Double([matrix.red, matrix.green, matrix.blue].map { r in (0..<3).reduce(Float(0)) { $0 + max(r[$1], 0) } }.max() ?? 0)
  }
}

enum GainMapClipping {
  /// The node of the map `map` recomputed after `edited` (the light-scaling operation's node on the
  /// base, whose outputs reach at most `largestOutput` from inputs within SDR white): d at the
  /// base's resolution, box-averaged to the map's, added to the map's log boosts; with the metadata
  /// the new map is stored with (its max boost widened).
  static func node(map: ImageNode, edited: ImageNode, largestOutput: Double, metadata: GainMapMetadata) -> (ImageNode, GainMapMetadata) {
    let gray = map.info.layout.isGray
    var widened = metadata
    for c in 0..<3 where largestOutput > 1 {
      let o = metadata.offsetSDR[c] > 0 ? metadata.offsetSDR[c] : 0
      widened.gainMapMax[c] += log2((largestOutput + o) / (1 + o))
    }
    let lost = ImageNode(operation: ClippedLightOperation(offsets: metadata.offsetSDR, gray: gray), inputs: [edited])
    let averaged = ImageNode(
      operation: ScaleOperation(targetSize: map.info.size, kernel: .box, linearLight: true, allowsShrinkOnLoad: false), inputs: [lost])
    return (ImageNode(operation: BoostAddingOperation(metadata: metadata, widened: widened, gray: gray), inputs: [map, averaged]), widened)
  }

  /// d per base pixel: the log2 of the light the clipping at SDR white loses, in red, green and
  /// blue (a gray map's luminance ratio in all three), alpha 1.
  struct ClippedLightOperation: ImageOperation {
    let offsets: [Double]
    let gray: Bool

    static let table = OperationDescriptor(
      name: "gain map clipped light", category: .color,
      summary: "log2 of the light an edited base loses where it clips at SDR white (not a recipe filter).", parameters: [], example: "")
    var descriptor: OperationDescriptor { Self.table }
    var arguments: Arguments { Arguments(offsets.enumerated().map { ("offset\($0)", ParameterValue.number($1)) } + [("gray", .boolean(gray))]) }
    var workingSpace: WorkingSpace? { .linear }

    func outputInfo(inputs: [ImageInfo]) -> ImageInfo { inputs[0].asRGB }

    func render(into output: inout Tile, inputs: [Tile]) throws {
      output.buffer = inputs[0].buffer
      let o = SIMD4<Float>(Float(offsets[0]), Float(offsets[1]), Float(offsets[2]), 1)
      let weights = SIMD4<Float>(0.2126, 0.7152, 0.0722, 0)
      let gray = gray
      output.withMutablePixels { px in
        for y in 0..<px.height {
          let row = px[row: y]
          for x in 0..<px.width {
            let p = row[x]
            let v = p.w > 0 ? p / p.w : .zero
            let c = v.clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 1))
            if gray {
              let kept = (c * weights).sum() + o.x, wanted = (v * weights).sum() + o.x
              let d = wanted > kept && kept > 0 ? log2(wanted / kept) : 0
              row[x] = SIMD4(d, d, d, 1)
            } else {
              var d = SIMD4<Float>(0, 0, 0, 1)
              for i in 0..<3 where v[i] > 1 && c[i] + o[i] > 0 { d[i] = log2((v[i] + o[i]) / (c[i] + o[i])) }
              row[x] = d
            }
          }
        }
      }
    }
  }

  /// The map (input 0, stored values: it arrives through the sRGB curve as any untagged source in
  /// linear light) with D (input 1, the same size) added to its log boosts, stored with `widened`.
  struct BoostAddingOperation: ImageOperation {
    let metadata: GainMapMetadata
    let widened: GainMapMetadata
    let gray: Bool

    static let table = OperationDescriptor(
      name: "gain map boost added", category: .color,
      summary: "A gain map's log boosts raised by another image's values, within its range (not a recipe filter).", inputCount: 2,
      parameters: [], example: "")
    var descriptor: OperationDescriptor { Self.table }
    var arguments: Arguments {
      Arguments(metadata.arguments(gray: gray).values + widened.gainMapMax.enumerated().map { ("widened\($0)", ParameterValue.number($1)) })
    }
    var workingSpace: WorkingSpace? { .linear }

    func render(into output: inout Tile, inputs: [Tile]) throws {
      output.buffer = inputs[0].buffer
      let (m, widened) = (metadata, widened)
      let channels = gray ? 1 : 3
      output.withMutablePixels { px in
        inputs[1].withPixels { added in
          for y in 0..<px.height {
            let row = px[row: y], d = added[row: y]
            for x in 0..<px.width {
              var p = row[x]
              for c in 0..<channels {
                p[c] = widened.storedValue(logBoost: m.logBoost(stored: p[c], channel: c) + Double(max(d[x][c], 0)), channel: c)
              }
              if gray { (p.y, p.z) = (p.x, p.x) }
              row[x] = p
            }
          }
        }
      }
    }
  }
}
