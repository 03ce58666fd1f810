// ConvolutionTestHelpers.swift — small in-memory images and renders for the convolution tests.
import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

enum ConvolutionTestHelpers {
  /// Float RGBA premultiplied, the format tests read exact values in.
  static let floatFormat = PixelFormat(layout: .rgba, component: .float32, alphaMode: .premultiplied)

  /// A float image whose pixel (x, y) is `pixel(x, y)` (premultiplied RGBA, sRGB-encoded).
  static func floatImage(width: Int, height: Int, _ pixel: (Int, Int) -> SIMD4<Float>) -> Image {
    var buffer = PixelBuffer(width: width, height: height, format: floatFormat)
    buffer.withUnsafeMutablePixels(as: SIMD4<Float>.self) { p in
      for y in 0..<height { for x in 0..<width { p[row: y][x] = pixel(x, y) } }
    }
    return Image(buffer: buffer)
  }

  /// A renderer that cuts the work into small tiles on two threads.
  static func tiled() -> Renderer { Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 64, height: 32))) }
  /// A renderer that computes the whole (test-sized) image as one tile on one thread.
  static func oneTile() -> Renderer { Renderer(options: RendererOptions(threads: 1, tileSize: Size(width: 4096, height: 4096))) }

  /// Renders to float RGBA premultiplied and returns the pixels as rows.
  static func renderFloat(_ image: Image, renderer: Renderer = tiled()) throws -> [[SIMD4<Float>]] {
    let out = try renderer.render(image, format: floatFormat)
    return out.withUnsafePixels(as: SIMD4<Float>.self) { p in
      (0..<p.height).map { y in Array(UnsafeBufferPointer(start: p[row: y], count: p.width)) }
    }
  }

  /// Asserts tile-parallel and one-tile renders agree bit for bit, at 8 bits and in float.
  static func assertTilingInvariant(_ image: Image, file: StaticString = #filePath, line: UInt = #line) throws {
    let a8 = try tiled().render(image, format: .rgba8), b8 = try oneTile().render(image, format: .rgba8)
    XCTAssertTrue(a8.hasSamePixels(as: b8), "8-bit tiled render differs from one-tile render", file: file, line: line)
    let af = try tiled().render(image, format: floatFormat), bf = try oneTile().render(image, format: floatFormat)
    XCTAssertTrue(af.hasSamePixels(as: bf), "float tiled render differs from one-tile render", file: file, line: line)
  }

  /// `image` written as an 8-bit RGB PNG, run through the libvips command line
  /// `vips OPERATION in.png out.png ARGUMENTS…` (an independent reference), read back as 8-bit RGB.
  /// Skips the test when `vips` is not installed (install-deps.sh --tests installs it).
  static func vips(_ operation: String, _ image: Image, _ arguments: [String]) throws -> PixelBuffer {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/vips") else { throw XCTSkip("libvips tools not installed") }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vips-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try oneTile().encode(image, format: .png).write(to: folder.appendingPathComponent("in.png"))
    let run = try ChildProcess.run("vips", [operation, "in.png", "out.png"] + arguments, in: folder)
    XCTAssertEqual(run.status, 0, run.stderr)
    let out = try Image(data: Data(contentsOf: folder.appendingPathComponent("out.png")))
    return try oneTile().render(out, format: .rgb8)
  }

  /// A random 8-bit RGB photo-like test image.
  static func randomImage(width: Int, height: Int, seed: UInt64) -> Image {
    Image(buffer: PixelBuffer.random(width: width, height: height, format: .rgb8, seed: seed))
  }
}
