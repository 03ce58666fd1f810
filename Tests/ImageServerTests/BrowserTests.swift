// BrowserTests.swift — a real browser against the server: headless Chromium loads a page whose
// `<img srcset sizes>` point at the server (and one with no extension, so the format comes from
// Chromium's own Accept header); the page's script reports, once every image has loaded, which
// candidate each chose (currentSrc), its laid-out width, and the pixels it decoded (the chosen
// URL loaded again plainly). The choice must be the one the srcset rules give at device scale 1,
// and each size the one the URL asks for, as the server's bytes decode here.
//
// Chromium runs with a throwaway profile, no background networking, and a host resolver that
// resolves nothing but 127.0.0.1, so its only traffic is to the server; it is killed after two
// minutes at most.

import Foundation
import TestSupport
import XCTest

@testable import ImageServer

final class BrowserTests: XCTestCase {
  static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }

  func testImgSrcsetInChromium() async throws {
    guard let chromium = Self.chromium else {
      throw XCTSkip("Chromium is not installed (Debian's `chromium`; scripts/install-deps.sh --tests installs it)")
    }
    let folder = try ServedFolder()
    let running = try await RunningServer.start(root: folder.root)
    let base = "http://127.0.0.1:\(running.port)"
    func url(_ width: Int) -> String { "\(base)/_/rs:fit:\(width):0:1/plain/local:///photo.jpg@png" }
    let srcset = [400, 800, 1200].map { "\(url($0)) \($0)w" }.joined(separator: ", ")
    let negotiated = "\(base)/_/rs:fit:300:0:1/plain/local:///photo.jpg"
    // Slot widths and the candidate the srcset rules pick at scale 1: the smallest at least as wide.
    let slots = [("small", 400, url(400), 400), ("medium", 700, url(800), 800), ("large", 1100, url(1200), 1200)]
    var images = slots.map { "<img id=\"\($0.0)\" sizes=\"\($0.1)px\" srcset=\"\(srcset)\">" }
    images.append("<img id=\"negotiated\" src=\"\(negotiated)\">")
    let page = """
      <!doctype html><html><head><meta charset="utf-8"><style>body{margin:0} img{display:block}</style></head><body>
      \(images.joined(separator: "\n"))
      <pre id="result"></pre>
      <script>
      // naturalWidth of a srcset image is divided by the candidate's density (its slot's width);
      // the pixels it decoded are measured by loading the chosen URL again, plainly (from the cache).
      const pixels = src => new Promise(done => {
        const plain = new Image();
        plain.onload = () => done([plain.naturalWidth, plain.naturalHeight]);
        plain.onerror = () => done([0, 0]);
        plain.src = src;
      });
      addEventListener('load', async () => {
        const report = [];
        for (const i of document.images) {
          const [w, h] = await pixels(i.currentSrc);
          report.push({id: i.id, src: i.currentSrc, shown: i.naturalWidth, w, h});
        }
        document.getElementById('result').textContent = 'RES' + 'ULT' + JSON.stringify(report) + 'E' + 'ND';
      });
      </script></body></html>
      """
    let html = folder.root.appendingPathComponent("page.html")
    try Data(page.utf8).write(to: html)
    let profile = folder.root.appendingPathComponent("chromium-profile")
    let arguments = [
      "-k", "5", "120", chromium, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile.path)",
      "--no-first-run", "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
      "--disable-sync", "--disable-default-apps", "--disable-domain-reliability", "--no-pings", "--disable-breakpad",
      "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--window-size=1200,900", "--force-device-scale-factor=1",
      "--virtual-time-budget=30000", "--dump-dom", html.absoluteString,
    ]
    let root = folder.root
    let (status, dom, stderr) = try await Self.onThread {
      let outcome = try ChildProcess.run("/usr/bin/timeout", arguments, in: root)
      return (outcome.status, outcome.text, outcome.stderr)
    }
    XCTAssertEqual(status, 0, String(stderr.suffix(2000)))
    guard let start = dom.range(of: "RESULT"), let end = dom.range(of: "END", range: start.upperBound..<dom.endIndex) else {
      return XCTFail("the page reported nothing:\n\(dom.suffix(2000))\n\(stderr.suffix(2000))")
    }
    let json = String(dom[start.upperBound..<end.lowerBound]).replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
    let report = try JSONDecoder().decode([Reported].self, from: Data(json.utf8))
    let byID = Dictionary(uniqueKeysWithValues: report.map { ($0.id, $0) })
    var expected = slots.map { ($0.0, $0.2, $0.3, $0.1) }
    expected.append(("negotiated", negotiated, 300, 300))
    for (id, src, width, slot) in expected {
      let shown = try XCTUnwrap(byID[id], id)
      XCTAssertEqual(Double(shown.shown), Double(slot), accuracy: 1, "\(id): laid out at its slot's width")
      XCTAssertEqual(shown.src, src, "\(id): the candidate chosen")
      // The size the server's bytes have, decoded here, and the width the URL asks for.
      let served = try await HTTPResult.get(src, headers: [("Accept", "image/avif,image/webp,image/apng,image/*,*/*;q=0.8")])
      let (size, _) = try decodedPixels(served.body)
      XCTAssertEqual(size.width, width, id)
      XCTAssertEqual(shown.w, size.width, "\(id): Chromium decoded the server's image")
      XCTAssertEqual(shown.h, size.height, id)
    }
    try await running.stop()
  }

  /// One image as the page reported it.
  struct Reported: Decodable {
    var id: String
    var src: String
    /// naturalWidth in the page (CSS pixels: the slot's width for a srcset candidate).
    var shown: Int
    var w: Int
    var h: Int
  }

  /// `body` on a thread of its own (it blocks), resumed with its result.
  static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      Thread { continuation.resume(with: Result { try body() }) }.start()
    }
  }
}
