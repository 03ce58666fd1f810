// HDRToneMappingTests.swift — the HDR → SDR operator against its published definitions: the PQ EOTF
// at the code values ITU-R BT.2408 tabulates, the HLG curve at BT.2408's reference white, BT.2446
// method A's closed form written out again at sample points, and the gamut mapping's promise (hue
// and luminance kept). The decode of real PQ/HLG AVIFs is checked against an independent
// computation in FilterGraphTests (HDRSourceTests).
import ImageCodecs
import PixelBufferModule
import XCTest

final class HDRToneMappingTests: XCTestCase {
  /// SMPTE ST 2084 at the signal levels BT.2408 lists: 0.5081 → 100 cd/m², 0.5806 → 203 (HDR
  /// reference white), 0.7518 → 1000, 1 → 10000 (the table rounds the signal to 4 digits).
  func testPQEOTFAtTheTabulatedLevels() {
    for (signal, nits) in [(0.5081, 100.0), (0.5806, 203), (0.7518, 1000), (1, 10000)] {
      XCTAssertEqual(HDRToneMapping.pqEOTF(signal), nits, accuracy: nits * 0.002, "\(signal)")
    }
    XCTAssertEqual(HDRToneMapping.pqEOTF(0), 0)
  }

  /// BT.2100 HLG: signal 1/2 is scene light 1/12, 1 is 1, and 75 % through the 1000 cd/m² OOTF
  /// (γ 1.2) is BT.2408's HDR reference white, 203 cd/m².
  func testHLGAtTheReferenceLevels() {
    XCTAssertEqual(HDRToneMapping.hlgInverseOETF(0.5), 1.0 / 12, accuracy: 1e-12)
    XCTAssertEqual(HDRToneMapping.hlgInverseOETF(1), 1, accuracy: 1e-6)
    XCTAssertEqual(1000 * pow(HDRToneMapping.hlgInverseOETF(0.75), 1.2), 203, accuracy: 0.5)
  }

  /// Method A on greys and colours against the recommendation's formulas, evaluated here step by
  /// step with its tabulated constants; its peak maps to SDR white.
  func testBT2446MethodAAgainstItsDefinition() {
    func reference(_ rgb: [Double]) -> [Double] {
      let e = rgb.map { pow(min(max($0, 0), 1000) / 1000, 1 / 2.4) }
      let y = 0.2627 * e[0] + 0.6780 * e[1] + 0.0593 * e[2]
      let rhoHDR = 1 + 32 * pow(0.1, 1 / 2.4), rhoSDR = 1 + 32 * pow(0.01, 1 / 2.4)
      let yp = log(1 + (rhoHDR - 1) * y) / log(rhoHDR)
      let yc: Double
      if yp <= 0.7399 { yc = 1.0770 * yp } else if yp < 0.9909 { yc = -1.1510 * yp * yp + 2.7811 * yp - 0.6302 } else { yc = 0.5 * yp + 0.5 }
      let ySDR = (pow(rhoSDR, yc) - 1) / (rhoSDR - 1)
      let f = ySDR / (1.1 * y)
      let cb = f * (e[2] - y) / 1.8814, cr = f * (e[0] - y) / 1.4746
      let yt = ySDR - max(0.1 * cr, 0)
      // BT.2020 Y'CbCr → R'G'B' as BT.2020 tabulates it.
      return [yt + 1.4746 * cr, yt - 0.16455 * cb - 0.57135 * cr, yt + 1.8814 * cb].map { min(max($0, 0), 1) }
    }
    for rgb in [[1000.0, 1000, 1000], [203, 203, 203], [100, 100, 100], [5, 5, 5], [800, 100, 20], [30, 400, 60], [2, 9, 300], [5000, 50, 50]] {
      let got = HDRToneMapping.bt2446A(SIMD3(rgb[0], rgb[1], rgb[2]))
      for (g, r) in zip([got.x, got.y, got.z], reference(rgb)) { XCTAssertEqual(g, r, accuracy: 2e-4, "\(rgb)") }
    }
    let white = HDRToneMapping.bt2446A(SIMD3(repeating: 1000))
    XCTAssertEqual(white.x, 1, accuracy: 1e-9)
    // The knee's three pieces meet where the recommendation joins them.
    XCTAssertEqual(1.0770 * 0.7399, -1.1510 * 0.7399 * 0.7399 + 2.7811 * 0.7399 - 0.6302, accuracy: 1e-3)
    XCTAssertEqual(0.5 * 0.9909 + 0.5, -1.1510 * 0.9909 * 0.9909 + 2.7811 * 0.9909 - 0.6302, accuracy: 1e-3)
  }

  /// Out-of-gamut colours keep their BT.709 luminance and their hue (the xy chromaticity moves on
  /// the line to the white point), where clipping each component would turn a saturated BT.2020
  /// red-orange more orange.
  func testGamutMappingKeepsLuminanceAndHue() {
    let toXYZ: [SIMD3<Double>] = [SIMD3(0.4124, 0.3576, 0.1805), SIMD3(0.2126, 0.7152, 0.0722), SIMD3(0.0193, 0.1192, 0.9505)]
    func xy(_ c: SIMD3<Double>) -> (Double, Double) {
      let v = SIMD3((toXYZ[0] * c).sum(), (toXYZ[1] * c).sum(), (toXYZ[2] * c).sum())
      return (v.x / v.sum(), v.y / v.sum())
    }
    for c in [SIMD3(1.3, 0.2, -0.1), SIMD3(-0.2, 0.6, 0.1), SIMD3(0.05, -0.02, 0.9), SIMD3(0.4, 0.2, 0.1)] {
      let m = HDRToneMapping.gamutMapped(c)
      XCTAssertTrue((0...1).contains(m.x) && (0...1).contains(m.y) && (0...1).contains(m.z), "\(m)")
      XCTAssertEqual((toXYZ[1] * m).sum(), (toXYZ[1] * c).sum(), accuracy: 1e-9, "luminance of \(c)")
      let (wx, wy) = xy(SIMD3(repeating: 1)), (x0, y0) = xy(c), (x1, y1) = xy(m)
      XCTAssertEqual((x0 - wx) * (y1 - wy) - (y0 - wy) * (x1 - wx), 0, accuracy: 1e-9, "hue of \(c)")
    }
    XCTAssertEqual(HDRToneMapping.gamutMapped(SIMD3(0.4, 0.2, 0.1)), SIMD3(0.4, 0.2, 0.1), "in-gamut colours are unchanged")
  }

  /// The nclx PQ and HLG fixtures decode tone-mapped to sRGB, without a profile or a warning, and the
  /// header names the transfer; SDR files say nothing.
  func testHDRFilesDecodeToneMapped() throws {
    for (name, transfer) in [("pq-nclx.avif", HDRTransfer.pq), ("hlg-nclx.avif", .hlg)] {
      let data = try CodecTest.data("heif/" + name)
      let header = try AVIFCodec.readHeader(data, request: DecodeRequest())
      XCTAssertEqual(header.hdrTransfer, transfer, name)
      XCTAssertNil(header.metadata.iccProfile, name)
      let decoder = try AVIFCodec.makeDecoder(data, request: DecodeRequest())
      let pixels = try decoder.decodeAll()
      XCTAssertEqual(decoder.warnings, [], name)
      XCTAssertFalse(pixels.hasSamePixels(as: try AVIFCodec.makeDecoder(CodecTest.data("heif/p3-nclx.avif"), request: DecodeRequest()).decodeAll()), name)
    }
    for name in ["p3-nclx.avif", "photo.avif", "icc.avif"] {
      XCTAssertNil(try AVIFCodec.readHeader(CodecTest.data("heif/" + name), request: DecodeRequest()).hdrTransfer, name)
    }
  }
}
