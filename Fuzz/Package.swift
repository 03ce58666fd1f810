// swift-tools-version:6.0
//
// FilterGraphFuzz — libFuzzer targets for every decoder, the animation readers, the gain-map
// container, the metadata parsers, the recipe compiler, the text layout, the image server's
// URLs and the PNG writer's deflate block walker. A package of its own, next to the
// library's (like Benchmarks/): neither users nor `make test` build it. `make fuzz` builds it
// with `--sanitize=fuzzer --sanitize=address` and runs every target (see docs/Reliability.md).
// The deflate block walker is C and is fuzzed by deflate/fuzz_deflate.c, built with clang alone.
import Foundation
import PackageDescription

// A path dependency's identity is its folder's name (the checkout may be called anything).
let rootFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let root = rootFolder.lastPathComponent.lowercased()

/// One executable per fuzz target, each a folder of Targets/ with one `LLVMFuzzerTestOneInput`.
func fuzzTarget(_ name: String, _ products: [String], local: [Target.Dependency] = []) -> Target {
  .executableTarget(
    name: name,
    dependencies: products.map { .product(name: $0, package: root) } + local,
    path: "Targets/\(name)",
    swiftSettings: [.unsafeFlags(["-parse-as-library"])])
}

let package = Package(
  name: "FilterGraphFuzz",
  dependencies: [.package(path: "..")],
  targets: [
    fuzzTarget("fuzz-jpeg", ["ImageCodecs", "PixelBufferModule"]),
    fuzzTarget("fuzz-png", ["ImageCodecs", "PixelBufferModule"]),
    fuzzTarget("fuzz-tiff", ["ImageCodecs", "PixelBufferModule"]),
    fuzzTarget("fuzz-exif", ["ImageCodecs"]),
    fuzzTarget("fuzz-metadata", ["ImageCodecs", "PixelBufferModule"]),
    fuzzTarget("fuzz-recipe", ["FilterGraph"]),
    fuzzTarget("fuzz-webp", ["ImageCodecs"], local: ["FuzzCodec"]),
    fuzzTarget("fuzz-gif", ["ImageCodecs"], local: ["FuzzCodec"]),
    fuzzTarget("fuzz-heif", ["ImageCodecs"], local: ["FuzzCodec"]),
    fuzzTarget("fuzz-animation", ["ImageCodecs"]),
    fuzzTarget("fuzz-gainmap", ["ImageCodecs", "PixelBufferModule"]),
    fuzzTarget("fuzz-text", ["FilterGraph"]),
    fuzzTarget("fuzz-server-url", ["ImageServer", "FilterGraph"]),
    // The formats without a target of their own above go through this library's driver.
    .target(
      name: "FuzzCodec",
      dependencies: [.product(name: "ImageCodecs", package: root), .product(name: "PixelBufferModule", package: root)],
      path: "Sources/FuzzCodec"),
  ]
)
