// FilterBenchmarks.swift — each filter rendered from an in-memory photo-like image into a new
// buffer, with 1 and with 2 worker threads.
//
// Metrics per benchmark: wall clock, CPU time (user + system), peak resident memory, and
// "pixels/s (M)" = megapixels of the INPUT image per second of wall time (for the scales too,
// whose output is smaller: the work is proportional to the input they read). The ratio of a
// filter's w2 and w1 throughput is its 2-worker speed-up.
//
// The image: 3000 × 2000 RGB, 8-bit, sRGB (FILTERBENCH_SIZE=6000x4000 for the 24 MP size of the
// whole-process benchmark), a deterministic gradient with a smooth pattern and per-pixel noise
// so that the codecs see photo-like entropy. It is made once, before any benchmark; every
// benchmark then renders `filter(Image(buffer:))` with `Renderer.render`, which reads the buffer
// directly (no decode), so only the filter, the tile conversions and the buffer writes are timed
// — except in the two "codec" rows, which decode and encode a JPEG held in memory. The rows of
// filters with an analysis (normalize, trim, smartcrop) clear the renderer's cache before each render, so
// every iteration computes the analysis again; trim reads the photo inside a 200-pixel white
// border (made once), and its throughput counts those pixels.

import Benchmark
import BenchmarkInputs
import FilterGraph
import Foundation
import ImageCodecs
import PixelBufferModule

/// Input size, from FILTERBENCH_SIZE (WIDTHxHEIGHT) or 3000 × 2000.
let inputSize = BenchmarkInputs.size
/// The deterministic test picture (see BenchmarkInputs).
let photo = BenchmarkInputs.photo
/// A 600 × 400 RGBA overlay (half-transparent gradient) for the composite row.
let logo = BenchmarkInputs.logo

/// The photo as an in-memory JPEG (Q90, 4:2:0), for the codec rows.
let photoJPEG: Data = {
  (try? JPEGEncoder.encode(photo, options: JPEGEncodeOptions())) ?? Data()
}()

/// The photo inside a 200-pixel white border, for the trim rows.
let bordered: PixelBuffer = {
  (try? renderers[2]!.render(Image(buffer: photo).extended(by: EdgeInsets(all: 200), mode: .color(.white)))) ?? photo
}()

/// The 3×3 sharpening kernel [0 −1 0; −1 5 −1; 0 −1 0] (direct: rank 3).
let sharpen3x3 = try! ConvolutionKernel(size: Size(width: 3, height: 3), values: [0, -1, 0, -1, 5, -1, 0, -1, 0])
/// A 7×7 Gaussian (σ 7/6, rank 1: the separable method).
let gaussian7x7: ConvolutionKernel = {
  let g = (0..<7).map { exp(-Double(($0 - 3) * ($0 - 3)) / (2 * 49.0 / 36)) }
  return try! ConvolutionKernel(size: Size(width: 7, height: 7), values: g.flatMap { a in g.map { a * $0 } })
}()

/// One renderer per worker count, alive for the whole run.
let renderers: [Int: Renderer] = [
  1: Renderer(options: RendererOptions(threads: 1)),
  2: Renderer(options: RendererOptions(threads: 2)),
]

/// The throughput metric: input pixels per second, shown in millions.
let throughput = BenchmarkMetric.custom("pixels/s", polarity: .prefersLarger, useScalingFactor: false)

/// What one benchmark renders.
enum Work: Sendable {
  /// `filter(photo)` rendered into a buffer.
  case filter(@Sendable (Image) -> Image)
  /// `filter(input)` rendered into a buffer after the renderer's kept analyses are dropped.
  case analysed(input: PixelBuffer, @Sendable (Image) -> Image)
  /// Decode the in-memory JPEG and encode it again as JPEG Q90 (the identity load/store).
  case jpegRoundTrip
  /// Encode the photo as PNG (level 6, adaptive filters).
  case pngEncode
  /// `renderer.statistics(of:)` of the photo (min, max, mean, deviation, dominant colour).
  case statistics
}

let cases: [(String, Work)] = [
  ("identity (buffer to buffer)", .filter { $0 }),
  ("codec: JPEG decode + encode Q90", .jpegRoundTrip),
  ("codec: PNG encode level 6", .pngEncode),
  ("scale x0.5 lanczos3", .filter { $0.scaled(by: 0.5) }),
  ("scale x0.5 lanczos3 encoded", .filter { $0.scaled(by: 0.5, linearLight: false) }),
  ("scale fit 800x800 lanczos3", .filter { $0.scaled(toFit: Size(width: 800, height: 800)) }),
  ("blur sigma 2", .filter { $0.blurred(sigma: 2) }),
  ("blur sigma 5", .filter { $0.blurred(sigma: 5) }),
  ("blur sigma 5 encoded", .filter { $0.blurred(sigma: 5, linearLight: false) }),
  ("box blur radius 5", .filter { $0.boxBlurred(radius: 5) }),
  ("sharpen sigma 1", .filter { $0.sharpened(sigma: 1, amount: 1) }),
  ("median radius 1", .filter { $0.median(radius: 1) }),
  ("median radius 2", .filter { $0.median(radius: 2) }),
  ("median radius 5", .filter { $0.median(radius: 5) }),
  ("convolve 3x3 sharpen", .filter { $0.convolved(with: sharpen3x3) }),
  ("convolve 7x7 Gaussian (separable)", .filter { $0.convolved(with: gaussian7x7) }),
  ("convolve preset edges", .filter { $0.convolved(preset: .edges) }),
  ("convolve preset emboss", .filter { $0.convolved(preset: .emboss) }),
  ("convolve preset laplacian", .filter { $0.convolved(preset: .laplacian) }),
  ("tint #FF8000 30%", .filter { $0.tinted(Color(red: 1, green: 128.0 / 255, blue: 0), amount: 0.3) }),
  ("sepia matrix", .filter { $0.sepiaToned() }),
  ("sepia matrix linear", .filter { $0.applyingColorMatrix(.sepia(), in: .linear) }),
  ("convert to gray", .filter { $0.converted(to: .gray) }),
  ("modulate 1.1, 1.2, hue 10", .filter { $0.modulated(brightness: 1.1, saturation: 1.2, hue: 10) }),
  ("levels 0.05-0.95 gamma 1.2", .filter { $0.leveled(black: 0.05, white: 0.95, gamma: 1.2) }),
  ("curves 0:0,0.5:0.6,1:1", .filter { $0.applyingCurve([CurvePoint(0, 0), CurvePoint(0.5, 0.6), CurvePoint(1, 1)]) }),
  ("normalize 1%-99%", .analysed(input: photo) { $0.normalized() }),
  ("vignette", .filter { $0.vignetted() }),
  ("composite 600x400 over", .filter { Image(buffer: logo).composited(over: $0, gravity: .southEast, margin: 24, opacity: 0.5) }),
  ("rotate 90", .filter { $0.rotated(byDegrees: 90) }),
  ("rotate 12.5 linear", .filter { $0.rotated(byDegrees: 12.5, kernel: .linear) }),
  ("rotate 12.5 cubic", .filter { $0.rotated(byDegrees: 12.5) }),
  ("affine 0.9,0.2,-0.1,1.1 linear", .filter { (try? $0.transformed(by: AffineMatrix(a: 0.9, b: 0.2, c: -0.1, d: 1.1), kernel: .linear)) ?? $0 }),
  ("extend 200 mirror", .filter { $0.extended(by: EdgeInsets(all: 200), mode: .mirror) }),
  ("pad to a square, white", .filter { $0.paddedToSquare(color: .white) }),
  ("roundcorners 200", .filter { $0.roundingCorners(radius: 200) }),
  ("roundcorners 200 + flatten white", .filter { $0.roundingCorners(radius: 200).flattened(onto: .white) }),
  ("mask by a 600x400 alpha (scaled)", .filter { $0.masked(by: Image(buffer: logo), source: .alpha) }),
  ("statistics", .statistics),
  ("trim a 200-pixel white border", .analysed(input: bordered) { $0.trimmed() }),
  ("smartcrop 1080x1080 attention", .analysed(input: photo) { $0.smartCropped(to: Size(width: 1080, height: 1080)) }),
  ("smartcrop 1080x1080 entropy", .analysed(input: photo) { $0.smartCropped(to: Size(width: 1080, height: 1080), strategy: .entropy) }),
]

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .cpuTotal, .peakMemoryResident, throughput],
    timeUnits: .milliseconds,
    units: [throughput: .mega],
    warmupIterations: 1,
    maxDuration: .seconds(3),
    maxIterations: 10)

  for threads in [1, 2] {
    let renderer = renderers[threads]!
    for (name, work) in cases {
      let input = { if case .analysed(let input, _) = work { return input.size } else { return inputSize } }()
      let pixels = Double(input.width * input.height)
      Benchmark("\(name) w\(threads)") { benchmark in
        for _ in benchmark.scaledIterations {
          let start = ContinuousClock.now
          switch work {
          case .filter(let make):
            blackHole(try renderer.render(make(Image(buffer: photo))))
          case .analysed(let input, let make):
            renderer.clearCache()
            blackHole(try renderer.render(make(Image(buffer: input))))
          case .jpegRoundTrip:
            renderer.clearCache()  // decode every time, not from the renderer's decode cache
            blackHole(try renderer.encode(Image(data: photoJPEG), format: .jpeg))
          case .pngEncode:
            blackHole(try renderer.encode(Image(buffer: photo), format: .png))
          case .statistics:
            blackHole(try renderer.statistics(of: Image(buffer: photo)))
          }
          let elapsed = ContinuousClock.now - start
          let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
          benchmark.measurement(throughput, Int((pixels / max(seconds, 1e-9)).rounded()))
        }
      }
    }
  }
}
