// OutputFileTests.swift — an existing non-regular destination (a FIFO here, /dev/null in use) is
// written in place, never replaced by the temporary file's rename.
import Foundation
import ImageCodecs
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

final class OutputFileTests: XCTestCase {
  func testFIFODestinationIsWrittenInPlaceAndStaysAFIFO() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("outputfile-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let fifo = folder.appendingPathComponent("pipe.png")
    XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
    // A reader first (non-blocking), so the writer's open does not wait; 5 bytes fit in the pipe.
    let reader = open(fifo.path, O_RDONLY | O_NONBLOCK)
    XCTAssertGreaterThanOrEqual(reader, 0)
    defer { close(reader) }

    try OutputFile.write(Data("hello".utf8), to: fifo)

    var buffer = [UInt8](repeating: 0, count: 16)
    let n = read(reader, &buffer, buffer.count)
    XCTAssertEqual(n, 5)
    XCTAssertEqual(String(decoding: buffer.prefix(max(n, 0)), as: UTF8.self), "hello")
    var status = stat()
    XCTAssertEqual(stat(fifo.path, &status), 0)
    XCTAssertEqual(status.st_mode & S_IFMT, S_IFIFO, "the FIFO was replaced by a regular file")
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0 != "pipe.png" }
    XCTAssertEqual(leftovers, [], "no temporary file is left behind")
  }

  /// A write that fails part-way (an encoder error, a full disk) removes its temporary file and
  /// leaves the file already at the destination exactly as it was.
  func testFailedWriteLeavesExistingDestinationUntouchedAndNoTemporaryFile() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("outputfile-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let target = folder.appendingPathComponent("out.png")
    let before = Data("the previous, complete output".utf8)
    try before.write(to: target)

    struct Interrupted: Error {}
    XCTAssertThrowsError(
      try OutputFile.write(to: target) { handle in
        try Data("half of a new file".utf8).withUnsafeBytes { try handle.writeAll($0) }
        throw Interrupted()
      }
    ) { XCTAssertTrue($0 is Interrupted) }

    XCTAssertEqual(try Data(contentsOf: target), before)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["out.png"])
  }

  /// A full disk: /dev/full answers every write with ENOSPC, which must surface as an `.io`
  /// error that says so.
  func testFullDiskIsAnIOErrorThatSaysSo() throws {
    guard FileManager.default.fileExists(atPath: "/dev/full") else { throw XCTSkip("no /dev/full") }
    let bytes = Data(repeating: 0xAB, count: 1 << 16)
    XCTAssertThrowsError(try OutputFile.write(bytes, to: URL(fileURLWithPath: "/dev/full"))) { error in
      guard let error = error as? CodecError else { return XCTFail("\(type(of: error)): \(error)") }
      XCTAssertEqual(error.kind, .io)
      XCTAssertTrue(error.message.contains("No space left on device"), error.message)
    }
  }
}
