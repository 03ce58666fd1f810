// UltraHDRDriverTests.swift — an Ultra HDR write hands its gain map to one of the renderer's driver
// threads while it renders the base. The async API (which the server uses) runs each write on a
// driver thread itself, so with every driver writing an Ultra HDR file the maps would sit queued
// behind their own writers: the writer renders a map no driver has started (`HandedWork`). On a
// renderer with one driver thread, async Ultra HDR writes finish and carry their maps.
import FilterGraph
import Foundation
import ImageCodecs
import Locking
import TestSupport
import XCTest

final class UltraHDRDriverTests: XCTestCase {
  func testAsyncUltraHDRWritesFinishWhenEveryDriverIsWriting() throws {
    let renderer = Renderer(options: RendererOptions(threads: 1))
    let image = try Image(contentsOf: Fixtures.url("uhdr/libultrahdr.jpg")).scaled(by: 0.5)
    let results = Locked<[Data]>([])
    let finished = expectation(description: "two async Ultra HDR writes on one driver thread")
    finished.expectedFulfillmentCount = 2
    for _ in 0..<2 {
      Task {
        if let bytes = try? await renderer.encode(image, format: .jpeg) { results.withLock { $0.append(bytes) } }
        finished.fulfill()
      }
    }
    wait(for: [finished], timeout: 60)
    let files = results.withLock { $0 }
    XCTAssertEqual(files.count, 2)
    for file in files {
      let map = try XCTUnwrap(UltraHDR.gainMap(in: file, baseSize: image.info.size))
      XCTAssertGreaterThan(map.size.width, 0)
    }
  }

  func testHandedWorkNobodyStartedIsDoneByTheThreadThatNeedsIt() throws {
    let pool = WorkerPool(threadCount: 1, name: "handed-work test")
    let done = expectation(description: "a pool job waiting for work it handed to its own pool")
    pool.submit {
      let work = HandedWork { 6 * 7 }
      pool.submit { work.run() }
      XCTAssertEqual(try? work.result(), 42)
      done.fulfill()
    }
    wait(for: [done], timeout: 30)
  }
}
