// RoundCorners.swift — cut the corners to quarter circles, antialiased.
//
// Definition: with radius r (clamped to half the shorter side) and an input of w × h, each corner
// has a circle of radius r whose centre is r pixels in from both sides, e.g. (r, r) for the
// top-left. A pixel whose centre p = (x + ½, y + ½) lies in a corner's r × r square is covered by
//
//   c(x, y) = clamp(r + ½ − ‖p − centre‖, 0, 1)
//
// (the distance from the circle's edge, as a one-pixel ramp: 1 inside, 0 outside, partial on
// the edge); every other pixel has c = 1. The output pixel is the input pixel with all four
// premultiplied components multiplied by c, so the colour is kept and only the coverage changes
// (the same in linear or encoded values). The result has alpha.

import Foundation
import PixelBufferModule

/// Rounds the corners of its input (see RoundCorners.swift).
public struct RoundCornersOperation: ImageOperation {
  /// `roundcorners radius=24`.
  public struct Parameters: FilterParameters {
    /// The corner radius (clamped to half the shorter side when rendering).
    @Param("radius", range: 0...65535, help: "Corner radius in pixels (at most half the shorter side).")
    public var radius: Double

    /// The defaults; `radius` must be given.
    public init() {}
  }

  /// The parameters, in their ranges.
  public let parameters: Parameters

  /// Creates the operation.
  public init(_ parameters: Parameters) { self.parameters = parameters }

  public static let table = OperationDescriptor(
    name: "roundcorners", category: .geometry,
    summary: "Makes the corners transparent outside quarter circles of a radius, with antialiased edges.",
    parameters: Parameters.table, example: "roundcorners radius=24")

  public var descriptor: OperationDescriptor { Self.table }
  public var arguments: Arguments { parameters.arguments }
  public var workingSpace: WorkingSpace? { nil }

  public func outputInfo(inputs: [ImageInfo]) -> ImageInfo {
    var info = inputs[0]
    info.layout = info.layout.withAlpha
    return info
  }

  /// The coverage c(x, y) of an image of `size` (see the definition).
  public func coverage(x: Int, y: Int, size: Size) -> Float {
    let r = min(parameters.radius, Double(min(size.width, size.height)) / 2)
    let px = Double(x) + 0.5, py = Double(y) + 0.5
    let w = Double(size.width), h = Double(size.height)
    let cx = px < r ? r : px > w - r ? w - r : px
    let cy = py < r ? r : py > h - r ? h - r : py
    // Outside the corner squares the nearest centre is the point itself: distance 0, c = 1.
    guard cx != px, cy != py else { return 1 }
    let d = ((px - cx) * (px - cx) + (py - cy) * (py - cy)).squareRoot()
    return Float(min(max(r + 0.5 - d, 0), 1))
  }

  public func render(into output: inout Tile, inputs: [Tile]) throws {
    output.buffer = inputs[0].buffer
    let size = inputs[0].imageSize
    let r = Int(min(parameters.radius, Double(min(size.width, size.height)) / 2).rounded(.up))
    guard r > 0 else { return }
    let rect = output.rect
    // Only the four r × r corner squares change.
    let corners = [
      Rect(x: 0, y: 0, width: r, height: r), Rect(x: size.width - r, y: 0, width: r, height: r),
      Rect(x: 0, y: size.height - r, width: r, height: r), Rect(x: size.width - r, y: size.height - r, width: r, height: r),
    ]
    output.withMutablePixels { px in
      for corner in corners {
        let part = corner.intersection(rect)
        guard !part.isEmpty else { continue }
        for y in part.y..<part.maxY {
          let row = px[row: y - rect.y]
          for x in part.x..<part.maxX {
            row[x - rect.x] *= coverage(x: x, y: y, size: size)
          }
        }
      }
    }
  }
}

extension Image {
  /// The image with its corners cut to quarter circles of `radius` pixels (clamped to half the
  /// shorter side), antialiased; the result has alpha. An infinite radius, as NaN, rounds nothing.
  public func roundingCorners(radius: Double) -> Image {
    var parameters = RoundCornersOperation.Parameters()
    parameters.radius = radius.isFinite ? radius : 0
    return applying(RoundCornersOperation(parameters))
  }
}
