// ColorTestSupport.swift — small helpers shared by the colour filter tests.
import PixelBufferModule
import XCTest

@testable import FilterGraph

/// Straight float RGBA pixels as a one-row-or-more image (tagged `space`).
func floatImage(_ pixels: [SIMD4<Float>], width: Int, colorSpace: ColorSpace = .sRGB) -> Image {
  let height = pixels.count / width
  var buffer = PixelBuffer(width: width, height: height, format: PixelFormat(layout: .rgba, component: .float32), colorSpace: colorSpace)
  buffer.withUnsafeMutablePixels(as: SIMD4<Float>.self) { p in
    for y in 0..<height { for x in 0..<width { p[row: y][x] = pixels[y * width + x] } }
  }
  return Image(buffer: buffer)
}

/// Renders `image` as straight float RGBA and returns its pixels row by row.
func renderFloat(_ image: Image, renderer: Renderer = colorRenderer) throws -> [SIMD4<Float>] {
  let out = try renderer.render(image, format: PixelFormat(layout: .rgba, component: .float32))
  var result: [SIMD4<Float>] = []
  out.withUnsafePixels(as: SIMD4<Float>.self) { p in
    for y in 0..<p.height { for x in 0..<p.width { result.append(p[row: y][x]) } }
  }
  return result
}

/// The renderer the brief asks tests to use: 2 threads, 64×32 tiles.
let colorRenderer = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 64, height: 32)))
/// One thread, one tile for the whole (small) image.
let oneTileRenderer = Renderer(options: RendererOptions(threads: 1, tileSize: Size(width: 4096, height: 4096)))

/// Reproducible straight RGBA test pixels in 0…1, some with alpha < 1 (never 0).
func samplePixels(_ count: Int, seed: UInt64 = 7, opaque: Bool = false) -> [SIMD4<Float>] {
  var state = seed
  func next() -> Float {
    state = state &* 6364136223846793005 &+ 1442695040888963407
    return Float(state >> 40) / Float(1 << 24)
  }
  return (0..<count).map { _ in SIMD4(next(), next(), next(), opaque ? 1 : max(next(), 0.05)) }
}

/// Asserts two pixel lists agree within `tolerance` on every channel.
func assertPixelsClose(
  _ a: [SIMD4<Float>], _ b: [SIMD4<Float>], tolerance: Float, _ message: String = "",
  file: StaticString = #filePath, line: UInt = #line
) {
  XCTAssertEqual(a.count, b.count, message, file: file, line: line)
  var worst: Float = 0, at = 0
  for i in 0..<min(a.count, b.count) {
    let d = maxDifference(a[i], b[i])
    if !(d <= worst) { worst = d; at = i }
  }
  XCTAssertLessThanOrEqual(worst, tolerance, "\(message) worst at \(at): \(a[at]) vs \(b[at])", file: file, line: line)
}

/// The table's defaults with `overrides` applied, in table order (what the recipe compiler builds).
func arguments(_ table: OperationDescriptor, _ overrides: [String: ParameterValue] = [:]) -> Arguments {
  Arguments(table.parameters.compactMap { spec in
    guard let v = overrides[spec.name] ?? spec.defaultValue else { return nil }
    return (spec.name, v)
  })
}

/// A random 8-bit RGBA buffer with every alpha value represented.
func randomRGBA8(width: Int, height: Int, seed: UInt64 = 3) -> PixelBuffer {
  var buffer = PixelBuffer(width: width, height: height, format: .rgba8)
  var state = seed
  buffer.withUnsafeMutablePixels(as: UInt8.self) { p in
    for y in 0..<height {
      for x in 0..<width * 4 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        p[row: y][x] = UInt8(truncatingIfNeeded: state >> 56)
      }
      if width >= 64 { for x in 0..<min(width, 256) { p[row: y][x * 4 + 3] = UInt8(truncatingIfNeeded: x &* 7 &+ y) } }
    }
  }
  return buffer
}

/// The largest absolute difference between two pixels' channels (NaN when either has a NaN).
func maxDifference(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> Float {
  let d = a - b
  let m = max(max(abs(d.x), abs(d.y)), max(abs(d.z), abs(d.w)))
  return d.x.isNaN || d.y.isNaN || d.z.isNaN || d.w.isNaN ? .nan : m
}
