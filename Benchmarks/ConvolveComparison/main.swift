// ConvolveComparison — the three candidate evaluations of `convolve` on the benchmark photo, in
// megapixels per second with 1 and 2 workers: the library's direct and separable methods
// (`method=direct|separable`), and im2col + `cblas_sgemm`, which lives only here so that the
// library does not link BLAS for a path that did not win (docs/Performance.md, "convolve").
//
//   cd Benchmarks && swift build -c release --product ConvolveComparison
//   nice -n 5 .build/release/ConvolveComparison [RUNS]      (default 3; the median is printed)
//
// Kernels per size (3×3, 7×7, 15×15): a full-rank random kernel (what direct and im2col handle
// alike) and a Gaussian (rank 1, where the separable method does m + n instead of m·n taps). Each
// render is the whole photo through the renderer (8-bit RGB in and out), so the three candidates
// pay the same load, store and tiling costs; the "copy" row is that cost alone.

import BenchmarkInputs
import CBLASBench
import FilterGraph
import Foundation
import PixelBufferModule

/// `convolve` evaluated as im2col + sgemm: for each output row, the matrix whose column t holds
/// the row's pixels shifted by tap t (4·width floats), times the kernel's m·n taps. One kernel
/// per channel makes that a matrix–vector product (N = 1). Same definition as ConvolveOperation:
/// colours of premultiplied RGBA in the encoded space, alpha kept, edges extended.
struct Im2colConvolveOperation: ImageOperation {
  let kernel: ConvolutionKernel
  let taps: [Float]

  init(kernel: ConvolutionKernel) {
    self.kernel = kernel
    self.taps = kernel.values.map { Float($0 / kernel.scale) }
  }

  static let table = OperationDescriptor(
    name: "convolve-im2col", category: .convolution, summary: "convolve by im2col + cblas_sgemm (benchmark only).",
    parameters: [], example: "")
  var descriptor: OperationDescriptor { Self.table }
  var arguments: Arguments { Arguments([("values", .numbers(kernel.values))]) }
  var workingSpace: WorkingSpace? { .encoded }

  func inputRegion(for output: Rect, input index: Int, inputs: [ImageInfo]) -> Rect {
    output.insetBy(dx: -(kernel.size.width / 2), dy: -(kernel.size.height / 2))
  }

  func render(into output: inout Tile, inputs: [Tile]) throws {
    let input = inputs[0]
    let m = kernel.size.width, n = kernel.size.height, t = m * n
    let w = output.rect.width, h = output.rect.height
    let dx = output.rect.x - m / 2 - input.rect.x, dy = output.rect.y - n / 2 - input.rect.y
    let rows = Int32(4 * w)
    let columns = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: w * t)
    defer { columns.deallocate() }
    taps.withUnsafeBufferPointer { k in
      input.withPixels { src in
        output.withMutablePixels { dst in
          for y in 0..<h {
            for j in 0..<n {
              let row = src[row: y + dy + j] + dx
              for i in 0..<m { (columns + (j * m + i) * w).update(from: row + i, count: w) }
            }
            let d = dst[row: y]
            UnsafeMutableRawPointer(columns).withMemoryRebound(to: Float.self, capacity: 4 * w * t) { a in
              UnsafeMutableRawPointer(d).withMemoryRebound(to: Float.self, capacity: 4 * w) { c in
                cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, rows, 1, Int32(t), 1, a, rows, k.baseAddress, Int32(t), 0, c, rows)
              }
            }
            let centre = src[row: y + dy + n / 2] + dx + m / 2
            let o = Float(kernel.offset)
            for x in 0..<w {
              let alpha = centre[x].w
              d[x] = SIMD4(d[x].x + o * alpha, d[x].y + o * alpha, d[x].z + o * alpha, alpha)
            }
          }
        }
      }
    }
  }
}

func now() -> Double {
  var t = timespec()
  clock_gettime(CLOCK_MONOTONIC, &t)
  return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
}

let runs = CommandLine.arguments.count > 1 ? max(1, Int(CommandLine.arguments[1]) ?? 3) : 3
let photo = BenchmarkInputs.photo
let megapixels = Double(photo.width * photo.height) / 1e6
let renderers = [1, 2].map { Renderer(options: RendererOptions(threads: $0)) }

/// The median megapixels per second of `runs` renders (after one warm-up) with each renderer.
func throughput(_ make: (Image) -> Image) throws -> [Double] {
  try renderers.map { renderer in
    _ = try renderer.render(make(Image(buffer: photo)), format: .rgb8)
    let times = try (0..<runs).map { _ in
      let start = now()
      _ = try renderer.render(make(Image(buffer: photo)), format: .rgb8)
      return now() - start
    }
    return megapixels / times.sorted()[runs / 2]
  }
}

func randomKernel(side: Int) throws -> ConvolutionKernel {
  var state: UInt64 = 12345
  let values = (0..<(side * side)).map { _ -> Double in
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return Double(state >> 40) / Double(1 << 24) - 0.3
  }
  return try ConvolutionKernel(size: Size(width: side, height: side), values: values)
}

func gaussian(side: Int) throws -> ConvolutionKernel {
  let sigma = Double(side) / 6
  let g = (0..<side).map { exp(-pow(Double($0 - side / 2), 2) / (2 * sigma * sigma)) }
  return try ConvolutionKernel(size: Size(width: side, height: side), values: g.flatMap { a in g.map { a * $0 } })
}

func row(_ label: String, _ mps: [Double]) {
  print("| \(label) | \(String(format: "%.1f", mps[0])) | \(String(format: "%.1f", mps[1])) |")
}

print("Photo \(photo.width)×\(photo.height) (\(String(format: "%.1f", megapixels)) MP), median of \(runs) runs; megapixels/s.")
print("")
print("| kernel, method | 1 worker | 2 workers |")
print("| --- | --- | --- |")
row("copy (load and store only)", try throughput { $0 })
for side in [3, 7, 15] {
  for (name, kernel) in [("random", try randomKernel(side: side)), ("Gaussian", try gaussian(side: side))] {
    let label = "\(side)×\(side) \(name)"
    row("\(label), direct", try throughput { $0.convolved(with: kernel, method: .direct) })
    row("\(label), separable", try throughput { $0.convolved(with: kernel, method: .separable) })
    row("\(label), im2col + sgemm", try throughput { $0.applying(Im2colConvolveOperation(kernel: kernel)) })
  }
}
