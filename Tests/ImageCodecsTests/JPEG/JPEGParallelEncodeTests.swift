// JPEGParallelEncodeTests.swift — baseline JPEGs compressed in parallel strips joined by restart
// markers decode to exactly the pixels of the serial encode, carry a DRI marker and RST0…7 in
// order, decode cleanly (libjpeg and, when installed, Pillow) and are about the serial size.
import Foundation
import PixelBufferModule
import TestSupport
import XCTest

@testable import ImageCodecs

#if canImport(Glibc)
  import Glibc
#endif

/// Runs jobs in submission order on `threads` threads of its own (stopped at deinit).
private final class StripThreads: EncodeJobExecutor, @unchecked Sendable {
  private let condition = NSCondition()
  private var jobs: [() -> Void] = []
  private var stopping = false

  init(threads: Int) {
    for _ in 0..<threads {
      Thread { [self] in run() }.start()
    }
  }

  func stop() {
    condition.lock()
    stopping = true
    condition.broadcast()
    condition.unlock()
  }

  func submit(_ job: @escaping () -> Void) {
    condition.lock()
    jobs.append(job)
    condition.signal()
    condition.unlock()
  }

  private func run() {
    while true {
      condition.lock()
      while jobs.isEmpty && !stopping { condition.wait() }
      if jobs.isEmpty {
        condition.unlock()
        return
      }
      let job = jobs.removeFirst()
      condition.unlock()
      job()
    }
  }
}

final class JPEGParallelEncodeTests: XCTestCase {
  /// Encodes `image` handing rows over in bands of `band` rows, serially or on `threads` threads.
  private func encode(
    _ image: PixelBuffer, options: JPEGEncodeOptions, icc: Data? = nil, band: Int, threads: Int?,
    stripRows: Int? = nil, to destination: JPEGStreamEncoder.Destination = .memory
  ) throws -> Data? {
    let executor = threads.map { StripThreads(threads: $0) }
    defer { executor?.stop() }
    let encoder = try JPEGStreamEncoder(
      size: image.size, layout: image.format.layout, options: options, iccProfile: icc, to: destination,
      executor: executor, maxStripsInFlight: 3, stripRows: stripRows)
    XCTAssertEqual(encoder.isParallel, threads != nil)
    var y = 0
    while y < image.height {
      let rows = min(band, image.height - y)
      try encoder.write(rows: image.cropped(to: Rect(x: 0, y: y, width: image.width, height: rows)))
      y += rows
    }
    return try encoder.finish()
  }

  /// The restart interval of the DRI marker and the RST marker numbers in the entropy data.
  private func restarts(_ jpeg: Data) -> (interval: Int?, markers: [Int]) {
    let bytes = [UInt8](jpeg)
    let interval = JPEGTest.markerOffset(bytes, 0xDD).map { Int(bytes[$0 + 4]) << 8 | Int(bytes[$0 + 5]) }
    var markers: [Int] = []
    var i = JPEGTest.entropyStart(bytes)
    while i + 1 < bytes.count {
      if bytes[i] == 0xFF, (0xD0...0xD7).contains(bytes[i + 1]) { markers.append(Int(bytes[i + 1]) - 0xD0) }
      i += 1
    }
    return (interval, markers)
  }

  /// A smooth image with a little noise (compresses like a photo).
  private static func photoLike(width: Int, height: Int, format: PixelFormat) -> PixelBuffer {
    var image = PixelBuffer(width: width, height: height, format: format)
    var rng = SeededGenerator(seed: 5)
    let channels = format.channelCount
    image.withUnsafeMutableBaseAddress { base, rowBytes in
      for y in 0..<height {
        let row = (base + y * rowBytes).assumingMemoryBound(to: UInt8.self)
        for x in 0..<width {
          for c in 0..<channels {
            let wave = sin(Double(x) / 37 + Double(c)) * cos(Double(y) / 23) * 90 + 128
            row[x * channels + c] = UInt8(clamping: Int(wave) + Int(rng.next() % 9) - 4)
          }
        }
      }
    }
    return image
  }

  func testParallelDecodesToSerialPixelsWithRestartMarkersInOrder() throws {
    let icc = Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    let shapes: [(Int, Int)] = [(61, 45), (1, 37), (33, 1), (130, 70)]
    let layouts: [(String, PixelFormat, JPEGEncodeOptions.ChromaSubsampling, Int)] = [
      ("rgb 4:2:0", .rgb8, .s420, 16), ("rgb 4:2:2", .rgb8, .s422, 8), ("rgb 4:4:4", .rgb8, .s444, 8),
      ("gray", .gray8, .s420, 8), ("rgba 4:2:0", .rgba8, .s420, 16),
    ]
    var checked = 0
    for (name, format, subsampling, mcuHeight) in layouts {
      for (width, height) in shapes {
        let image = PixelBuffer.random(width: width, height: height, format: format, seed: UInt64(width * height))
        let options = JPEGEncodeOptions(quality: 90, chromaSubsampling: subsampling, optimizesHuffmanCoding: false)
        let serial = try XCTUnwrap(encode(image, options: options, icc: icc, band: 64, threads: nil))
        let expected = try JPEGDecoder.decode(serial)
        for (band, threads, stripRows) in [(1, 1, 1), (7, 2, 16), (16, 3, 24), (64, 2, nil)] as [(Int, Int, Int?)] {
          let label = "\(name) \(width)×\(height) band \(band) threads \(threads) strip \(stripRows.map(String.init) ?? "auto")"
          let parallel = try XCTUnwrap(encode(image, options: options, icc: icc, band: band, threads: threads, stripRows: stripRows))
          let decoded = try JPEGDecoder.decodeReportingWarnings(parallel)
          XCTAssertEqual(decoded.warnings, [], label)
          XCTAssertEqual(decoded.buffer.integerValues(), expected.integerValues(), "pixels differ: \(label)")
          XCTAssertEqual(decoded.buffer.metadata.iccProfile, icc, label)
          let layout = try XCTUnwrap(
            JPEGStripEncoder.layout(
              width: width, components: format.layout.withoutAlpha == .gray ? 1 : 3,
              subsampling: subsampling, requestedRows: stripRows))
          XCTAssertEqual(layout.rowsPerStrip % mcuHeight, 0, label)
          let strips = (height + layout.rowsPerStrip - 1) / layout.rowsPerStrip
          let (interval, markers) = restarts(parallel)
          XCTAssertEqual(interval, layout.restartInterval, label)
          XCTAssertEqual(markers, (0..<(strips - 1)).map { $0 % 8 }, label)
          checked += 1
        }
      }
    }
    XCTAssertEqual(checked, 80)
  }

  func testStripLayoutUsesWholeMCURowsWithinTheRestartLimit() throws {
    XCTAssertEqual(
      JPEGStripEncoder.layout(width: 6000, components: 3, subsampling: .s420, requestedRows: nil),
      JPEGStripEncoder.Layout(rowsPerStrip: 64, restartInterval: 375 * 4))
    XCTAssertEqual(
      JPEGStripEncoder.layout(width: 6000, components: 1, subsampling: .s420, requestedRows: 20),
      JPEGStripEncoder.Layout(rowsPerStrip: 24, restartInterval: 750 * 3))
    // 65500 pixels wide in 8×8 MCUs: 8188 MCUs a row, so at most 8 MCU rows fit 65535.
    XCTAssertEqual(
      JPEGStripEncoder.layout(width: 65500, components: 3, subsampling: .s444, requestedRows: 1000),
      JPEGStripEncoder.Layout(rowsPerStrip: 64, restartInterval: 8188 * 8))
  }

  func testParallelFileIsWithinHalfAPercentOfTheSerialSize() throws {
    let image = Self.photoLike(width: 1500, height: 1000, format: .rgb8)
    for subsampling in [JPEGEncodeOptions.ChromaSubsampling.s420, .s444] {
      let options = JPEGEncodeOptions(quality: 90, chromaSubsampling: subsampling, optimizesHuffmanCoding: false)
      let serial = try XCTUnwrap(encode(image, options: options, band: 64, threads: nil))
      let parallel = try XCTUnwrap(encode(image, options: options, band: 64, threads: 2))
      XCTAssertGreaterThan(restarts(parallel).markers.count, 5)
      let ratio = Double(parallel.count) / Double(serial.count)
      XCTAssertLessThan(abs(ratio - 1), 0.005, "\(subsampling): \(parallel.count) vs \(serial.count) bytes")
      XCTAssertEqual(try JPEGDecoder.decode(parallel).integerValues(), try JPEGDecoder.decode(serial).integerValues())
    }
  }

  func testStreamedParallelFileEqualsInMemoryParallelFile() throws {
    let image = PixelBuffer.random(width: 300, height: 260, format: .rgb8, seed: 9)
    let options = JPEGEncodeOptions(quality: 85, optimizesHuffmanCoding: false)
    let memory = try XCTUnwrap(encode(image, options: options, band: 30, threads: 2, stripRows: 32))
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("jpegpar-\(UUID().uuidString).jpg")
    defer { try? FileManager.default.removeItem(at: url) }
    try OutputFile.write(to: url) { handle in
      XCTAssertNil(try encode(image, options: options, band: 30, threads: 2, stripRows: 32, to: .handle(handle)))
    }
    XCTAssertEqual(try Data(contentsOf: url), memory)
  }

  func testProgressiveAndOptimisedFilesStaySerial() throws {
    let image = PixelBuffer.random(width: 40, height: 40, format: .rgb8, seed: 2)
    for options in [JPEGEncodeOptions(isProgressive: true, optimizesHuffmanCoding: false), JPEGEncodeOptions(optimizesHuffmanCoding: true)] {
      let threads = StripThreads(threads: 1)
      defer { threads.stop() }
      let encoder = try JPEGStreamEncoder(
        size: image.size, layout: .rgb, options: options, executor: threads)
      XCTAssertFalse(encoder.isParallel)
      try encoder.write(rows: image)
      let jpeg = try XCTUnwrap(encoder.finish())
      XCTAssertNil(restarts(jpeg).interval)
    }
  }

  func testFullDiskFailsTheParallelEncodeWithAnIOError() throws {
    guard FileManager.default.fileExists(atPath: "/dev/full") else { throw XCTSkip("no /dev/full") }
    let fd = open("/dev/full", O_WRONLY)
    XCTAssertGreaterThanOrEqual(fd, 0)
    defer { close(fd) }
    let handle = OutputHandle(fd: fd, path: "/dev/full")
    let image = PixelBuffer.random(width: 512, height: 512, format: .rgb8, seed: 4)
    XCTAssertThrowsError(
      try encode(image, options: JPEGEncodeOptions(optimizesHuffmanCoding: false), band: 64, threads: 2, stripRows: 64, to: .handle(handle))
    ) { error in
      XCTAssertEqual((error as? CodecError)?.kind, .io, "\(error)")
    }
  }

  func testPillowDecodesTheParallelFileWithoutWarnings() throws {
    let python = "/usr/bin/python3"
    guard FileManager.default.isExecutableFile(atPath: python) else { throw XCTSkip("no python3") }
    let image = Self.photoLike(width: 333, height: 217, format: .rgb8)
    let jpeg = try XCTUnwrap(encode(image, options: JPEGEncodeOptions(quality: 90, optimizesHuffmanCoding: false), band: 16, threads: 2, stripRows: 16))
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("jpegpar-\(UUID().uuidString).jpg")
    defer { try? FileManager.default.removeItem(at: url) }
    try jpeg.write(to: url)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = [
      "-W", "error", "-c",
      "import sys\ntry:\n import PIL.Image\nexcept ImportError:\n sys.exit(77)\n"
        + "im = PIL.Image.open(sys.argv[1]); im.load(); print(im.size[0], im.size[1])",
      url.path,
    ]
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    process.waitUntilExit()
    if process.terminationStatus == 77 { throw XCTSkip("Pillow is not installed") }
    let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    XCTAssertEqual(process.terminationStatus, 0, stderr)
    XCTAssertEqual(stderr, "")
    XCTAssertEqual(stdout.trimmingCharacters(in: .whitespacesAndNewlines), "333 217")
  }
}
