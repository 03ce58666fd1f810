// OutputFileTests.swift — an existing non-regular destination (a FIFO here, /dev/null in use) is
// written in place, never replaced by the temporary file's rename.
import Foundation
@testable import ImageCodecs
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

  /// A complete write leaves the destination, with a new file's usual permissions, and nothing
  /// else; the named temporaries of processes that no longer run are removed by the first write
  /// into the folder, whatever their name; one of a live process (this one) is left alone.
  func testWriteLeavesOnlyTheDestinationAndRemovesAbandonedTemporaries() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("outputfile-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    // A process id that is certainly free: one above the kernel's maximum.
    let maxPID = (try? String(contentsOfFile: "/proc/sys/kernel/pid_max", encoding: .utf8))
      .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 4_194_304
    let abandoned = ".out.png.fgrun-\(maxPID + 1).Ab12Cd.tmp"
    let live = ".out.png.fgrun-\(getpid()).Ef34Gh.tmp"
    let otherName = ".other.png.fgrun-\(maxPID + 1).Ij56Kl.tmp"
    for name in [abandoned, live, otherName] { try Data("partial".utf8).write(to: folder.appendingPathComponent(name)) }

    let mask = umask(0o022)
    defer { umask(mask) }
    try OutputFile.write(Data("complete".utf8), to: folder.appendingPathComponent("out.png"))

    XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("out.png")), Data("complete".utf8))
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), [live, "out.png"].sorted())
    var status = stat()
    XCTAssertEqual(stat(folder.appendingPathComponent("out.png").path, &status), 0)
    XCTAssertEqual(status.st_mode & 0o777, 0o644)
    try OutputFile.write(Data("other".utf8), to: folder.appendingPathComponent("other.png"))
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), [live, "other.png", "out.png"].sorted())
  }

  /// A folder is listed once per process, at its first write, however many files go into it (a
  /// listing per write made a batch into one folder quadratic); another path is another folder.
  func testAFolderIsListedOnce() {
    let registry = AbandonedTemporaries()
    var listings = 0
    let list = { () -> [String] in
      listings += 1
      return [".a.png.fgrun-9.x.tmp", ".b.png.fgrun-9.y.tmp"]
    }
    let folder = FolderKey(device: 1, inode: 2, path: 3)
    XCTAssertEqual(registry.take(folder: folder, list: list), [".a.png.fgrun-9.x.tmp", ".b.png.fgrun-9.y.tmp"])
    XCTAssertEqual(registry.take(folder: folder, list: list), [])
    XCTAssertEqual(listings, 1)
    XCTAssertEqual(registry.take(folder: FolderKey(device: 1, inode: 2, path: 4), list: list).count, 2)
    XCTAssertEqual(listings, 2)
  }
}
