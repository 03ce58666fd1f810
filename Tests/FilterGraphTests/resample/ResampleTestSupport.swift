// Small in-memory images and render helpers shared by the resample and crop tests.

import FilterGraph
import PixelBufferModule
import XCTest

enum ResampleTestSupport {
  /// The renderer the tests use by default: two threads, small tiles (many tile seams).
  static let tiled = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 64, height: 32)))
  /// Like `tiled`, without shrink-on-load. (Renderers here live as long as the process: a
  /// renderer freed while its pool's threads wake can crash, see WorkerPool's `unowned self`.)
  static let exactTiled = Renderer(
    options: RendererOptions(threads: 2, tileSize: Size(width: 64, height: 32), optimizer: OptimizerOptions(shrinkOnLoad: false)))
  /// One thread, one tile.
  static let single = Renderer(options: RendererOptions(threads: 1, tileSize: Size(width: 4096, height: 4096)))
  /// Two threads, tiles of 64×16.
  static let fine = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 64, height: 16)))

  /// Straight float RGBA, the format float renders are read back in.
  static let floatRGBA = PixelFormat(layout: .rgba, component: .float32)

  /// An 8-bit image whose pixel (x, y) has the channel bytes `pixel(x, y)` (3 or 4 of them).
  static func image(width: Int, height: Int, alpha: Bool = false, _ pixel: (Int, Int) -> [UInt8]) -> Image {
    let format: PixelFormat = alpha ? .rgba8 : .rgb8
    let channels = format.channelCount
    var buffer = PixelBuffer(width: width, height: height, format: format)
    buffer.withUnsafeMutablePixels(as: UInt8.self) { px in
      for y in 0..<height {
        let row = px[row: y]
        for x in 0..<width {
          let v = pixel(x, y)
          for c in 0..<channels { row[x * channels + c] = v[c] }
        }
      }
    }
    return Image(buffer: buffer)
  }

  /// A seeded random 8-bit image (SplitMix64), the same for the same seed.
  static func randomImage(width: Int, height: Int, alpha: Bool = false, seed: UInt64 = 1) -> Image {
    var state = seed
    func next() -> UInt8 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return UInt8(truncatingIfNeeded: z ^ (z >> 31))
    }
    return image(width: width, height: height, alpha: alpha) { _, _ in (0..<(alpha ? 4 : 3)).map { _ in next() } }
  }

  /// Straight RGBA floats of a render, `[y][x]`.
  static func floats(_ image: Image, renderer: Renderer = tiled) throws -> [[SIMD4<Float>]] {
    let buffer = try renderer.render(image, format: floatRGBA)
    return buffer.withUnsafePixels(as: Float.self) { px in
      (0..<buffer.height).map { y in
        let row = px[row: y]
        return (0..<buffer.width).map { x in SIMD4(row[4 * x], row[4 * x + 1], row[4 * x + 2], row[4 * x + 3]) }
      }
    }
  }

  /// The bytes of an 8-bit render, `[y][x·channels + c]`.
  static func bytes(_ image: Image, format: PixelFormat, renderer: Renderer = tiled) throws -> [[UInt8]] {
    let buffer = try renderer.render(image, format: format)
    let n = buffer.width * format.channelCount
    return buffer.withUnsafePixels(as: UInt8.self) { px in
      (0..<buffer.height).map { y in Array(UnsafeBufferPointer(start: px[row: y], count: n)) }
    }
  }
}
