// InputLimitTests.swift — what fgrun holds of an input is bounded, and metadata it cannot keep
// does not cost the image (issue #28, findings 3 and 8).

import FilterGraph
import Foundation
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

final class InputLimitTests: XCTestCase {
  var folder: URL!
  var binary: String!

  override func setUpWithError() throws {
    folder = FileManager.default.temporaryDirectory.appendingPathComponent("fgrun-limits-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    binary = try XCTUnwrap(FGRunTests.binary?.path)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: folder)
  }

  func file(_ name: String) -> URL { folder.appendingPathComponent(name) }

  /// Runs a shell command line in the folder, fgrun as `$F`, under a 2 GB address-space limit
  /// (reading `/dev/zero` whole would pass it: the command would die instead of failing cleanly;
  /// the default limit, 1 GiB, is left to the help text, as reading it here would take a second
  /// and a gigabyte).
  func shell(_ line: String) throws -> ChildProcess.Outcome {
    // The sanitizers reserve terabytes of address space and cannot run under `ulimit -v`: there the
    // limits are checked by their messages and exit codes alone.
    let cap = ProcessInfo.processInfo.environment["FILTERGRAPH_SANITIZER"] == nil ? "ulimit -v 2000000; " : ""
    return try ChildProcess.run("/bin/sh", ["-c", "\(cap)F='\(binary!)'; \(line)"], in: folder)
  }

  /// Standard input, a device and a manifest that never end are refused at the limit, exit 65
  /// with a sentence; a regular file over the limit is refused before it is read.
  func testEndlessInputsStopAtTheLimit() throws {
    let stdin = try shell("$F --max-input-bytes 1000000 -e 'blur sigma=1' - out.png < /dev/zero")
    XCTAssertEqual(stdin.status, 65, stdin.stderr)
    XCTAssertTrue(stdin.stderr.contains("Standard input is longer than 1000000 bytes"), stdin.stderr)
    XCTAssertTrue(stdin.stderr.contains("--max-input-bytes"), stdin.stderr)
    let device = try shell("$F info --max-input-bytes 1000000 /dev/zero")
    XCTAssertEqual(device.status, 65, device.stderr)
    XCTAssertTrue(device.stderr.contains("The input file /dev/zero is longer than 1000000 bytes"), device.stderr)
    let manifest = try shell("$F -e 'blur sigma=1' --manifest - -o out < /dev/zero")
    XCTAssertEqual(manifest.status, 65, manifest.stderr)
    XCTAssertTrue(manifest.stderr.contains("a line longer than 65536 bytes"), manifest.stderr)
    let longManifest = try shell("yes in.png | head -c 300000 | $F -e 'blur sigma=1' --manifest - -o out --max-input-bytes 100000")
    XCTAssertEqual(longManifest.status, 65, longManifest.stderr)
    XCTAssertTrue(longManifest.stderr.contains("The manifest on standard input is longer than 100000 bytes"), longManifest.stderr)

    // A still WebP is read into memory whole (a TIFF, a PNG or APNG, a JPEG, a GIF or an animated
    // WebP is read in place, and not limited); standard input always is.
    try FileManager.default.copyItem(at: Fixtures.url("webp/lossy.webp"), to: file("in.webp"))
    let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: file("in.webp").path)[.size] as? Int)
    let refused = try shell("$F info --max-input-bytes \(size - 1) in.webp")
    XCTAssertEqual(refused.status, 65, refused.stderr)
    XCTAssertTrue(refused.stderr.contains("in.webp is longer than \(size - 1) bytes"), refused.stderr)
    XCTAssertEqual(try shell("$F info --max-input-bytes \(size) in.webp").status, 0)
    try JPEGEncoder.encode(PixelBuffer.random(width: 64, height: 64, format: .rgb8, seed: 1)).write(to: file("in.jpg"))
    let jpegSize = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: file("in.jpg").path)[.size] as? Int)
    XCTAssertEqual(try shell("$F --max-input-bytes \(jpegSize - 1) -e 'blur sigma=1' - out.png < in.jpg").status, 65)
    XCTAssertEqual(try shell("$F --max-input-bytes \(jpegSize) -e 'blur sigma=1' - out.png < in.jpg").status, 0)

    // An animated GIF file is read in place, 64 KiB at a time: not held to the limit. On standard
    // input it is read whole, and is.
    try FileManager.default.copyItem(at: Fixtures.url("gif/animated-offset.gif"), to: file("anim.gif"))
    let gifSize = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: file("anim.gif").path)[.size] as? Int)
    XCTAssertEqual(try shell("$F --max-input-bytes \(gifSize - 1) -e 'scale width=20' anim.gif out.webp").status, 0)
    let animation = try shell("$F --max-input-bytes \(gifSize - 1) -e 'scale width=20' - piped.webp < anim.gif")
    XCTAssertEqual(animation.status, 65, animation.stderr)
    XCTAssertTrue(animation.stderr.contains("Standard input is longer than \(gifSize - 1) bytes"), animation.stderr)
    XCTAssertFalse(FileManager.default.fileExists(atPath: file("piped.webp").path))
    XCTAssertEqual(try shell("$F --max-input-bytes \(gifSize) -e 'scale width=20' - piped.webp < anim.gif").status, 0)
  }

  /// A PNG whose XMP packet (2.3 MB) is over the 1 MiB metadata limit renders, with and without
  /// --strip: the packet is left out, the pixels are the image's. Where the output would have
  /// kept XMP there is a warning; with --strip the user loses nothing that was asked for and
  /// nothing is said. `info` lists it. (A --keep list without xmp, a strict load and an
  /// animation: MetadataTests.)
  func testOverLimitMetadataIsLeftOutWithAWarning() throws {
    let pixels = PixelBuffer.random(width: 8, height: 8, format: .rgb8, seed: 3)
    var png = try PNGEncoder.encode(pixels)
    let packet = Array("<x:xmpmeta xmlns:x='adobe:ns:meta/'>".utf8) + [UInt8](repeating: 0x20, count: 2_300_000) + Array("</x:xmpmeta>".utf8)
    png.insert(contentsOf: PNGBytes.chunk("iTXt", Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + packet), at: 33)
    try png.write(to: file("xmp.png"))
    for (extra, warns): ([String], Bool) in [([], true), (["--strip"], false)] {
      let run = try ChildProcess.run(binary, extra + ["-e", "invert", "xmp.png", "out.png"], in: folder)
      XCTAssertEqual(run.status, 0, run.stderr)
      XCTAssertEqual(run.stderr.contains("left out"), warns, "\(extra): \(run.stderr)")
      if warns { XCTAssertTrue(run.stderr.contains("warning") && run.stderr.contains("xmp.png: The PNG's 'XML:com.adobe.xmp' text chunk"), run.stderr) }
      let decoded = try PNGDecoder.decode(try Data(contentsOf: file("out.png")))
      XCTAssertEqual(decoded.width, 8)
      XCTAssertNil(try PNGDecoder.readHeader(try Data(contentsOf: file("out.png"))).metadata.xmp)
    }
    let info = try ChildProcess.run(binary, ["info", "xmp.png"], in: folder)
    XCTAssertEqual(info.status, 0, info.stderr)
    XCTAssertTrue((info.text + info.stderr).contains("text chunk holds more than 1048576 bytes"), info.text + info.stderr)
  }

  /// `info` maps the file rather than reading it whole: a PNG followed by 48 MB of other bytes (an
  /// appended archive, say) is described in about the memory of the bare PNG; read whole, the
  /// file cost its 48 MB (issue #28 finding 3: `info` on a 6 GB file passed 4 GB).
  func testInfoHoldsTheHeaderNotTheFile() throws {
    let png = try PNGEncoder.encode(PixelBuffer.random(width: 8, height: 8, format: .rgb8, seed: 5))
    try png.write(to: file("bare.png"))
    try (png + Data(count: 48 << 20)).write(to: file("trailing.png"))
    XCTAssertLessThan(try peakKilobytes(["info", "trailing.png"]) - (try peakKilobytes(["info", "bare.png"])), 16 << 10)
  }

  /// A JPEG file is read through its descriptor, not into memory: one followed by 32 MB of other
  /// bytes renders in about the memory of the bare JPEG (read whole, it cost its 32 MB).
  func testAJPEGFileIsReadInPlace() throws {
    let jpeg = try JPEGEncoder.encode(PixelBuffer.random(width: 64, height: 64, format: .rgb8, seed: 5))
    try jpeg.write(to: file("bare.jpg"))
    try (jpeg + Data(count: 32 << 20)).write(to: file("trailing.jpg"))
    let trailing = try peakKilobytes(["-e", "scale 0.5", "trailing.jpg", "trailing-out.jpg"])
    XCTAssertLessThan(trailing - (try peakKilobytes(["-e", "scale 0.5", "bare.jpg", "bare-out.jpg"])), 16 << 10)
  }

  /// fgrun's peak resident set in KB, through a Python parent: a process started from this one
  /// (posix_spawn shares its memory until the exec) is charged this process's peak from the start.
  func peakKilobytes(_ arguments: [String]) throws -> Int {
    let script = "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); "
      + "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    let run = try ChildProcess.run("python3", ["-c", script, binary] + arguments, in: folder)
    XCTAssertEqual(run.status, 0, run.stderr)
    return try XCTUnwrap(Int(run.text.trimmingCharacters(in: .whitespacesAndNewlines)), run.text)
  }
}
