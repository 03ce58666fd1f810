// swift-tools-version:6.0
//
// FilterGraph — a GPU-free, lazy, tile-parallel image pipeline for Linux.
//
// Targets, each with one job:
//   PixelBufferModule  the one pixel-buffer type every stage shares (no codec or system dependencies)
//   Locking            the one idiom for state shared between threads: Locked and Monitor
//   ImageCodecs        the codec registry: JPEG, PNG, WebP, GIF… (one folder each), safe file output
//   FilterGraph        the lazy Image recipe, the filters, the tile-parallel Renderer, the text recipes
//   ImageServer        `fgrun serve`: imgproxy-style URLs over HTTP (Hummingbird), signing, sources, limits
//   fgrun              the command-line tool
//   CJPEG, CPNG        small C shims that keep libjpeg's and libpng's longjmp error paths inside C
//   CWebP, CGIF        small C shims over libwebp (+ demux, mux) and giflib
//   CHEIF              libheif (AVIF, HEIC) behind calls returning a status and libheif's message (guarded.cpp catches a C++ exception escaping libheif)
//   CTIFF              libtiff behind a reader and a writer with per-handle error handlers
//                      (CPNG also holds the PNG writer's filtering and libdeflate segment joining)
//   CLCMS              lcms2 (ICC colour management) behind functions that never abort
//   CKernels           per-pixel loops in C: AVX2 intrinsics (runtime-dispatched, Swift fallbacks), and
//                      the affine resampler's window sums (portable vector C)
//   CProcess           signal handlers Swift cannot write safely: fatal signals under `ulimit -v` as
//                      an error and an exit status; file mappings a shrinking file cannot crash
//   CText              text layout and rasterising: HarfBuzz (shaping), FreeType (glyphs), fontconfig
//                      (fonts, fallback), ICU (bidi levels, line breaks); CFreeType finds FreeType's headers
//   CBLAS              the system CBLAS (Debian's libblas-dev), for the tests' reference colour matrix only
//
// No target a product uses passes compiler flags of its own (`unsafeFlags`), so another package
// can depend on this one by version. Release builds compile C at -O2 already; CKernels turns off
// floating-point contraction with a pragma in its source.
import PackageDescription

let package = Package(
  name: "FilterGraph",
  // Synchronization's `Atomic` and `Mutex` need macOS 15.
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "PixelBufferModule", targets: ["PixelBufferModule"]),
    .library(name: "ImageCodecs", targets: ["ImageCodecs"]),
    .library(name: "FilterGraph", targets: ["FilterGraph"]),
    // The server as a library, for the fuzz targets (Fuzz/) and embedding.
    .library(name: "ImageServer", targets: ["ImageServer"]),
    .executable(name: "fgrun", targets: ["fgrun"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    // `swift package generate-documentation` (README.md, Documentation); nothing links it.
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    // ImageServer (`fgrun serve`): HTTP, HMAC, remote sources, logs, metrics, graceful shutdown.
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
  ],
  targets: [
    // MARK: - Public API
    .target(
      name: "PixelBufferModule",
      path: "Sources/PixelBuffer"),
    .target(name: "Locking"),
    .target(
      name: "ImageCodecs",
      dependencies: ["PixelBufferModule", "Locking", "CJPEG", "CPNG", "CWebP", "CGIF", "CHEIF", "CTIFF", "CLCMS", "CProcess"]),
    .target(
      name: "FilterGraph",
      dependencies: ["PixelBufferModule", "Locking", "ImageCodecs", "CKernels", "CLCMS", "CText", "CProcess"]),
    .target(
      name: "ImageServer",
      dependencies: [
        "FilterGraph", "Locking",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "Prometheus", package: "swift-prometheus"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ]),
    .executableTarget(
      name: "fgrun",
      dependencies: [
        "FilterGraph", "Locking", "CProcess",
        "ImageServer",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ]),

    // MARK: - Implementation details: C shims over the system libraries
    .target(
      name: "CJPEG",
      linkerSettings: [.linkedLibrary("jpeg")]),
    .target(
      name: "CPNG",
      // libdeflate compresses the PNG writer's segments; zlib stays for libpng (reading) and the
      // writer's Adler-32 combination and iCCP payload.
      linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z"), .linkedLibrary("deflate")]),
    .target(
      name: "CLCMS",
      linkerSettings: [.linkedLibrary("lcms2")]),
    .target(
      name: "CWebP",
      linkerSettings: [.linkedLibrary("webp"), .linkedLibrary("webpmux"), .linkedLibrary("webpdemux")]),
    .target(
      name: "CGIF",
      linkerSettings: [.linkedLibrary("gif")]),
    .target(
      name: "CHEIF",
      linkerSettings: [.linkedLibrary("heif"), .linkedLibrary("lcms2")]),
    .target(
      name: "CTIFF",
      linkerSettings: [.linkedLibrary("tiff")]),
    .target(name: "CKernels"),
    .target(name: "CProcess"),
    .target(
      name: "CText",
      dependencies: ["CFreeType"],
      linkerSettings: [.linkedLibrary("harfbuzz"), .linkedLibrary("fontconfig"), .linkedLibrary("icuuc")]),
    .systemLibrary(
      name: "CFreeType",
      pkgConfig: "freetype2",
      providers: [.apt(["libfreetype-dev"])]),
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
      dependencies: ["FilterGraph", "Locking", "TestSupport", "CBLAS"]),
    .testTarget(
      name: "fgrunTests",
      dependencies: ["FilterGraph", "TestSupport"]),
    .testTarget(
      name: "ImageServerTests",
      dependencies: [
        "ImageServer", "FilterGraph", "Locking", "TestSupport",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ]),
  ]
)
