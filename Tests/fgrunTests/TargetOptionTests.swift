// TargetOptionTests.swift — `--target ssimulacra2=N`: fgrun prints what the search chose (score,
// quality, bytes, encodes), which is the written file's size; a batch's --report carries it; it
// is refused with --quality (QualityTargetTests checks the formats and metric names refused).
// The photo is fitted to 128 pixels, to keep the searches cheap.
import Foundation
import TestSupport
import XCTest

extension FGRunTests {
  func testTargetPrintsTheChoiceAndIsRefusedWithAQuality() throws {
    try Fixtures.data("ssimulacra2/kodim23.jpg").write(to: file("photo.jpg"))
    let run = try fgrun(["-e", "scale fit=128x128", "photo.jpg", "small.jpg", "--target", "ssimulacra2=70"])
    XCTAssertEqual(run.status, 0, run.stderr)
    let bytes = try Data(contentsOf: file("small.jpg")).count
    XCTAssert(run.stderr.contains("small.jpg: ssimulacra2 "), run.stderr)
    XCTAssert(run.stderr.contains(", \(bytes) bytes, "), "\(run.stderr) (\(bytes) bytes)")
    let batch = try fgrun(["-e", "scale fit=128x128", "photo.jpg", "-o", "out", "--format", "jpg", "--target", "ssimulacra2=70", "--report", "r.jsonl"])
    XCTAssertEqual(batch.status, 0, batch.stderr)
    XCTAssert(try String(contentsOf: file("r.jsonl"), encoding: .utf8).contains(#""reached":true,"landed":"#))
    XCTAssertEqual(try fgrun(["-e", "scale fit=128x128", "photo.jpg", "x.jpg", "--target", "ssimulacra2=70", "--quality", "80"]).status, 64)
  }
}
