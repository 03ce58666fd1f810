import PixelBufferModule
import XCTest

final class TransferFunctionTests: XCTestCase {
  func testExactFormulaKnownValues() {
    XCTAssertEqual(SRGBTransfer.decode(0.0 as Double), 0)
    XCTAssertEqual(SRGBTransfer.decode(1.0 as Double), 1, accuracy: 1e-15)
    XCTAssertEqual(SRGBTransfer.decode(0.04045 as Double), 0.04045 / 12.92)
    XCTAssertEqual(SRGBTransfer.decode(0.5 as Double), 0.214041140482232, accuracy: 1e-12)
    XCTAssertEqual(SRGBTransfer.encode(0.214041140482232 as Double), 0.5, accuracy: 1e-12)
    XCTAssertEqual(SRGBTransfer.encode(0.0031308 as Double), 0.0031308 * 12.92)
    XCTAssertEqual(SRGBTransfer.decode(-0.5 as Double), -SRGBTransfer.decode(0.5 as Double))
    for i in 0...1000 {
      let x = Double(i) / 1000
      XCTAssertEqual(SRGBTransfer.encode(SRGBTransfer.decode(x)), x, accuracy: 1e-12)
    }
  }

  func testDecodeTablesAreExact() {
    let t8 = SRGBTransfer.decodeTable8
    XCTAssertEqual(t8.count, 256)
    for x in 0..<256 { XCTAssertEqual(t8[x], Float(SRGBTransfer.decode(Double(x) / 255))) }
    let t16 = SRGBTransfer.decodeTable16
    XCTAssertEqual(t16.count, 65536)
    for v in stride(from: 0, to: 65536, by: 97) { XCTAssertEqual(t16[v], Float(SRGBTransfer.decode(Double(v) / 65535))) }
    XCTAssertEqual(t16[65535], 1)
  }

  func testFastEncodeMaxErrorBelowHalf16BitStep() {
    var maxError = 0.0
    // Every 16th float bit pattern from 2⁻¹² to 4 (covers every table segment densely), plus a
    // uniform sweep.
    var bits = Float(0x1p-12).bitPattern
    while bits < Float(4).bitPattern {
      let x = Float(bitPattern: bits)
      maxError = max(maxError, abs(Double(SRGBTransfer.fastEncode(x)) - SRGBTransfer.encode(Double(x))))
      bits += 16
    }
    for i in 0...100_000 {
      let x = Float(i) / 100_000
      maxError = max(maxError, abs(Double(SRGBTransfer.fastEncode(x)) - SRGBTransfer.encode(Double(x))))
    }
    XCTAssertLessThan(maxError, 3e-6)
    XCTAssertLessThan(maxError, 1 / (2 * 65535.0))
    XCTAssertEqual(SRGBTransfer.fastEncode(-0.25), -SRGBTransfer.fastEncode(0.25))
    XCTAssertEqual(SRGBTransfer.fastEncode(9), SRGBTransfer.encode(9 as Float))
    XCTAssertTrue(SRGBTransfer.fastEncode(.nan).isNaN)
  }

  func testFastDecodeMaxError() {
    var maxError = 0.0
    for i in 0...200_000 {
      let x = Float(i) / 200_000
      maxError = max(maxError, abs(Double(SRGBTransfer.fastDecode(x)) - SRGBTransfer.decode(Double(x))))
    }
    XCTAssertLessThan(maxError, 2e-7)
    XCTAssertEqual(SRGBTransfer.fastDecode(1), 1)
    XCTAssertEqual(SRGBTransfer.fastDecode(2), SRGBTransfer.decode(2 as Float))
  }

  func testRowFunctions8BitRoundTripExactly() {
    let bytes = (0...255).map { UInt8($0) }
    var linear = [Float](repeating: 0, count: 256)
    var back = [UInt8](repeating: 0, count: 256)
    SRGBTransfer.decodeRow(bytes, count: 256, into: &linear)
    XCTAssertEqual(linear, SRGBTransfer.decodeTable8)
    SRGBTransfer.encodeRow(linear, count: 256, into: &back)
    XCTAssertEqual(back, bytes)
  }

  func testRowFunctions16BitRoundTripExactly() {
    let values = (0...65535).map { UInt16($0) }
    var linear = [Float](repeating: 0, count: 65536)
    var back = [UInt16](repeating: 0, count: 65536)
    SRGBTransfer.decodeRow(values, count: 65536, into: &linear)
    SRGBTransfer.encodeRow(linear, count: 65536, into: &back)
    XCTAssertEqual(back, values)
  }

  func testFloatRowsInPlace() {
    var v = (0...1000).map { Float($0) / 1000 }
    let original = v
    v.withUnsafeMutableBufferPointer { p in
      SRGBTransfer.decodeRow(p.baseAddress!, count: p.count, into: p.baseAddress!)
      XCTAssertEqual(p[500], SRGBTransfer.decode(0.5 as Float), accuracy: 1e-7)
      SRGBTransfer.encodeRow(p.baseAddress!, count: p.count, into: p.baseAddress!)
    }
    for i in 0...1000 { XCTAssertEqual(v[i], original[i], accuracy: 4e-6) }
  }

  func testDecodePixelsLeavesAlphaLinear() {
    let px: [UInt8] = [128, 64, 255, 128]
    var out = [Float](repeating: 0, count: 4)
    SRGBTransfer.decodePixels(px, pixelCount: 1, layout: .rgba, into: &out)
    XCTAssertEqual(out, [SRGBTransfer.decodeTable8[128], SRGBTransfer.decodeTable8[64], 1, 128 / 255])
  }

  func testEncodeRowToIntegersClampsOutOfRangeAndNaN() {
    let v: [Float] = [-1, 0, 0.001, 0.0031308, 0.5, 1, 3, 9, .nan, .infinity]
    var b8 = [UInt8](repeating: 7, count: v.count)
    var b16 = [UInt16](repeating: 7, count: v.count)
    SRGBTransfer.encodeRow(v, count: v.count, into: &b8)
    SRGBTransfer.encodeRow(v, count: v.count, into: &b16)
    let want8 = v.map { x -> UInt8 in
      x.isNaN ? 0 : UInt8((min(max(SRGBTransfer.encode(Double(x)), 0), 1) * 255).rounded())
    }
    let want16 = v.map { x -> UInt16 in
      x.isNaN ? 0 : UInt16((min(max(SRGBTransfer.encode(Double(x)), 0), 1) * 65535).rounded())
    }
    XCTAssertEqual(b8, want8)
    XCTAssertEqual(b16, want16)
    XCTAssertEqual(b8[4], 188)
  }
}
