// AnimationJobTests.swift — animations through the job type (RenderJob) wherever fgrun writes:
// a batch keeps every frame (reported ok, no still warning), --fps reaches a batch's files, an
// animation to standard output keeps the input's format as a still does, and an animated WebP
// with EXIF orientation 6 has every frame turned as the still path turns it, its EXIF upright.
// Frames are counted and compared by Pillow.

import FilterGraph
import Foundation
import TestSupport
import XCTest

extension FGRunTestCase {
  /// Pillow's reading of `path` (in the test's folder): format, frame count, each frame's
  /// duration, and the EXIF orientation (0 when none).
  func pillowFrames(_ path: String) throws -> (format: String, frames: Int, durations: [Int], orientation: Int) {
    let script = """
      import json, sys
      from PIL import Image, ImageSequence
      im = Image.open(sys.argv[1]); durations = [int(f.info.get("duration", 0)) for f in ImageSequence.Iterator(im)]
      print(json.dumps([im.format, im.n_frames, durations, im.getexif().get(0x0112, 0)]))
      """
    let run = try ChildProcess.run("/usr/bin/python3", ["-c", script, path], in: folder)
    XCTAssertEqual(run.status, 0, run.stderr)
    let fields = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.text.utf8)) as? [Any])
    return (fields[0] as? String ?? "", fields[1] as? Int ?? 0, fields[2] as? [Int] ?? [], fields[3] as? Int ?? 0)
  }

  /// Skips unless Pillow can be run.
  func requirePillow() throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"),
      (try? ChildProcess.run("/usr/bin/python3", ["-c", "import PIL"], in: folder))?.status == 0
    else { throw XCTSkip("python3 with Pillow not installed") }
  }
}

extension BatchTests {
  /// Two 5-frame GIFs in a batch to GIF: each output has 5 frames with the input's delays, the
  /// report says ok (not damaged) and nothing warns that only frame 1 was read; --fps retimes them.
  func testABatchKeepsEveryFrame() throws {
    try requirePillow()
    try copyFixture("animation/disposal.gif", as: "a.gif")
    try copyFixture("animation/disposal.gif", as: "b.gif")
    let run = try fgrun(["-e", "scale width=12", "a.gif", "b.gif", "-o", "out"])
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertTrue(run.text.contains("2 files: 2 ok, 0 failed"), run.text)
    XCTAssertTrue(run.text.contains("ok a.gif -> out/a.gif"), run.text)
    XCTAssertFalse(run.stderr.contains("only frame 1"), run.stderr)
    for name in ["out/a.gif", "out/b.gif"] {
      let read = try pillowFrames(name)
      XCTAssertEqual(read.format, "GIF")
      XCTAssertEqual(read.frames, 5, name)
      XCTAssertEqual(read.durations, [100, 50, 0, 200, 70], name)
    }
    let timed = try fgrun(["-e", "scale width=12", "--fps", "10", "a.gif", "-o", "timed"])
    XCTAssertEqual(timed.status, 0, timed.stderr)
    XCTAssertEqual(try pillowFrames("timed/a.gif").durations, [100, 100, 100, 100, 100])
  }
}

extension BatchTests {
  /// A batch writing an animation to JPEG writes frame 1 and reports the file ok with a warning:
  /// the input is whole, so it is not counted as damaged, and `--fail-on damaged` writes it.
  func testABatchToAStillFormatWarnsButIsNotDamaged() throws {
    try copyFixture("animation/disposal.gif", as: "a.gif")
    let run = try fgrun(["-e", "scale width=12", "--fail-on", "damaged", "a.gif", "-o", "out", "--format", "jpeg"])
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertTrue(run.text.contains("1 file: 1 ok (1 with warnings), 0 failed"), run.text)
    XCTAssertTrue(run.text.contains("ok (1 warning) a.gif -> out/a.jpg"), run.text)
    XCTAssertFalse(run.text.contains("damaged"), run.text)
    XCTAssertEqual(run.stderr.components(separatedBy: "only frame 1 is read").count, 2, run.stderr)
    XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("out/a.jpg").path))
  }
}

extension FGRunTests {
  /// Written to standard output, an animation keeps the input's format (GIF) and every frame, as
  /// a still keeps its format there.
  func testAnAnimationToStandardOutputKeepsTheInputsFormat() throws {
    try requirePillow()
    try copyFixture("animation/disposal.gif", as: "anim.gif")
    let run = try fgrun(["-e", "scale width=12", "anim.gif", "-"])
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertFalse(run.stderr.contains("warning"), run.stderr)
    try run.stdout.write(to: file("piped"))
    let read = try pillowFrames("piped")
    XCTAssertEqual(read.format, "GIF")
    XCTAssertEqual(read.frames, 5)
  }

  /// An animated WebP whose EXIF says orientation 6 (made by Pillow): every frame of the lossless
  /// animated output equals, pixel for pixel, that frame written alone as a still with --frame N
  /// (the still path turns it upright), and the output's EXIF says orientation 1.
  func testAnimationFramesAreTurnedByTheEXIFOrientation() throws {
    try requirePillow()
    let make = """
      from PIL import Image
      frames = []
      for k in range(3):
          im = Image.new("RGB", (12, 8))
          im.putdata([((x * 20 + k * 40) % 256, (y * 30) % 256, (x * y * 7 + k * 50) % 256) for y in range(8) for x in range(12)])
          frames.append(im)
      exif = Image.Exif(); exif[0x0112] = 6
      frames[0].save("o6.webp", save_all=True, append_images=frames[1:], duration=[100, 50, 70], lossless=True, exif=exif.tobytes())
      """
    let made = try ChildProcess.run("/usr/bin/python3", ["-c", make], in: folder)
    XCTAssertEqual(made.status, 0, made.stderr)
    let run = try fgrun(["-e", "scale width=6", "--lossless", "o6.webp", "out.webp"])
    XCTAssertEqual(run.status, 0, run.stderr)
    for k in 1...3 {
      let alone = try fgrun(["-e", "scale width=6", "--frame", "\(k)", "o6.webp", "frame\(k).png"])
      XCTAssertEqual(alone.status, 0, alone.stderr)
    }
    let compare = """
      import json
      from PIL import Image, ImageSequence
      im = Image.open("out.webp"); out = []
      for k, f in enumerate(ImageSequence.Iterator(im)):
          a = f.convert("RGB"); b = Image.open(f"frame{k + 1}.png").convert("RGB")
          out.append([list(a.size), sum(x != y for x, y in zip(a.tobytes(), b.tobytes())) + abs(len(a.tobytes()) - len(b.tobytes()))])
      print(json.dumps([im.n_frames, im.getexif().get(0x0112, 0), out]))
      """
    let read = try ChildProcess.run("/usr/bin/python3", ["-c", compare], in: folder)
    XCTAssertEqual(read.status, 0, read.stderr)
    XCTAssertEqual(read.text.trimmingCharacters(in: .whitespacesAndNewlines), "[3, 1, [[[6, 9], 0], [[6, 9], 0], [[6, 9], 0]]]")
  }
}
