// CachingTests.swift — ETag, If-None-Match (304 without rendering), Cache-Control,
// Last-Modified, format negotiation from Accept with `Vary: Accept`, and HEAD.

import Foundation
import ImageCodecs
import TestSupport
import XCTest

@testable import ImageServer

final class CachingTests: XCTestCase {
  func testNotModifiedRendersNothing() async throws {
    let folder = try ServedFolder()
    let running = try await RunningServer.start(root: folder.root) { $0.cacheMaxAge = 600 }
    let path = "/_/w:40/plain/local:///photo.jpg@png"
    let first = try await running.get(path)
    XCTAssertEqual(first.status, 200)
    let etag = try XCTUnwrap(first.headers["etag"])
    XCTAssertTrue(etag.hasPrefix("\"") && etag.hasSuffix("\"") && !etag.hasPrefix("W/"), "a strong ETag: \(etag)")
    XCTAssertEqual(first.headers["cache-control"], "public, max-age=600")
    XCTAssertNotNil(first.headers["last-modified"])
    XCTAssertNil(first.headers["vary"], "a format named by the URL does not vary with Accept")
    XCTAssertEqual(running.server.renderCount, 1)

    for header in [etag, "\"other\", \(etag)", "*"] {
      let again = try await running.get(path, headers: [("If-None-Match", header)])
      XCTAssertEqual(again.status, 304, header)
      XCTAssertEqual(again.body.count, 0)
      XCTAssertEqual(again.headers["etag"], etag)
      XCTAssertEqual(again.headers["cache-control"], "public, max-age=600")
    }
    XCTAssertEqual(running.server.renderCount, 1, "304s render nothing")
    let stale = try await running.get(path, headers: [("If-None-Match", "\"something-else\"")])
    XCTAssertEqual(stale.status, 200)
    XCTAssertEqual(running.server.renderCount, 2)

    // Other options, another source file state, another format: another ETag.
    let other = try await running.get("/_/w:41/plain/local:///photo.jpg@png")
    XCTAssertNotEqual(other.headers["etag"], etag)
    try Data(contentsOf: folder.url("alpha.png")).write(to: folder.url("photo.jpg"))
    let changed = try await running.get(path, headers: [("If-None-Match", etag)])
    XCTAssertEqual(changed.status, 200, "a changed source is rendered again")
    XCTAssertNotEqual(changed.headers["etag"], etag)
    let metrics = try await running.get("/metrics")
    XCTAssertTrue(metrics.text.contains("fgrun_serve_not_modified_total 3"), metrics.text)
    try await running.stop()
  }

  func testAcceptNegotiation() async throws {
    let folder = try ServedFolder()
    let running = try await RunningServer.start(root: folder.root) { $0.negotiatedFormats = [.avif, .webp] }
    let path = "/_/w:40/plain/local:///photo.jpg"
    let browser = try await running.get(path, headers: [("Accept", "image/webp,image/apng,image/*,*/*;q=0.8")])
    XCTAssertEqual(browser.headers["content-type"], "image/webp")
    XCTAssertEqual(ImageFileFormat.sniff(Array(browser.body)), .webp)
    XCTAssertEqual(browser.headers["vary"], "Accept")
    let avif = try await running.get(path, headers: [("Accept", "image/avif,image/webp")])
    XCTAssertEqual(avif.headers["content-type"], "image/avif", "the server's order decides")
    let refusedAvif = try await running.get(path, headers: [("Accept", "image/avif;q=0, image/webp")])
    XCTAssertEqual(refusedAvif.headers["content-type"], "image/webp", "q=0 refuses a type")
    let plain = try await running.get(path, headers: [("Accept", "*/*")])
    XCTAssertEqual(plain.headers["content-type"], "image/jpeg", "no listed format: the source's")
    XCTAssertEqual(plain.headers["vary"], "Accept")
    XCTAssertNotEqual(plain.headers["etag"], browser.headers["etag"], "each variant has its own ETag")
    let png = try await running.get("/_/w:40/plain/local:///alpha.png")
    XCTAssertEqual(png.headers["content-type"], "image/png")
    let named = try await running.get(path + "@png", headers: [("Accept", "image/webp")])
    XCTAssertEqual(named.headers["content-type"], "image/png", "@ext wins over Accept")
    let unknown = try await running.get(path + "@bmp")
    XCTAssertEqual(unknown.status, 400)
    try await running.stop()
  }

  func testHeadAnswersAsGetWithoutABody() async throws {
    let folder = try ServedFolder()
    let running = try await RunningServer.start(root: folder.root)
    let path = "/_/w:40/plain/local:///photo.jpg@png"
    let get = try await running.get(path)
    XCTAssertEqual(get.status, 200)
    let head = try await running.head(path)
    XCTAssertEqual(head.status, 200)
    XCTAssertEqual(head.body.count, 0, "no body")
    for name in ["content-type", "content-length", "etag", "cache-control", "last-modified"] {
      XCTAssertNotNil(get.headers[name], name)
      XCTAssertEqual(head.headers[name], get.headers[name], name)
    }
    XCTAssertEqual(head.headers["content-length"], String(get.body.count), "the length GET sends")
    let notModified = try await running.head(path, headers: [("If-None-Match", get.headers["etag"] ?? "")])
    XCTAssertEqual(notModified.status, 304)
    let missing = try await running.head("/_/w:40/plain/local:///nope.jpg@png")
    XCTAssertEqual(missing.status, 404)
    let health = try await running.head("/health")
    XCTAssertEqual(health.status, 200)
    XCTAssertEqual(health.body.count, 0)
    // The keep-alive connection HEAD used still serves.
    let again = try await running.get(path)
    XCTAssertEqual(again.body, get.body)
    try await running.stop()
  }

  func testDamagedSourceIsServedWithAWarning() async throws {
    let folder = try ServedFolder()
    let whole = try Fixtures.data("jpeg/testorig.jpg")
    try whole.prefix(whole.count * 2 / 5).write(to: folder.url("cut.jpg"))
    let running = try await RunningServer.start(root: folder.root)
    let cut = try await running.get("/_/w:40/plain/local:///cut.jpg@png")
    XCTAssertEqual(cut.status, 200, cut.text)
    let warning = try XCTUnwrap(cut.headers["render-warning"], "the damage is said in the response")
    XCTAssertTrue(warning.contains("Premature end of JPEG file"), warning)
    let intact = try await running.get("/_/w:40/plain/local:///photo.jpg@png")
    XCTAssertNil(intact.headers["render-warning"])
    try await running.stop()
  }
}
