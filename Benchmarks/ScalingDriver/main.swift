// ScalingDriver — 1 worker against 2 workers, interleaved, for every filter of the benchmarks.
//
// ordo-one/benchmark runs all 1-worker cases before the 2-worker ones, so a neighbour that starts
// or stops in between skews a row. This driver alternates the two renderers render by render
// (ABAB, then BABA) and prints, per filter, the median wall time and process CPU time of each and
// their ratio, the megapixels of input per second of median wall time at 1 and 2 workers, plus
// minor page faults. On a shared machine run it several times: the spread between runs is the
// neighbours.
//
// Filters with an analysis (normalize, trim, smartcrop) render with a new renderer each time (made
// before the clock starts): a renderer keeps analysis results across renders of the same pixels,
// so a reused one would time only the operation the analysis resolves to. trim reads the photo
// inside a 200-pixel white border, and its megapixels count those pixels.
//
//   cd Benchmarks && swift build -c release --product ScalingDriver
//   .build/release/ScalingDriver bench [case,case,…] [pairs]    # default: every case, 15 pairs
//   .build/release/ScalingDriver hash                            # output digests at 1 and 2 workers
//
import BenchmarkInputs
import FilterGraph
import Foundation
import PixelBufferModule
#if canImport(Glibc)
import Glibc
#endif

let photo = BenchmarkInputs.photo
let logo = BenchmarkInputs.logo
/// The photo inside a 200-pixel white border, for trim.
let bordered = try Renderer(options: RendererOptions(threads: 2)).render(
  Image(buffer: photo).extended(by: EdgeInsets(all: 200), mode: .color(.white)))
let sharpen3x3 = try ConvolutionKernel(size: Size(width: 3, height: 3), values: [0, -1, 0, -1, 5, -1, 0, -1, 0])

/// One case: its name, the pixels it reads, whether it has an analysis (a new renderer per
/// render), and the graph it renders.
struct Case {
  let name: String
  var input: PixelBuffer = photo
  var analysed = false
  let make: @Sendable (Image) -> Image
}
let cases: [Case] = [
  Case(name: "identity") { $0 },
  Case(name: "scale05") { $0.scaled(by: 0.5) },
  Case(name: "scale05enc") { $0.scaled(by: 0.5, linearLight: false) },
  Case(name: "scalefit") { $0.scaled(toFit: Size(width: 800, height: 800)) },
  Case(name: "blur2") { $0.blurred(sigma: 2) },
  Case(name: "blur5") { $0.blurred(sigma: 5) },
  Case(name: "blur5enc") { $0.blurred(sigma: 5, linearLight: false) },
  Case(name: "box5") { $0.boxBlurred(radius: 5) },
  Case(name: "sharpen1") { $0.sharpened(sigma: 1, amount: 1) },
  Case(name: "median1") { $0.median(radius: 1) },
  Case(name: "median2") { $0.median(radius: 2) },
  Case(name: "median5") { $0.median(radius: 5) },
  Case(name: "conv3") { $0.convolved(with: sharpen3x3) },
  Case(name: "edges") { $0.convolved(preset: .edges) },
  Case(name: "emboss") { $0.convolved(preset: .emboss) },
  Case(name: "laplacian") { $0.convolved(preset: .laplacian) },
  Case(name: "tint") { $0.tinted(Color(red: 1, green: 128.0 / 255, blue: 0), amount: 0.3) },
  Case(name: "sepia") { $0.sepiaToned() },
  Case(name: "sepialin") { $0.applyingColorMatrix(.sepia(), in: .linear) },
  Case(name: "gray") { $0.converted(to: .gray) },
  Case(name: "modulate") { $0.modulated(brightness: 1.1, saturation: 1.2, hue: 10) },
  Case(name: "levels") { $0.leveled(black: 0.05, white: 0.95, gamma: 1.2) },
  Case(name: "curves") { $0.applyingCurve([CurvePoint(0, 0), CurvePoint(0.5, 0.6), CurvePoint(1, 1)]) },
  Case(name: "normalize", analysed: true) { $0.normalized() },
  Case(name: "vignette") { $0.vignetted() },
  Case(name: "composite") { Image(buffer: logo).composited(over: $0, gravity: .southEast, margin: 24, opacity: 0.5) },
  Case(name: "rotate") { $0.rotated(byDegrees: 90) },
  Case(name: "rotate12") { $0.rotated(byDegrees: 12.5, kernel: .linear) },
  Case(name: "affine") { (try? $0.transformed(by: AffineMatrix(a: 0.9, b: 0.2, c: -0.1, d: 1.1), kernel: .linear)) ?? $0 },
  Case(name: "extend") { $0.extended(by: EdgeInsets(all: 200), mode: .mirror) },
  Case(name: "pad") { $0.paddedToSquare(color: .white) },
  Case(name: "round") { $0.roundingCorners(radius: 200) },
  Case(name: "flatten") { $0.roundingCorners(radius: 200).flattened(onto: .white) },
  Case(name: "mask") { $0.masked(by: Image(buffer: logo), source: .alpha) },
  Case(name: "trim", input: bordered, analysed: true) { $0.trimmed() },
  Case(name: "smartattn", analysed: true) { $0.smartCropped(to: Size(width: 1080, height: 1080)) },
  Case(name: "smartentr", analysed: true) { $0.smartCropped(to: Size(width: 1080, height: 1080), strategy: .entropy) },
]
let env = ProcessInfo.processInfo.environment
let args = CommandLine.arguments
let mode = args.count > 1 ? args[1] : "bench"
let names = args.count > 2 ? Set(args[2].split(separator: ",").map(String.init)) : Set(cases.map(\.name))
let reps = args.count > 3 ? Int(args[3]) ?? 0 : 15
let unknown = names.subtracting(cases.map(\.name))
guard ["bench", "w1", "w2", "hash"].contains(mode), reps > 0, unknown.isEmpty else {
  FileHandle.standardError.write(
    "usage: ScalingDriver bench|w1|w2|hash [case,case,…] [pairs > 0]\ncases: \(cases.map(\.name).joined(separator: ","))\n\(unknown.isEmpty ? "" : "unknown: \(unknown.sorted().joined(separator: ","))\n")"
      .data(using: .utf8)!)
  exit(2)
}
let renderers = [1: Renderer(options: RendererOptions(threads: 1)), 2: Renderer(options: RendererOptions(threads: 2))]
/// The renderer for one render of `c` with `threads` workers: a new one for analysed cases.
func renderer(for c: Case, threads: Int) -> Renderer {
  c.analysed ? Renderer(options: RendererOptions(threads: threads)) : renderers[threads]!
}

func cpu() -> (Double, Int) {
  var u = rusage(); getrusage(RUSAGE_SELF.rawValue, &u)
  return (Double(u.ru_utime.tv_sec) + Double(u.ru_utime.tv_usec) * 1e-6 + Double(u.ru_stime.tv_sec) + Double(u.ru_stime.tv_usec) * 1e-6, u.ru_minflt)
}
func now() -> Double { var t = timespec(); clock_gettime(CLOCK_MONOTONIC, &t); return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9 }
func median(_ a: [Double]) -> Double { let s = a.sorted(); return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2 }

if mode == "w1" || mode == "w2" {
  let t = mode == "w1" ? 1 : 2
  for c in cases where names.contains(c.name) {
    for _ in 0..<reps {
      let r = renderer(for: c, threads: t)
      let a = now()
      let out = try r.render(c.make(Image(buffer: c.input)))
      let b = now()
      withExtendedLifetime(out) {}
      FileHandle.standardError.write("R \(c.name) \(String(format: "%.6f %.6f", a, b))\n".data(using: .utf8)!)
    }
  }
  exit(0)
}
if mode == "hash" {
  for c in cases where names.contains(c.name) {
    for t in [1, 2] {
      let out = try renderer(for: c, threads: t).render(c.make(Image(buffer: c.input)))
      var h: UInt64 = 0xcbf29ce484222325
      out.withUnsafeBaseAddress { p, stride in
        let rb = out.width * out.format.bytesPerPixel
        for y in 0..<out.height { let r = (p + y * stride).assumingMemoryBound(to: UInt8.self); for x in 0..<rb { h = (h ^ UInt64(r[x])) &* 0x100000001b3 } }
      }
      print(c.name, t, out.width, out.height, String(h, radix: 16))
    }
  }
  exit(0)
}
print(String(format: "%-11@ %7@ %7@ %7@ %7@ %6@ %6@ %7@ %7@ %7@ %7@", "case", "w1 ms", "w2 ms", "cpu1", "cpu2", "wall×", "cpu×", "MP/s w1", "MP/s w2", "flt1", "flt2"))
for c in cases where names.contains(c.name) {
  var wall = [1: [Double](), 2: []], cput = [1: [Double](), 2: []], flt = [1: [Double](), 2: []]
  for t in [1, 2] { _ = try renderer(for: c, threads: t).render(c.make(Image(buffer: c.input))) }
  for r in 0..<reps {
    for t in (r % 2 == 0 ? [1, 2] : [2, 1]) {
      let chosen = renderer(for: c, threads: t)
      let (c0, f0) = cpu(); let w0 = now()
      let out = try chosen.render(c.make(Image(buffer: c.input)))
      let w1 = now(); let (c1, f1) = cpu()
      withExtendedLifetime(out) {}
      wall[t]!.append(w1 - w0); cput[t]!.append(c1 - c0); flt[t]!.append(Double(f1 - f0))
    }
  }
  let a = median(wall[1]!), b = median(wall[2]!), c1 = median(cput[1]!), d = median(cput[2]!)
  let megapixels = Double(c.input.width * c.input.height) / 1e6
  print(String(format: "%-11@ %7.1f %7.1f %7.1f %7.1f %6.2f %6.2f %7.1f %7.1f %7.0f %7.0f", c.name, a * 1e3, b * 1e3, c1 * 1e3, d * 1e3, a / b, d / c1, megapixels / a, megapixels / b, median(flt[1]!), median(flt[2]!)))
}
