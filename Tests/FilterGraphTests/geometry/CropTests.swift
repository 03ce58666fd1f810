// Tests of CropOperation against its definition (Crop.swift) and of the crop verb.

import FilterGraph
import Foundation
import PixelBufferModule
import TestSupport
import XCTest

final class CropTests: XCTestCase {
  typealias T = ResampleTestSupport

  /// 20×10, pixel (x, y) = (10x, 20y, 7): every pixel names its position.
  let grid = ResampleTestSupport.image(width: 20, height: 10) { x, y in [UInt8(x * 10), UInt8(y * 20), 7] }

  /// The top-left pixel's position in the input grid, and the size.
  func origin(of image: Image) throws -> (Point, Size) {
    let px = try T.bytes(image, format: .rgb8)
    let p = Point(x: Int(px[0][0]) / 10, y: Int(px[0][1]) / 20)
    // Every pixel is the input pixel at the same offset from that origin.
    for y in 0..<image.size.height {
      for x in 0..<image.size.width {
        XCTAssertEqual(Array(px[y][3 * x..<3 * x + 3]), [UInt8((p.x + x) * 10), UInt8((p.y + y) * 20), 7], "(\(x), \(y))")
      }
    }
    return (p, image.size)
  }

  func testCropKeepsTheRegionsPixels() throws {
    let (p, s) = try origin(of: grid.cropped(to: Rect(x: 5, y: 2, width: 8, height: 4)))
    XCTAssertEqual(p, Point(x: 5, y: 2))
    XCTAssertEqual(s, Size(width: 8, height: 4))
  }

  func testRegionIsClippedToTheImage() throws {
    var (p, s) = try origin(of: grid.cropped(to: Rect(x: 15, y: 5, width: 10, height: 10)))
    XCTAssertEqual(p, Point(x: 15, y: 5))
    XCTAssertEqual(s, Size(width: 5, height: 5))
    (p, s) = try origin(of: grid.cropped(to: Rect(x: -3, y: -3, width: 5, height: 5)))
    XCTAssertEqual(p, Point(x: 0, y: 0))
    XCTAssertEqual(s, Size(width: 2, height: 2))
    // Missing entirely: the one pixel nearest the region's corner.
    (p, s) = try origin(of: grid.cropped(to: Rect(x: 30, y: 40, width: 5, height: 5)))
    XCTAssertEqual(p, Point(x: 19, y: 9))
    XCTAssertEqual(s, Size(width: 1, height: 1))
    (p, s) = try origin(of: grid.cropped(to: Rect(x: 4, y: 3, width: -2, height: 5)))
    XCTAssertEqual(s, Size(width: 1, height: 1))
    XCTAssertTrue(grid.cropped(to: Rect(x: -1, y: -1, width: 100, height: 100)).node === grid.node)
  }

  func testCropVerbPlacesTheBoxByGravityAndOffset() throws {
    let context = FilterContext(baseDirectory: URL(fileURLWithPath: "/"))
    func crop(_ size: Size, _ gravity: String, _ x: Int = 0, _ y: Int = 0, on image: Image? = nil) throws -> (Point, Size) {
      let args = Arguments([("size", .size(size)), ("x", .number(Double(x))), ("y", .number(Double(y))), ("gravity", .choice(gravity))])
      return try origin(of: GeometryFilters.crop.apply([image ?? grid], args, context))
    }
    XCTAssertEqual(try crop(Size(width: 6, height: 4), "northwest", 3, 2).0, Point(x: 3, y: 2))
    XCTAssertEqual(try crop(Size(width: 6, height: 4), "center").0, Point(x: 7, y: 3))
    XCTAssertEqual(try crop(Size(width: 6, height: 4), "southeast").0, Point(x: 14, y: 6))
    XCTAssertEqual(try crop(Size(width: 6, height: 4), "north", 1, 2).0, Point(x: 8, y: 2))
    XCTAssertEqual(try crop(Size(width: 6, height: 4), "west").0, Point(x: 0, y: 3))
    XCTAssertEqual(try crop(Size(width: 6, height: 4), "south", 0, -1).0, Point(x: 7, y: 5))
    XCTAssertEqual(try crop(Size(width: 5, height: 3), "center").0, Point(x: 7, y: 3))  // 15/2, 7/2 round down
    let clipped = try crop(Size(width: 6, height: 4), "east", 3, 0)
    XCTAssertEqual(clipped.0, Point(x: 17, y: 3))
    XCTAssertEqual(clipped.1, Size(width: 3, height: 4))
    XCTAssertThrowsError(try GeometryFilters.crop.apply([grid], Arguments([("x", .number(0))]), context))
  }

  /// A box placed by gravity after `trim` is placed in the trimmed image: the photo in an
  /// asymmetric uniform border, trimmed, then cropped to a centred box, is the centre of the photo
  /// (the size known before the render is the bordered one, whose centre is elsewhere).
  func testGravityPlacesTheBoxInTheSizeKnownAtRenderTime() throws {
    let renderer = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 40, height: 24)))
    let photo = try renderer.render(try Image(contentsOf: Fixtures.url("jpeg/testorig.jpg")), format: .rgba8)
    let insets = EdgeInsets(top: 13, right: 60, bottom: 41, left: 9)
    let padded = Image(
      buffer: try renderer.render(Image(buffer: photo).extended(by: insets, mode: .color(.white)), format: .rgba8))
    let trimmed = padded.trimmed(background: .white)
    let context = FilterContext(baseDirectory: URL(fileURLWithPath: "/"))
    let box = Size(width: 101, height: 60)
    for (gravity, corner) in [
      ("center", Point(x: (photo.width - 101) / 2, y: (photo.height - 60) / 2)),
      ("southeast", Point(x: photo.width - 101, y: photo.height - 60)),
      ("east", Point(x: photo.width - 101, y: (photo.height - 60) / 2)),
    ] {
      let args = Arguments([("size", .size(box)), ("gravity", .choice(gravity))])
      let cropped = try GeometryFilters.crop.apply([trimmed], args, context)
      let out = try renderer.render(cropped, format: .rgba8)
      XCTAssertEqual(out.size, box, gravity)
      XCTAssertTrue(
        out.hasSamePixels(as: photo.cropped(to: Rect(origin: corner, size: box))), "\(gravity): the photo's own \(gravity) box")
    }
    // smartcrop's centre strategy is the same centred crop.
    let centre = try renderer.render(trimmed.smartCropped(to: box, strategy: .centre), format: .rgba8)
    XCTAssertTrue(
      centre.hasSamePixels(
        as: photo.cropped(to: Rect(origin: Point(x: (photo.width - 101) / 2, y: (photo.height - 60) / 2), size: box))))
    // A box larger than the trimmed image on one axis is clipped to it there, centred on the other.
    let wide = try renderer.render(trimmed.cropped(to: Size(width: photo.width + 40, height: 50), gravity: .center), format: .rgba8)
    XCTAssertTrue(wide.hasSamePixels(as: photo.cropped(to: Rect(x: 0, y: (photo.height - 50) / 2, width: photo.width, height: 50))))
  }

  func testArgumentsRecordTheResolvedRegion() {
    let op = CropOperation(.setting { ($0.size, $0.x, $0.y) = (Size(width: 5, height: 6), 3, 4) })
    XCTAssertEqual(op.arguments.description, "size=5x6 x=3 y=4")
    let centred = CropOperation(.setting { ($0.size, $0.x, $0.y, $0.gravity) = (Size(width: 5, height: 6), 3, 4, .center) })
    XCTAssertEqual(centred.arguments.description, "size=5x6 x=3 y=4 gravity=center")
    XCTAssertNil(op.workingSpace)
  }

  func testTiledRenderEqualsOneTileRender() throws {
    let image = T.randomImage(width: 150, height: 100, alpha: true, seed: 13)
      .cropped(to: Rect(x: 17, y: 9, width: 111, height: 83))
      .scaled(to: Size(width: 70, height: 61), kernel: .lanczos3)
      .cropped(to: Rect(x: 3, y: 5, width: 60, height: 50))
    let one = try T.single.render(image, format: .rgba8)
    let many = try T.fine.render(image, format: .rgba8)
    XCTAssertTrue(one.hasSamePixels(as: many))
    // And the crop of a render is the render of the crop.
    let base = T.randomImage(width: 150, height: 100, alpha: true, seed: 13)
    let whole = try T.single.render(base, format: .rgba8)
    let part = try T.fine.render(base.cropped(to: Rect(x: 40, y: 30, width: 77, height: 41)), format: .rgba8)
    XCTAssertTrue(part.hasSamePixels(as: whole.cropped(to: Rect(x: 40, y: 30, width: 77, height: 41))))
  }
}
