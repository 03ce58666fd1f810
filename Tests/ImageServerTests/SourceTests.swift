// SourceTests.swift — what sources may be read: local paths never leave the root (no `..`, no
// symlink out), remote sources only from allowed prefixes and public addresses (loopback,
// link-local and private refused, on every redirect hop), and a misbehaving origin gets a clear
// status (slow 504, cut short 502, too large 413, not an image 422, missing 404).

import Foundation
import TestSupport
import XCTest

@testable import ImageServer

final class SourceTests: XCTestCase {
  func testLocalPathsStayUnderTheRoot() async throws {
    let folder = try ServedFolder()
    let running = try await RunningServer.start(root: folder.root)
    let cases: [(String, Int)] = [
      ("local:///photo.jpg", 200),
      ("local:///link.jpg", 200),  // a link that stays inside the root
      ("local:///../outside/secret.jpg", 403),
      ("local:///%2e%2e/outside/secret.jpg", 403),
      ("local:///sub/../../outside/secret.jpg", 403),
      ("local:///./photo.jpg", 403),
      ("local:///escape.jpg", 403),  // a symlink to a file outside
      ("local:///sub/outer/secret.jpg", 403),  // a symlinked folder outside
      ("local:///nope.jpg", 404),
      ("local:///sub", 404),
      ("local:///text.jpg", 422),
      ("file:///etc/passwd", 400),
    ]
    for (source, status) in cases {
      let response = try await running.get("/_/w:10/plain/\(source)@png")
      XCTAssertEqual(response.status, status, "\(source): \(response.text)")
      if status != 200 { XCTAssertFalse(response.text.contains(folder.outside.path), "no paths leak: \(response.text)") }
    }
    let base64 = URLSigner.base64URL(Array("local:///photo.jpg".utf8))
    let encoded = try await running.get("/_/w:10/\(base64.prefix(8))/\(base64.dropFirst(8)).png")
    XCTAssertEqual(encoded.status, 200, "a Base64 source split by slashes")
    try await running.stop()
  }

  func testSizeLimits() async throws {
    let folder = try ServedFolder()
    let small = try await RunningServer.start(root: folder.root) { $0.maxSourceBytes = 1000 }
    let overBytes = try await small.get("/_/w:10/plain/local:///photo.jpg@png")
    XCTAssertEqual(overBytes.status, 413, overBytes.text)
    try await small.stop()
    let fewPixels = try await RunningServer.start(root: folder.root) { $0.maxSourcePixels = 10_000 }
    let overPixels = try await fewPixels.get("/_/w:10/plain/local:///photo.jpg@png")
    XCTAssertEqual(overPixels.status, 413, overPixels.text)
    XCTAssertTrue(overPixels.text.contains("227×149"), overPixels.text)
    XCTAssertEqual(fewPixels.server.renderCount, 0, "refused from the header, before any decode")
    try await fewPixels.stop()
    let smallOutput = try await RunningServer.start(root: folder.root) { $0.maxOutputPixels = 10_000 }
    let overOutput = try await smallOutput.get("/_/s:1000:1000:1/plain/local:///photo.jpg@png")
    XCTAssertEqual(overOutput.status, 422, overOutput.text)
    XCTAssertEqual(smallOutput.server.renderCount, 0)
    try await smallOutput.stop()
  }

  func testRemoteSourcesAndSSRF() async throws {
    let folder = try ServedFolder()
    let image = try Data(contentsOf: folder.url("photo.jpg"))
    let origin = try await SourceServer.start(image: image)
    let guarded = try await RunningServer.start(root: nil) { $0.allowedSourcePrefixes = ["http://"] }
    // No network allowed: loopback (by address or by name) is refused before any connection. The
    // requests name loopback addresses only, so a broken policy could never send traffic off this
    // machine; the other refused ranges (link-local 169.254.169.254, private, …) are checked on
    // `AddressPolicy` itself in testAddressPolicy.
    for url in [
      origin.url("/img.jpg"), "http://127.0.0.9:\(origin.port)/img.jpg", "http://[::1]:\(origin.port)/img.jpg",
      "http://localhost:\(origin.port)/img.jpg",
    ] {
      let response = try await guarded.get("/_/w:10/plain/\(url)@png")
      XCTAssertEqual(response.status, 403, "\(url): \(response.text)")
      XCTAssertTrue(response.text.contains("non-public range"), response.text)
    }
    XCTAssertEqual(origin.hits.withLock { $0 }, [], "nothing reached the origin")
    try await guarded.stop()

    let allowed = try await RunningServer.start(root: nil) {
      $0.allowedSourcePrefixes = ["http://127.0.0.1:\(origin.port)/"]
      $0.allowedPrivateNetworks = [IPNetwork("127.0.0.1/32")!]
      $0.fetchTimeout = 1
      $0.maxSourceBytes = 150_000
    }
    let good = try await allowed.get("/_/w:10/plain/\(origin.url("/img.jpg"))@png")
    XCTAssertEqual(good.status, 200, good.text)
    XCTAssertEqual(good.headers["last-modified"], "Tue, 03 Nov 2026 10:00:00 GMT", "Last-Modified from the origin")
    let cases: [(String, Int, String)] = [
      ("/redirect-self", 200, ""),
      ("/redirect-other-loopback", 403, "127.0.0.2"),  // a redirect hop into a network not allowed
      ("/redirect-loop", 502, "redirected more than"),
      ("/slow.jpg", 504, "longer than"),
      ("/truncated.jpg", 502, ""),
      ("/huge-declared.jpg", 413, "over the limit"),
      ("/huge-streamed.jpg", 413, "over the limit"),
      ("/text.jpg", 422, "cannot be read as an image"),
      ("/gone.jpg", 404, "404"),
    ]
    for (path, status, needle) in cases {
      let response = try await allowed.get("/_/w:10/plain/\(origin.url(path))@png")
      XCTAssertEqual(response.status, status, "\(path): \(response.text)")
      if !needle.isEmpty { XCTAssertTrue(response.text.contains(needle), "\(path): \(response.text)") }
    }
    let outsidePrefix = try await allowed.get("/_/w:10/plain/http://127.0.0.1:1/img.jpg@png")
    XCTAssertEqual(outsidePrefix.status, 403, "a URL outside the allowed prefixes")
    XCTAssertTrue(outsidePrefix.text.contains("allowed prefix"), outsidePrefix.text)
    try await allowed.stop()
    try await origin.stop()
  }

  func testAddressPolicy() {
    let policy = AddressPolicy(allowed: [IPNetwork("192.168.7.0/24")!])
    for refused in ["127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "::1", "fe80::1", "fd00::1", "::ffff:127.0.0.1", "224.0.0.1"] {
      XCTAssertNotNil(policy.refusal(IPNetwork.bytes(refused)!), refused)
    }
    for accepted in ["93.184.216.34", "8.8.8.8", "192.168.7.9", "2606:4700::1111", "::ffff:8.8.8.8"] {
      XCTAssertNil(policy.refusal(IPNetwork.bytes(accepted)!), accepted)
    }
  }
}
