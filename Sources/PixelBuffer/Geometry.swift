// Geometry.swift — integer sizes, points and rectangles in pixel units.
//
// Pixel coordinates grow right (x) and down (y); a rectangle covers the half-open ranges
// x ..< x + width and y ..< y + height.

/// A width and a height in pixels.
public struct Size: Hashable, Sendable, CustomStringConvertible {
  /// The number of columns.
  public var width: Int
  /// The number of rows.
  public var height: Int

  /// Creates a size.
  public init(width: Int, height: Int) {
    self.width = width
    self.height = height
  }

  /// The number of pixels, `width × height`.
  public var pixelCount: Int { width * height }

  /// True when either side is zero or negative.
  public var isEmpty: Bool { width <= 0 || height <= 0 }

  /// The size with width and height exchanged (what a 90° rotation does).
  public var transposed: Size { Size(width: height, height: width) }

  /// `"WIDTHxHEIGHT"`, the spelling recipes use.
  public var description: String { "\(width)x\(height)" }
}

/// A position in pixels.
public struct Point: Hashable, Sendable {
  /// The column.
  public var x: Int
  /// The row.
  public var y: Int

  /// Creates a point.
  public init(x: Int, y: Int) {
    self.x = x
    self.y = y
  }
}

/// An axis-aligned rectangle of whole pixels.
public struct Rect: Hashable, Sendable, CustomStringConvertible {
  /// The left column.
  public var x: Int
  /// The top row.
  public var y: Int
  /// The number of columns.
  public var width: Int
  /// The number of rows.
  public var height: Int

  /// Creates a rectangle from its origin and size.
  public init(x: Int, y: Int, width: Int, height: Int) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }

  /// The rectangle at the origin with the given size.
  public init(origin: Point = Point(x: 0, y: 0), size: Size) {
    self.init(x: origin.x, y: origin.y, width: size.width, height: size.height)
  }

  /// The top-left corner.
  public var origin: Point { Point(x: x, y: y) }
  /// The width and height.
  public var size: Size { Size(width: width, height: height) }
  /// One past the right column.
  public var maxX: Int { x + width }
  /// One past the bottom row.
  public var maxY: Int { y + height }
  /// True when the rectangle holds no pixel.
  public var isEmpty: Bool { width <= 0 || height <= 0 }

  /// The pixels both rectangles cover (empty, at `self`'s origin, when they do not meet).
  public func intersection(_ other: Rect) -> Rect {
    let x0 = Swift.max(x, other.x), y0 = Swift.max(y, other.y)
    let x1 = Swift.min(maxX, other.maxX), y1 = Swift.min(maxY, other.maxY)
    if x1 <= x0 || y1 <= y0 { return Rect(x: x0, y: y0, width: 0, height: 0) }
    return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
  }

  /// The smallest rectangle that holds both.
  public func union(_ other: Rect) -> Rect {
    if isEmpty { return other }
    if other.isEmpty { return self }
    let x0 = Swift.min(x, other.x), y0 = Swift.min(y, other.y)
    let x1 = Swift.max(maxX, other.maxX), y1 = Swift.max(maxY, other.maxY)
    return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
  }

  /// The rectangle grown by `dx` columns on the left and right and `dy` rows above and below.
  public func insetBy(dx: Int, dy: Int) -> Rect {
    Rect(x: x + dx, y: y + dy, width: width - 2 * dx, height: height - 2 * dy)
  }

  /// The rectangle moved by `(dx, dy)`.
  public func offsetBy(dx: Int, dy: Int) -> Rect {
    Rect(x: x + dx, y: y + dy, width: width, height: height)
  }

  /// True when `other` lies wholly inside this rectangle.
  public func contains(_ other: Rect) -> Bool {
    other.x >= x && other.y >= y && other.maxX <= maxX && other.maxY <= maxY
  }

  /// `"WxH+X+Y"`.
  public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}
