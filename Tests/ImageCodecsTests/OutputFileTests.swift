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
}
