// AnimationLoopTests.swift — the frame loop: every frame through the graph (not frame 1 again),
// windows (trim, smartcrop) decided on the first frame and identical on every frame, timing
// options, and one frame of memory for 1 000 frames (frames alive counted, the renderer's
// estimate the same as for 10 frames).

@testable import FilterGraph
import Foundation
import ImageCodecs
import TestSupport
import XCTest

/// Frames made on demand; remembers each frame's storage weakly to count how many are alive.
private final class MadeFrames: AnimationFrameReader {
  let info: AnimationInfo
  let frameFormat = PixelFormat.rgb8
  private let make: (Int) -> PixelBuffer
  private var next = 0
  private var made: [Weak] = []
  private(set) var mostAlive = 0

  private final class Weak { weak var storage: PixelStorage?; init(_ s: PixelStorage) { storage = s } }

  init(count: Int, size: Size, delays: [Int]? = nil, make: @escaping (Int) -> PixelBuffer) {
    info = AnimationInfo(canvasSize: size, delays: delays ?? Array(repeating: 40, count: count), loopCount: 0)
    self.make = make
  }

  func nextFrame() throws -> PixelBuffer? {
    guard next < info.frameCount else { return nil }
    made.removeAll { $0.storage == nil }
    let frame = make(next)
    next += 1
    made.append(Weak(frame.sharedStorage))
    mostAlive = max(mostAlive, made.filter { $0.storage != nil }.count)
    return frame
  }
}

/// Keeps every frame it is given (or only counts them).
private final class KeptFrames: AnimationFrameWriter {
  var frames: [PixelBuffer] = [], delays: [Int] = []
  let keeps: Bool
  init(keeps: Bool = true) { self.keeps = keeps }
  func add(_ frame: PixelBuffer, delay: Int) throws {
    if keeps { frames.append(frame) }
    delays.append(delay)
  }
  func finish() throws -> Data? { Data() }
  var stateBytes: Int { 0 }
}

final class AnimationLoopTests: XCTestCase {
  private let renderer = Renderer()

  private func run(
    _ reader: any AnimationFrameReader, options: AnimationOptions = AnimationOptions(), keeps: Bool = true,
    _ recipe: @escaping (Image) -> Image
  ) throws -> (KeptFrames, AnimationSummary) {
    let kept = KeptFrames(keeps: keeps)
    let (_, summary) = try renderer.renderAnimation(from: reader, applying: recipe, options: options) { _, _, _, _ in kept }
    return (kept, summary)
  }

  /// Every frame of a GIF with every disposal case, scaled and blurred, equals the same recipe
  /// rendered on that frame alone (its page).
  func testEveryFrameGoesThroughTheRecipe() throws {
    let data = try Fixtures.data("animation/disposal.gif")
    let recipe: (Image) -> Image = { $0.scaled(toWidth: 37).blurred(sigma: 1.2) }
    let (kept, summary) = try run(try GIFCodec.makeFrameReader(data, limits: .default), recipe)
    XCTAssertEqual(kept.frames.count, 5)
    XCTAssertEqual(summary.delays, [100, 50, 0, 200, 70])
    XCTAssertEqual(summary.loopCount, 4)
    for page in 0..<5 {
      let alone = try EncodedSource(data: data, options: LoadOptions(formatOptions: ["page": .integer(page)]))
      let expected = try renderer.render(recipe(Image(source: alone)), format: .rgba8)
      XCTAssertTrue(kept.frames[page].hasSamePixels(as: expected), "frame \(page + 1)")
    }
  }

  /// A 12×12 noise square moves across a white canvas. `trim` and `smartcrop` choose their
  /// window on frame 1; every output frame is its frame's pixels in that same window (frame 2's
  /// window is then white: its square has moved away).
  func testWindowsAreDecidedOnTheFirstFrame() throws {
    let places = [(6, 4), (30, 20), (20, 10)]
    func frame(_ k: Int) -> PixelBuffer {
      var buffer = PixelBuffer(width: 48, height: 36, format: .rgb8)
      buffer.fill(SIMD4<Float>(1, 1, 1, 1))
      buffer.copyPixels(from: PixelBuffer.random(width: 12, height: 12, format: .rgb8, seed: UInt64(k + 1)), to: Point(x: places[k].0, y: places[k].1))
      return buffer
    }
    for (name, recipe) in [("trim", { (i: Image) in i.trimmed() }), ("smartcrop", { (i: Image) in i.smartCropped(to: Size(width: 16, height: 16)) })] {
      let (kept, _) = try run(MadeFrames(count: 3, size: Size(width: 48, height: 36), make: frame), recipe)
      let first = kept.frames[0]
      let window = try XCTUnwrap(Self.place(of: first, in: frame(0)), "\(name): frame 1's output is not a window of frame 1")
      for k in 0..<3 {
        XCTAssertEqual(kept.frames[k].size, first.size, name)
        XCTAssertTrue(kept.frames[k].hasSamePixels(as: frame(k).cropped(to: window)), "\(name) frame \(k + 1) is not in frame 1's window \(window)")
      }
      XCTAssertFalse(kept.frames[1].hasSamePixels(as: try renderer.render(recipe(Image(buffer: frame(1))), format: .rgb8)), "\(name): frame 2 alone would choose another window")
    }
  }

  /// --frames, --speed and --fps select and retime.
  func testFramesAndTiming() throws {
    let reader = { MadeFrames(count: 6, size: Size(width: 4, height: 4), delays: [10, 20, 30, 40, 50, 60]) { _ in PixelBuffer.random(width: 4, height: 4, format: .rgb8) } }
    XCTAssertEqual(try run(reader(), options: AnimationOptions(frames: 1...3, speed: 2)) { $0 }.0.delays, [10, 15, 20])
    XCTAssertEqual(try run(reader(), options: AnimationOptions(frames: 4...100, framesPerSecond: 25)) { $0 }.0.delays, [40, 40])
    XCTAssertThrowsError(try run(reader(), options: AnimationOptions(frames: 6...7)) { $0 })
  }

  /// 1 000 frames through scale + blur: never more than three frames alive when one is read (it,
  /// the last one rendered, and at times the one before, whose last tiles a worker thread may
  /// still be letting go), and the renderer's estimate is the same as for 10 frames.
  func testThousandFramesHoldOneFrame() throws {
    let size = Size(width: 32, height: 24)
    let recipe: (Image) -> Image = { $0.scaled(toWidth: 16).blurred(sigma: 1) }
    let long = MadeFrames(count: 1000, size: size) { PixelBuffer.random(width: 32, height: 24, format: .rgb8, seed: UInt64($0)) }
    let (kept, summary) = try run(long, keeps: false, recipe)
    XCTAssertEqual(kept.delays.count, 1000)
    XCTAssertLessThanOrEqual(long.mostAlive, 3)
    let short = MadeFrames(count: 10, size: size) { PixelBuffer.random(width: 32, height: 24, format: .rgb8, seed: UInt64($0)) }
    XCTAssertEqual(try run(short, keeps: false, recipe).1.estimatedBytes, summary.estimatedBytes)
    XCTAssertGreaterThan(summary.estimatedBytes, 32 * 24 * 3)
    XCTAssertLessThan(summary.estimatedBytes, 64 << 20)
  }

  /// Where `part` sits inside `whole` (both RGB8), if anywhere.
  private static func place(of part: PixelBuffer, in whole: PixelBuffer) -> Rect? {
    for y in 0...(whole.height - part.height) {
      for x in 0...(whole.width - part.width) {
        let rect = Rect(x: x, y: y, width: part.width, height: part.height)
        if whole.cropped(to: rect).hasSamePixels(as: part) { return rect }
      }
    }
    return nil
  }
}
