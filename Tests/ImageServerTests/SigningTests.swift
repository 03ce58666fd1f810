// SigningTests.swift — imgproxy's signatures: the documented example (checked against Python's
// hmac), signed URLs accepted, wrong, missing and tampered ones refused with 403 before anything
// is read, and key rotation (several pairs at once).

import Foundation
import XCTest

@testable import ImageServer

final class SigningTests: XCTestCase {
  /// imgproxy's documented example: key "secret", salt "hello", and the signature Python's
  /// `hmac.new(b"secret", b"hello" + path, sha256)` gives, URL-safe Base64 without padding.
  func testDocumentedExample() throws {
    let key = try XCTUnwrap(SigningKey(hexKey: "736563726574", hexSalt: "68656C6C6F"))
    let path = "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"
    XCTAssertEqual(URLSigner.signature(of: path, key: key), "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8")
    XCTAssertTrue(URLSigner(keys: [key]).isValid(signature: "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8", path: path))
    let parsed = try ProcessingPath("/oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8" + path)
    XCTAssertEqual(parsed.signedPart, path)
    XCTAssertEqual(parsed.source, "http://example.com/images/curiosity.jpg")
    XCTAssertEqual(parsed.fileExtension, "png")
    XCTAssertEqual(parsed.options.map { $0.joined(separator: ":") }, ["rs:fill:300:400:0", "g:sm"])
  }

  func testHexKeys() {
    XCTAssertNil(SigningKey(hexKey: "abc", hexSalt: "00"), "odd digit count")
    XCTAssertNil(SigningKey(hexKey: "zz", hexSalt: "00"), "not hex")
    XCTAssertNil(SigningKey(hexKey: "", hexSalt: "00"), "empty key")
    XCTAssertEqual(SigningKey(hexKey: "0aFF", hexSalt: "")?.key, [0x0A, 0xFF])
  }

  func testSignedURLsOverHTTP() async throws {
    let folder = try ServedFolder()
    let old = try XCTUnwrap(SigningKey(hexKey: "0102030405060708", hexSalt: "a1a2a3a4"))
    let new = try XCTUnwrap(SigningKey(hexKey: "f1f2f3f4f5f6f7f8", hexSalt: "b1b2b3b4"))
    let retired = try XCTUnwrap(SigningKey(hexKey: "deadbeef", hexSalt: "cafe"))
    let running = try await RunningServer.start(root: folder.root) {
      $0.allowsUnsigned = false
      $0.signingKeys = [old, new]
    }
    let path = "/rs:fit:50:50/plain/local:///photo.jpg@png"
    let withOld = try await running.get("/" + URLSigner.signature(of: path, key: old) + path)
    XCTAssertEqual(withOld.status, 200, withOld.text)
    let withNew = try await running.get("/" + URLSigner.signature(of: path, key: new) + path)
    XCTAssertEqual(withNew.status, 200, "the second pair of a rotation signs too")
    let rendered = running.server.renderCount

    let refused = [
      "/" + URLSigner.signature(of: path, key: retired) + path,  // a key no longer configured
      "/_" + path,  // imgproxy's unsigned placeholder, signing on
      "/insecure" + path,
      "/" + URLSigner.signature(of: path, key: new) + "/rs:fit:500:500/plain/local:///photo.jpg@png",  // tampered options
      "/" + URLSigner.signature(of: path, key: new) + path.replacingOccurrences(of: "@png", with: "@webp"),  // tampered extension
      "/" + String(URLSigner.signature(of: path, key: new).dropLast(2)) + path,  // truncated
      path,  // no signature segment: the first option is read as one
    ]
    for url in refused {
      let response = try await running.get(url)
      XCTAssertEqual(response.status, 403, url)
      XCTAssertEqual(response.text, "The URL's signature is missing or wrong.\n")
    }
    // A bad signature is refused before anything else is read: a missing file, an unknown
    // option, a malformed source are all still 403.
    for url in ["/_/w:10/plain/local:///nope.jpg", "/_/frob:1/plain/local:///photo.jpg", "/_/w:10/!!notbase64!!.png"] {
      let response = try await running.get(url)
      XCTAssertEqual(response.status, 403, url)
    }
    XCTAssertEqual(running.server.renderCount, rendered, "refused URLs render nothing")
    try await running.stop()
  }

  func testNoKeyNeedsAllowUnsigned() {
    var configuration = ServerConfiguration()
    configuration.allowsUnsigned = false
    XCTAssertThrowsError(try ImageServer(configuration: configuration)) { error in
      XCTAssertTrue("\(error)".contains("--allow-unsigned"))
    }
  }

  func testConstantTimeCompare() {
    XCTAssertTrue(URLSigner.constantTimeEqual([1, 2, 3], [1, 2, 3]))
    XCTAssertFalse(URLSigner.constantTimeEqual([1, 2, 3], [1, 2, 4]))
    XCTAssertFalse(URLSigner.constantTimeEqual([1, 2, 3], [1, 2]))
    // A digest differing in any one bit of any one byte is refused: the compare folds every byte
    // into the result (no early exit, so its time does not tell how long a prefix matched).
    let digest = (0..<32).map { UInt8($0 * 37 & 0xFF) }
    for position in digest.indices {
      for bit in 0..<8 {
        var guess = digest
        guess[position] ^= 1 << bit
        XCTAssertFalse(URLSigner.constantTimeEqual(digest, guess), "byte \(position), bit \(bit)")
      }
    }
    XCTAssertTrue(URLSigner.constantTimeEqual(digest, digest))
  }
}
