// swift-tools-version:6.0
//
// FilterGraph — a GPU-free, lazy, tile-parallel image pipeline for Linux.
//
// Targets, each with one job:
//   PixelBufferModule  the one pixel-buffer type every stage shares (no codec or system dependencies)
//   ImageCodecs        the codec registry: JPEG, PNG, WebP, GIF… (one folder each), safe file output
//   FilterGraph        the lazy Image recipe, the filters, the tile-parallel Renderer, the text recipes
//   fgrun              the command-line tool
//   CJPEG, CPNG        small C shims that keep libjpeg's and libpng's longjmp error paths inside C
//   CWebP, CGIF        small C shims over libwebp (+ demux, mux) and giflib
//   CHEIF              libheif (AVIF, HEIC) behind calls returning a status and libheif's message
//   CTIFF              libtiff behind a reader and a writer with per-handle error handlers
//                      (CPNG also holds the PNG writer's filtering and libdeflate segment joining)
//   CLCMS              lcms2 (ICC colour management) behind functions that never abort
//   CKernels           per-pixel loops in C with AVX2 intrinsics (runtime-dispatched, Swift fallbacks)
//   CBLAS              the system CBLAS (Debian's libblas-dev; OpenBLAS serial at run time)
import PackageDescription

let optimize: [SwiftSetting] = [
  // Release builds only: exclusivity checks cost real time in per-pixel loops (see docs/Architecture.md).
  .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release)),
]

let package = Package(
  name: "FilterGraph",
  platforms: [.macOS(.v13)],
  products: [
    .library(name: "PixelBufferModule", targets: ["PixelBufferModule"]),
    .library(name: "ImageCodecs", targets: ["ImageCodecs"]),
    .library(name: "FilterGraph", targets: ["FilterGraph"]),
    .executable(name: "fgrun", targets: ["fgrun"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
  ],
  targets: [
    // MARK: - Public API
    .target(
      name: "PixelBufferModule",
      path: "Sources/PixelBuffer",
      swiftSettings: optimize),
    .target(
      name: "ImageCodecs",
      dependencies: ["PixelBufferModule", "CJPEG", "CPNG", "CWebP", "CGIF", "CHEIF", "CTIFF", "CLCMS"],
      swiftSettings: optimize),
    .target(
      name: "FilterGraph",
      dependencies: ["PixelBufferModule", "ImageCodecs", "CKernels", "CBLAS", "CLCMS"],
      swiftSettings: optimize),
    .executableTarget(
      name: "fgrun",
      dependencies: [
        "FilterGraph",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      swiftSettings: optimize),

    // MARK: - Implementation details: C shims over the system libraries
    .target(
      name: "CJPEG",
      cSettings: [.unsafeFlags(["-O2"])],
      linkerSettings: [.linkedLibrary("jpeg")]),
    .target(
      name: "CPNG",
      cSettings: [.unsafeFlags(["-O2"])],
      // libdeflate compresses the PNG writer's segments; zlib stays for libpng (reading) and the
      // writer's Adler-32 combination and iCCP payload.
      linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z"), .linkedLibrary("deflate")]),
    .target(
      name: "CLCMS",
      linkerSettings: [.linkedLibrary("lcms2")]),
    .target(
      name: "CWebP",
      cSettings: [.unsafeFlags(["-O2"])],
      linkerSettings: [.linkedLibrary("webp"), .linkedLibrary("webpmux"), .linkedLibrary("webpdemux")]),
    .target(
      name: "CGIF",
      cSettings: [.unsafeFlags(["-O2"])],
      linkerSettings: [.linkedLibrary("gif")]),
    .target(
      name: "CHEIF",
      cSettings: [.unsafeFlags(["-O2"])],
      linkerSettings: [.linkedLibrary("heif"), .linkedLibrary("lcms2")]),
    .target(
      name: "CTIFF",
      cSettings: [.unsafeFlags(["-O2"])],
      linkerSettings: [.linkedLibrary("tiff")]),
    .target(
      name: "CKernels",
      // No fused multiply-add: the kernels must round exactly as the Swift loops they replace.
      cSettings: [.unsafeFlags(["-O2", "-ffp-contract=off"])]),
    .systemLibrary(
      name: "CBLAS",
      pkgConfig: "blas",
      providers: [.apt(["libblas-dev"])]),

    // MARK: - Unit test bundles (mirroring Sources/)
    .target(
      name: "TestSupport",
      dependencies: ["PixelBufferModule"],
      path: "Tests/TestSupport",
      resources: [.copy("Fixtures")]),
    .testTarget(
      name: "PixelBufferTests",
      dependencies: ["PixelBufferModule", "TestSupport"]),
    .testTarget(
      name: "ImageCodecsTests",
      dependencies: ["ImageCodecs", "TestSupport"]),
    .testTarget(
      name: "FilterGraphTests",
      dependencies: ["FilterGraph", "TestSupport"]),
    .testTarget(
      name: "fgrunTests",
      dependencies: ["FilterGraph", "TestSupport"]),
  ]
)
