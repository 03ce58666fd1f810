// swift-tools-version:6.1
//
// FilterBenchmarks — in-process throughput of each FilterGraph filter (megapixels per second at 1
// and 2 workers), with ordo-one/benchmark. A package of its own, next to the library's: the root
// package builds only its Sources/ and Tests/, so neither CI nor users ever build this.
//
//   cd Benchmarks && swift package --allow-writing-to-package-directory benchmark
//
// (see bench/README.md for the options and how to read the output).
//
// Like the root package, no target passes compiler flags of its own: a target's flags apply to
// its own sources only, so the library is measured as built for its users either way.
import Foundation
import PackageDescription

// A path dependency's identity is its folder's name (the checkout may be called anything), so the
// product references below use the parent folder's name as it is on this machine.
let rootFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let root = rootFolder.lastPathComponent.lowercased()

let package = Package(
  name: "FilterBenchmarks",
  // As the root package: Synchronization's `Atomic` and `Mutex` need macOS 15.
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(path: ".."),
    // MallocInterposer only: the default traits also pull in a Swift 6.3 runtime interposer.
    .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
  ],
  targets: [
    .executableTarget(
      name: "FilterBenchmarks",
      dependencies: [
        .product(name: "Benchmark", package: "benchmark"),
        "BenchmarkInputs",
        .product(name: "FilterGraph", package: root),
        .product(name: "ImageCodecs", package: root),
        .product(name: "PixelBufferModule", package: root),
      ],
      path: "Benchmarks/FilterBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
    // The pictures both executables render.
    .target(
      name: "BenchmarkInputs",
      dependencies: [
        .product(name: "FilterGraph", package: root),
        .product(name: "PixelBufferModule", package: root),
      ],
      path: "BenchmarkInputs"),
    // 1 worker against 2, interleaved render by render (see its header).
    .executableTarget(
      name: "ScalingDriver",
      dependencies: [
        "BenchmarkInputs",
        .product(name: "FilterGraph", package: root),
        .product(name: "PixelBufferModule", package: root),
      ],
      path: "ScalingDriver"),
    // convolve's three candidate evaluations side by side, im2col + sgemm among them (see its header).
    .executableTarget(
      name: "ConvolveComparison",
      dependencies: [
        "BenchmarkInputs",
        "CBLASBench",
        .product(name: "FilterGraph", package: root),
        .product(name: "PixelBufferModule", package: root),
      ],
      path: "ConvolveComparison"),
    // The system CBLAS, for ConvolveComparison's im2col + sgemm only.
    .systemLibrary(
      name: "CBLASBench",
      path: "CBLASBench",
      pkgConfig: "blas",
      providers: [.apt(["libblas-dev"])]),
  ]
)
