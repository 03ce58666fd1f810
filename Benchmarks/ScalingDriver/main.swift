// ScalingDriver — 1 worker against 2 workers, interleaved, for every filter of the benchmarks.
//
// ordo-one/benchmark runs all 1-worker cases before the 2-worker ones, so a neighbour that starts
// or stops in between skews a row. This driver alternates the two renderers render by render
// (ABAB, then BABA) and prints, per filter, the median wall time and process CPU time of each and
// their ratio, plus minor page faults. On a shared machine run it several times: the spread
// between runs is the neighbours.
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
let cases: [(String, @Sendable (Image) -> Image)] = [
  ("identity", { $0 }),
  ("scale05", { $0.scaled(by: 0.5) }),
  ("scale05enc", { $0.scaled(by: 0.5, linearLight: false) }),
  ("scalefit", { $0.scaled(toFit: Size(width: 800, height: 800)) }),
  ("blur2", { $0.blurred(sigma: 2) }),
  ("blur5", { $0.blurred(sigma: 5) }),
  ("blur5enc", { $0.blurred(sigma: 5, linearLight: false) }),
  ("box5", { $0.boxBlurred(radius: 5) }),
  ("sharpen1", { $0.sharpened(sigma: 1, amount: 1) }),
  ("median1", { $0.median(radius: 1) }),
  ("median2", { $0.median(radius: 2) }),
  ("median5", { $0.median(radius: 5) }),
  ("conv3", { image in
    (try? ConvolutionKernel(size: Size(width: 3, height: 3), values: [0, -1, 0, -1, 5, -1, 0, -1, 0])).map { image.convolved(with: $0) } ?? image
  }),
  ("edges", { $0.convolved(preset: .edges) }),
  ("tint", { $0.tinted(Color(red: 1, green: 128.0 / 255, blue: 0), amount: 0.3) }),
  ("sepia", { $0.sepiaToned() }),
  ("sepialin", { $0.applyingColorMatrix(.sepia(), in: .linear) }),
  ("gray", { $0.converted(to: .gray) }),
  ("composite", { Image(buffer: logo).composited(over: $0, gravity: .southEast, margin: 24, opacity: 0.5) }),
  ("rotate", { $0.rotated(byDegrees: 90) }),
]
let env = ProcessInfo.processInfo.environment
let args = CommandLine.arguments
let mode = args.count > 1 ? args[1] : "bench"
let names = args.count > 2 ? Set(args[2].split(separator: ",").map(String.init)) : Set(cases.map(\.0))
let reps = args.count > 3 ? Int(args[3])! : 15
let renderers = [1: Renderer(options: RendererOptions(threads: 1)), 2: Renderer(options: RendererOptions(threads: 2))]

func cpu() -> (Double, Int) {
  var u = rusage(); getrusage(RUSAGE_SELF.rawValue, &u)
  return (Double(u.ru_utime.tv_sec) + Double(u.ru_utime.tv_usec) * 1e-6 + Double(u.ru_stime.tv_sec) + Double(u.ru_stime.tv_usec) * 1e-6, u.ru_minflt)
}
func now() -> Double { var t = timespec(); clock_gettime(CLOCK_MONOTONIC, &t); return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9 }
func median(_ a: [Double]) -> Double { let s = a.sorted(); return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2 }

if mode == "w1" || mode == "w2" {
  let t = mode == "w1" ? 1 : 2
  for (name, make) in cases where names.contains(name) {
    for _ in 0..<reps {
      let a = now()
      let out = try renderers[t]!.render(make(Image(buffer: photo)))
      let b = now()
      withExtendedLifetime(out) {}
      FileHandle.standardError.write("R \(name) \(String(format: "%.6f %.6f", a, b))\n".data(using: .utf8)!)
    }
  }
  exit(0)
}
if mode == "hash" {
  for (name, make) in cases where names.contains(name) {
    for t in [1, 2] {
      let out = try renderers[t]!.render(make(Image(buffer: photo)))
      var h: UInt64 = 0xcbf29ce484222325
      out.withUnsafeBaseAddress { p, stride in
        let rb = out.width * out.format.bytesPerPixel
        for y in 0..<out.height { let r = (p + y * stride).assumingMemoryBound(to: UInt8.self); for x in 0..<rb { h = (h ^ UInt64(r[x])) &* 0x100000001b3 } }
      }
      print(name, t, out.width, out.height, String(h, radix: 16))
    }
  }
  exit(0)
}
print(String(format: "%-11@ %7@ %7@ %7@ %7@ %6@ %6@ %7@ %7@", "case", "w1 ms", "w2 ms", "cpu1", "cpu2", "wall×", "cpu×", "flt1", "flt2"))
for (name, make) in cases where names.contains(name) {
  var wall = [1: [Double](), 2: []], cput = [1: [Double](), 2: []], flt = [1: [Double](), 2: []]
  for t in [1, 2] { _ = try renderers[t]!.render(make(Image(buffer: photo))) }
  for r in 0..<reps {
    for t in (r % 2 == 0 ? [1, 2] : [2, 1]) {
      let (c0, f0) = cpu(); let w0 = now()
      let out = try renderers[t]!.render(make(Image(buffer: photo)))
      let w1 = now(); let (c1, f1) = cpu()
      withExtendedLifetime(out) {}
      wall[t]!.append(w1 - w0); cput[t]!.append(c1 - c0); flt[t]!.append(Double(f1 - f0))
    }
  }
  let a = median(wall[1]!), b = median(wall[2]!), c = median(cput[1]!), d = median(cput[2]!)
  print(String(format: "%-11@ %7.1f %7.1f %7.1f %7.1f %6.2f %6.2f %7.0f %7.0f", name, a * 1e3, b * 1e3, c * 1e3, d * 1e3, a / b, d / c, median(flt[1]!), median(flt[2]!)))
}
