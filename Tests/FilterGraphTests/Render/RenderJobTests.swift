// Tests of RenderJob (Job/RenderJob.swift): bytes in and out as files are, the output format
// chosen in one place, alpha flattened for formats without it (against Flatten.swift's
// definition), warnings in the result.

import FilterGraph
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class RenderJobTests: XCTestCase {
  typealias T = ResampleTestSupport

  private var folder: URL!

  override func setUpWithError() throws {
    folder = FileManager.default.temporaryDirectory.appendingPathComponent("RenderJobTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

  func testBytesInAndOutGiveTheFileBytesWithTheSameLimits() throws {
    let renderer = Renderer()
    let photo = Fixtures.url("jpeg/testorig.jpg")
    let bytes = try Data(contentsOf: photo)
    let half: (Image) throws -> Image = { $0.scaled(by: 0.5) }
    let out = folder.appendingPathComponent("half.png")
    let onDisk = try RenderJob(input: .file(photo), destination: .file(out), recipe: half).run(on: renderer)
    let inMemory = try RenderJob(input: .data(bytes), destination: .memory, options: WriteOptions(format: .png), recipe: half)
      .run(on: renderer)
    XCTAssertEqual(inMemory.data, try Data(contentsOf: out))
    XCTAssertEqual(onDisk.format, .png)
    XCTAssertEqual(onDisk.byteCount, inMemory.data?.count)
    XCTAssertEqual(inMemory.size, Size(width: 114, height: 75))
    XCTAssertEqual(inMemory.inputSize, Size(width: 227, height: 149))
    XCTAssertNil(onDisk.data)
    // Without a format or a file name, memory keeps the input's format.
    let kept = try RenderJob(input: .data(bytes), destination: .memory).run(on: renderer)
    XCTAssertEqual(kept.format, .jpeg)
    XCTAssertEqual(try EncodedSource(data: kept.data!, options: LoadOptions()).header.fileFormat, .jpeg)

    // The pixel limit refuses bytes as it refuses the file, before any decode, as an input error.
    let small = LoadOptions(limits: DecodeLimits(maxPixels: 1000))
    let decodes = renderer.statistics.decodes
    var messages: [String] = []
    for input in [ImageInput.file(photo), .data(bytes)] {
      XCTAssertThrowsError(try RenderJob(input: input, destination: .memory, loadOptions: small).run(on: renderer)) { error in
        let job = error as? RenderJobError
        XCTAssertEqual(job?.stage, .input, "\(error)")
        XCTAssertEqual((job?.underlying as? CodecError)?.kind, .tooLarge, "\(error)")
        messages.append("\(error)")
      }
    }
    XCTAssertEqual(renderer.statistics.decodes, decodes, "refused before any decode")
    XCTAssertEqual(messages.count, 2)
    XCTAssertEqual(messages.first, messages.last?.replacingOccurrences(of: "image data", with: photo.path))
  }

  func testTheOutputFormatIsChosenOnceAndContradictionsAreRefused() throws {
    let renderer = Renderer()
    let photo = Fixtures.url("jpeg/testorig.jpg")
    func stage(_ job: RenderJob) -> RenderJobError.Stage? {
      do { _ = try job.run(on: renderer) } catch { return (error as? RenderJobError)?.stage }
      return nil
    }
    let png = folder.appendingPathComponent("a.png")
    XCTAssertEqual(stage(RenderJob(input: .file(photo), destination: .file(png), options: WriteOptions(format: .jpeg))), .options)
    XCTAssertEqual(stage(RenderJob(input: .file(photo), destination: .file(folder.appendingPathComponent("a.xyz")))), .options)
    XCTAssertFalse(FileManager.default.fileExists(atPath: png.path))
    // A name without a known extension takes the format asked for.
    let named = folder.appendingPathComponent("a.out")
    XCTAssertEqual(try RenderJob(input: .file(photo), destination: .file(named), options: WriteOptions(format: .webp)).run(on: renderer).format, .webp)
    XCTAssertEqual(try EncodedSource(contentsOf: named, options: LoadOptions()).header.fileFormat, .webp)

    // The input file is never the output, and is left as it was.
    let copy = folder.appendingPathComponent("in.jpg")
    try FileManager.default.copyItem(at: photo, to: copy)
    XCTAssertEqual(stage(RenderJob(input: .file(copy), destination: .file(copy)) { $0.blurred(sigma: 2) }), .output)
    XCTAssertEqual(try Data(contentsOf: copy), try Data(contentsOf: photo))
  }

  /// A job's estimate counts what a whole-picture encoder holds: libheif gathers the picture's
  /// RGB rows and converts them to YCbCr planes before its encoder's own frames, so a HEIC
  /// output's estimate is at least 3 + 1.5 bytes a pixel over the render's; PNG and JPEG compress
  /// bands as they come and add nothing.
  func testAWholePictureEncoderIsInTheJobsEstimate() throws {
    let renderer = Renderer()
    let photo = Fixtures.url("jpeg/testorig.jpg")
    func estimate(_ format: ImageFileFormat) throws -> Int {
      try RenderJob(input: .file(photo), destination: .memory, options: WriteOptions(format: format)).prepare(on: renderer).estimatedMemory
    }
    let job = try RenderJob(input: .file(photo), destination: .memory, options: WriteOptions(format: .png)).prepare(on: renderer)
    let render = renderer.estimatedMemory(for: job.image), pixels = job.image.size.width * job.image.size.height
    XCTAssertEqual(try estimate(.png), render)
    XCTAssertEqual(try estimate(.jpeg), render)
    for format in [ImageFileFormat.heic, .avif, .webp, .gif] {
      XCTAssertGreaterThanOrEqual(try estimate(format) - render, pixels * 9 / 2, "\(format)")
    }
  }

  func testAlphaIsFlattenedOntoTheBackgroundForAFormatWithoutIt() throws {
    let renderer = Renderer()
    // Random colours under random alpha, with a column of fully transparent pure red: the colour
    // a plain alpha drop would show.
    var seeded = try T.bytes(T.randomImage(width: 40, height: 24, alpha: true, seed: 5), format: .rgba8)
    for y in 0..<24 { seeded[y].replaceSubrange(0..<4, with: [255, 0, 0, 0]) }
    let rgba = T.image(width: 40, height: 24, alpha: true) { x, y in Array(seeded[y][4 * x..<4 * x + 4]) }
    let png = try renderer.encode(rgba, format: .png)
    let src = try T.bytes(try Image(data: png), format: .rgba8)
    func lin(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
    func enc(_ v: Double) -> Double { v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055 }
    for background in [WriteOptions.defaultBackground, Color(hex: "#204080")!] {
      var options = WriteOptions(format: .jpeg, options: ["quality": 100, "chroma": "444"])
      options.background = background
      let result = try RenderJob(input: .data(png), destination: .memory, options: options).run(on: renderer)
      let out = try T.bytes(try Image(data: result.data!), format: .rgb8)
      let c = [background.red, background.green, background.blue].map { lin(Double($0)) }
      var worst = 0.0
      for y in 0..<24 {
        for x in 0..<40 {
          let a = Double(src[y][4 * x + 3]) / 255
          for k in 0..<3 {
            let expected = enc(lin(Double(src[y][4 * x + k]) / 255) * a + (1 - a) * c[k]) * 255
            worst = max(worst, abs(Double(out[y][3 * x + k]) - expected))
          }
        }
      }
      // JPEG at quality 100 without subsampling is within a few levels of its input.
      XCTAssertLessThan(worst, 6, "background \(background)")
      for y in 0..<24 {
        XCTAssertEqual(Double(out[y][0]), Double(background.red) * 255, accuracy: 6, "the hidden red stays hidden")
      }
    }
    XCTAssertEqual(WriteOptions.defaultBackground, .white)
    // A format with alpha keeps it.
    let kept = try RenderJob(input: .data(png), destination: .memory, options: WriteOptions(format: .png)).run(on: renderer)
    XCTAssertEqual(try T.bytes(try Image(data: kept.data!), format: .rgba8), src)
    let explained = try renderer.explain(try Image(data: png), format: .jpeg)
    XCTAssertTrue(explained.contains("flatten color=#FFFFFF"), explained)
    XCTAssertFalse(try renderer.explain(try Image(data: png), format: .png).contains("flatten"))
  }

  func testWarningsComeBackInTheResult() throws {
    let whole = try Data(contentsOf: Fixtures.url("jpeg/testorig.jpg"))
    let cut = whole.prefix(whole.count * 2 / 5)
    for streaming in [true, false] {
      let renderer = Renderer(options: RendererOptions(streamingMinimumBytes: streaming ? 0 : .max))
      let patched = try RenderJob(input: .data(cut), destination: .memory, options: WriteOptions(format: .png)).run(on: renderer)
      XCTAssertTrue(patched.warnings.contains { $0.contains("Premature end of JPEG file") }, "streaming \(streaming): \(patched.warnings)")
      let intact = try RenderJob(input: .data(whole), destination: .memory, options: WriteOptions(format: .png)).run(on: renderer)
      XCTAssertEqual(intact.warnings, [])
    }
  }
}
