import PixelBufferModule
import TestSupport
import XCTest

final class ChannelsTests: XCTestCase {
  func testRGBToGrayUsesRec709Weights() {
    let b = PixelBuffer.row([255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30, 255, 255, 255] as [UInt8], format: .rgb8)
    let g = b.converted(to: .gray)
    XCTAssertEqual(g.format, .gray8)
    // 0.2126·255 = 54.2, 0.7152·255 = 182.4, 0.0722·255 = 18.4, 2.126 + 14.304 + 2.166 = 18.6
    XCTAssertEqual(g.integerValues(), [54, 182, 18, 19, 255])
  }

  func testGrayToRGBReplicatesAndBackIsExact() {
    let gray = PixelBuffer.row((0...255).map { UInt8($0) }, format: .gray8)
    let rgb = gray.converted(to: .rgb)
    XCTAssertEqual(rgb.integerValues(), (0...255).flatMap { [$0, $0, $0] })
    XCTAssertTrue(rgb.converted(to: .gray).hasSamePixels(as: gray))
    let rgb16 = gray.converted(to: .uint16).converted(to: .rgba)
    XCTAssertEqual(rgb16.format, .rgba16)
    XCTAssertEqual(rgb16.integerValues(), (0...255).flatMap { [$0 * 257, $0 * 257, $0 * 257, 65535] })
  }

  func testAddAlphaIsOpaqueAndDropRestores() {
    for format in [PixelFormat.gray8, .rgb8, .rgb16, PixelFormat(layout: .rgb, component: .float32)] {
      let b = PixelBuffer.random(width: 11, height: 3, format: format, seed: 9)
      let a = b.converted(to: format.layout.withAlpha)
      XCTAssertEqual(a.format.alphaMode, .straight)
      for x in 0..<11 { XCTAssertEqual(a.value(x: x, y: 2, channel: a.channelCount - 1), 1) }
      XCTAssertTrue(a.converted(to: format.layout).hasSamePixels(as: b), "\(format)")
    }
  }

  func testDropAlphaKeepsStoredColor() {
    // Straight: colour as stored. Premultiplied: colour as stored = composited over black.
    let straight = PixelBuffer.row([200, 100, 50, 128] as [UInt8], format: .rgba8)
    XCTAssertEqual(straight.converted(to: .rgb).integerValues(), [200, 100, 50])
    let pre = straight.premultiplied()
    XCTAssertEqual(pre.converted(to: .rgb).integerValues(), [100, 50, 25])
    let ga = PixelBuffer.row([200, 100, 50, 128] as [UInt8], format: .rgba8).converted(to: .grayAlpha)
    XCTAssertEqual(ga.integerValues(), [118, 128])  // 42.52 + 71.52 + 3.61 = 117.65
  }
}

final class ConversionTests: XCTestCase {
  let formats: [PixelFormat] = ChannelLayout.allCases.flatMap { layout in
    ComponentType.allCases.flatMap { component in
      (layout.hasAlpha ? [AlphaMode.straight, .premultiplied] : [AlphaMode.none]).map {
        PixelFormat(layout: layout, component: component, alphaMode: $0)
      }
    }
  }

  /// Reference: one pixel through plain Double math, following the documented rules.
  func reference(_ b: PixelBuffer, x: Int, to f: PixelFormat, decode: Bool, encode: Bool) -> [Double] {
    let s = b.format
    var v = (0..<s.channelCount).map { Double(b.value(x: x, y: 0, channel: $0)) }
    var alpha = s.layout.hasAlpha ? v.removeLast() : 1
    // layout
    if s.layout.isGray && !f.layout.isGray { v = [v[0], v[0], v[0]] }
    if !s.layout.isGray && f.layout.isGray { v = [0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]] }
    let both = s.layout.hasAlpha && f.layout.hasAlpha
    if !s.layout.hasAlpha { alpha = 1 }
    var premul = both && s.alphaMode == .premultiplied
    if both && premul && (decode || encode || f.alphaMode == .straight) {
      v = v.map { alpha == 0 ? 0 : $0 / alpha }
      premul = false
    }
    if decode { v = v.map(SRGBTransfer.decode) }
    if encode { v = v.map(SRGBTransfer.encode) }
    if both && !premul && f.alphaMode == .premultiplied { v = v.map { $0 * alpha } }
    if f.layout.hasAlpha { v.append(alpha) }
    return v
  }

  func check(from s: PixelFormat, to f: PixelFormat, decode: Bool = false, encode: Bool = false) {
    let srcSpace: ColorSpace = encode ? .linearSRGB : .sRGB
    let dstSpace: ColorSpace = decode ? .linearSRGB : .sRGB
    let b = PixelBuffer.random(width: 200, height: 1, format: s, seed: 99, colorSpace: srcSpace)
    let c = b.converted(to: f, colorSpace: dstSpace)
    XCTAssertEqual(c.format, f)
    XCTAssertEqual(c.colorSpace, dstSpace)
    // Integer results may differ by one step where float rounding meets a rounding boundary, and
    // integer alpha kernels round differently from float ones; float results match closely.
    let tolerance: Double = f.component == .float32 ? 2e-5 : 1.01
    for x in 0..<200 {
      let want = reference(b, x: x, to: f, decode: decode, encode: encode)
      for ch in 0..<f.channelCount {
        let got = Double(c.value(x: x, y: 0, channel: ch)) * Double(f.component.maxValue)
        var w = want[ch]
        if f.component != .float32 { w = (min(max(w, 0), 1) * Double(f.component.maxValue)).rounded() }
        // Dividing by a tiny premultiplied alpha amplifies rounding: scale the tolerance.
        var tol = tolerance
        if s.alphaMode == .premultiplied && s.layout.hasAlpha && f.layout.hasAlpha,
          s.component != .float32 || f.component != .float32
        {
          let a = Double(b.value(x: x, y: 0, channel: s.channelCount - 1)) * Double(s.component.maxValue)
          if a > 0 { tol += Double(f.component.maxValue) / a }
        }
        XCTAssertEqual(got, w, accuracy: tol, "\(s) → \(f) decode \(decode) encode \(encode) x \(x) ch \(ch)")
      }
    }
  }

  func testEveryFormatPairMatchesReference() {
    for s in formats { for f in formats { check(from: s, to: f) } }
  }

  func testEveryFormatPairWithDecodeMatchesReference() {
    for s in formats { for f in formats { check(from: s, to: f, decode: true) } }
  }

  func testEveryFormatPairWithEncodeMatchesReference() {
    for s in formats { for f in formats { check(from: s, to: f, encode: true) } }
  }

  func testIntegerPathsAgreeWithSpecialisedKernels() {
    let b = PixelBuffer.random(width: 300, height: 7, format: .rgba8, seed: 31)
    let p = b.converted(to: PixelFormat(layout: .rgba, component: .uint8, alphaMode: .premultiplied))
    XCTAssertTrue(p.hasSamePixels(as: b.premultiplied()))
    // Via float and back equals the integer premultiply (no ties exist for c·a/255).
    let viaFloat = b.converted(to: .rgbaFloatPremultiplied).converted(
      to: PixelFormat(layout: .rgba, component: .uint8, alphaMode: .premultiplied))
    XCTAssertTrue(viaFloat.hasSamePixels(as: b.premultiplied()))
  }

  func testRenderRoundTrip8BitSRGBThroughLinearPremultipliedFloatIsExact() {
    for s in [PixelFormat.rgb8, .gray8, .rgba8] {
      var b = PixelBuffer.random(width: 256, height: 16, format: s, seed: 5)
      if s.layout.hasAlpha {  // opaque, so premultiplying loses nothing
        b.withUnsafeMutablePixels(as: UInt8.self) { p in
          for y in 0..<p.height { for x in 0..<p.width { p[row: y][4 * x + 3] = 255 } }
        }
      }
      let work = b.converted(to: .rgbaFloatPremultiplied, colorSpace: .linearSRGB)
      XCTAssertEqual(work.colorSpace, .linearSRGB)
      let back = work.converted(to: s, colorSpace: .sRGB)
      XCTAssertTrue(back.hasSamePixels(as: b), "\(s)")
    }
  }

  func testEveryUInt16RoundTripsThroughLinearFloat() {
    let all16 = PixelBuffer.row((0...65535).map { UInt16($0) }, format: PixelFormat(layout: .gray, component: .uint16))
    let linear = all16.converted(to: PixelFormat(layout: .gray, component: .float32), colorSpace: .linearSRGB)
    XCTAssertEqual(linear.value(x: 32768, y: 0, channel: 0), SRGBTransfer.decode(Float(32768) / 65535), accuracy: 1e-7)
    XCTAssertTrue(linear.converted(to: all16.format, colorSpace: .sRGB).hasSamePixels(as: all16))
  }

  func testAlphaIsNeverCurveMapped() {
    let b = PixelBuffer.row([128, 128, 128, 128] as [UInt8], format: .rgba8)
    let l = b.converted(to: PixelFormat(layout: .rgba, component: .float32), colorSpace: .linearSRGB)
    XCTAssertEqual(l.value(x: 0, y: 0, channel: 3), 128 / 255)
    XCTAssertEqual(l.value(x: 0, y: 0, channel: 0), SRGBTransfer.decode(Float(128) / 255), accuracy: 1e-7)
  }

  func testIdentityReturnsSelfAndCanConvertRules() {
    let b = PixelBuffer.random(width: 3, height: 3, format: .rgb8)
    XCTAssertTrue(b.converted(to: .rgb8).sharesStorage(with: b))
    XCTAssertTrue(PixelBuffer.canConvert(from: .sRGB, to: .linearSRGB))
    XCTAssertTrue(PixelBuffer.canConvert(from: .linearDisplayP3, to: .displayP3))
    XCTAssertFalse(PixelBuffer.canConvert(from: .displayP3, to: .sRGB))
    XCTAssertFalse(PixelBuffer.canConvert(from: .sRGB, to: .linearDisplayP3))
  }
}
