// PixelBuffer.swift — the one pixel-buffer type every stage of FilterGraph reads and writes.
//
// A PixelBuffer is a value: width, height, pixel format, row stride, colour space and file
// metadata over a shared, reference-counted block of memory. Cutting a tile (`cropped(to:)`)
// makes a view onto the same memory; the first mutation of a shared buffer copies just the
// region it covers (copy-on-write). Rows start on 64-byte boundaries.

/// A rectangle of pixels in one format, shared without copying and copied on write.
///
/// ```swift
/// var buffer = PixelBuffer(width: 640, height: 480, format: .rgba8)
/// let tile = buffer.cropped(to: Rect(x: 0, y: 0, width: 64, height: 64))  // a view, no copy
/// buffer.withUnsafeMutablePixels(as: UInt8.self) { pixels in pixels[row: 0][0] = 255 }
/// ```
public struct PixelBuffer: @unchecked Sendable {  // raw memory: writes go through copy-on-write, tiles write disjoint rectangles
  /// Columns.
  public private(set) var width: Int
  /// Rows.
  public private(set) var height: Int
  /// Channel layout, component type and alpha mode.
  public private(set) var format: PixelFormat
  /// Bytes from the start of one row to the start of the next (at least `width × bytesPerPixel`).
  public private(set) var rowBytes: Int
  /// What the values mean as colours.
  public var colorSpace: ColorSpace
  /// Orientation, ICC profile and other facts from the file.
  public var metadata: ImageMetadata

  @usableFromInline internal var storage: PixelStorage
  @usableFromInline internal var byteOffset: Int

  /// The row stride the library uses for `width` pixels of `format`: rounded up to 64 bytes.
  public static func alignedRowBytes(width: Int, format: PixelFormat) -> Int {
    let raw = width * format.bytesPerPixel
    let a = PixelStorage.alignment
    return (raw + a - 1) / a * a
  }

  /// Allocates a buffer. Its pixels are zero when `zeroed` is true and unspecified otherwise.
  ///
  /// - Precondition: `width` and `height` are not negative. Callers that take sizes from files
  ///   check them against a pixel limit first (see `ImageCodecs.DecodeLimits`).
  public init(
    width: Int, height: Int, format: PixelFormat, colorSpace: ColorSpace = .sRGB,
    metadata: ImageMetadata = ImageMetadata(), zeroed: Bool = false
  ) {
    precondition(width >= 0 && height >= 0, "PixelBuffer size must not be negative")
    self.width = width
    self.height = height
    self.format = format
    self.rowBytes = PixelBuffer.alignedRowBytes(width: width, format: format)
    self.colorSpace = colorSpace
    self.metadata = metadata
    self.storage = PixelStorage(byteCount: rowBytes * height, zeroed: zeroed)
    self.byteOffset = 0
  }

  /// Allocates a buffer as `init(width:height:format:colorSpace:metadata:zeroed:)` does, but
  /// throws when the memory cannot be had instead of stopping the process: for whole images,
  /// whose size comes from a file or a recipe.
  ///
  /// - Throws: `PixelAllocationError`.
  public static func allocate(
    width: Int, height: Int, format: PixelFormat, colorSpace: ColorSpace = .sRGB,
    metadata: ImageMetadata = ImageMetadata(), zeroed: Bool = false
  ) throws(PixelAllocationError) -> PixelBuffer {
    precondition(width >= 0 && height >= 0, "PixelBuffer size must not be negative")
    let rowBytes = alignedRowBytes(width: width, format: format)
    let (byteCount, overflow) = rowBytes.multipliedReportingOverflow(by: height)
    if overflow { throw PixelAllocationError(byteCount: .max) }
    return PixelBuffer(
      storage: try PixelStorage(allocating: byteCount, zeroed: zeroed), width: width, height: height,
      rowBytes: rowBytes, format: format, colorSpace: colorSpace, metadata: metadata)
  }

  /// Wraps existing storage (for example memory a decoder filled) without copying.
  ///
  /// - Precondition: the rows fit inside `storage`.
  public init(
    storage: PixelStorage, byteOffset: Int = 0, width: Int, height: Int, rowBytes: Int,
    format: PixelFormat, colorSpace: ColorSpace = .sRGB, metadata: ImageMetadata = ImageMetadata()
  ) {
    precondition(width >= 0 && height >= 0 && rowBytes >= width * format.bytesPerPixel)
    precondition(
      height == 0 || byteOffset + (height - 1) * rowBytes + width * format.bytesPerPixel
        <= storage.byteCount, "rows exceed the storage")
    self.width = width
    self.height = height
    self.format = format
    self.rowBytes = rowBytes
    self.colorSpace = colorSpace
    self.metadata = metadata
    self.storage = storage
    self.byteOffset = byteOffset
  }

  /// Width and height.
  public var size: Size { Size(width: width, height: height) }
  /// The rectangle at the origin with this buffer's size.
  public var bounds: Rect { Rect(x: 0, y: 0, width: width, height: height) }
  /// The number of channels per pixel.
  public var channelCount: Int { format.channelCount }
  /// Bytes the pixels would need packed without padding.
  public var packedByteCount: Int { width * height * format.bytesPerPixel }
  /// The block this buffer reads from (shared with its views).
  public var sharedStorage: PixelStorage { storage }

  /// True when this buffer and `other` read the same memory block.
  public func sharesStorage(with other: PixelBuffer) -> Bool { storage === other.storage }

  // MARK: Views

  /// A view of `rect` onto the same memory: no pixel is copied.
  ///
  /// - Precondition: `rect` lies inside `bounds`.
  public func cropped(to rect: Rect) -> PixelBuffer {
    precondition(bounds.contains(rect) || rect.isEmpty, "crop \(rect) outside \(bounds)")
    var view = self
    view.byteOffset = byteOffset + rect.y * rowBytes + rect.x * format.bytesPerPixel
    view.width = max(rect.width, 0)
    view.height = max(rect.height, 0)
    return view
  }

  /// The same pixels described as another alpha mode or colour space, without touching memory.
  ///
  /// Use this to *retag*, not to convert: the bytes stay as they are.
  public func reinterpreted(alphaMode: AlphaMode? = nil, colorSpace: ColorSpace? = nil) -> PixelBuffer {
    var copy = self
    if let alphaMode, format.layout.hasAlpha { copy.format.alphaMode = alphaMode }
    if let colorSpace { copy.colorSpace = colorSpace }
    return copy
  }

  // MARK: Copy-on-write

  /// True when no other buffer or view shares this buffer's memory.
  public mutating func isUniquelyReferenced() -> Bool { isKnownUniquelyReferenced(&storage) }

  /// Copies the pixels into fresh, tightly strided storage if any other buffer shares them.
  public mutating func makeUnique() {
    if isKnownUniquelyReferenced(&storage) { return }
    self = copy()
  }

  /// A deep copy with its own storage and aligned rows.
  public func copy() -> PixelBuffer {
    var fresh = PixelBuffer(
      width: width, height: height, format: format, colorSpace: colorSpace, metadata: metadata)
    let rowLength = width * format.bytesPerPixel
    let src = UnsafeRawPointer(storage.baseAddress + byteOffset)
    let dst = fresh.storage.baseAddress
    for y in 0..<height {
      (dst + y * fresh.rowBytes).copyMemory(from: src + y * rowBytes, byteCount: rowLength)
    }
    fresh.byteOffset = 0
    return fresh
  }

  // MARK: Raw access

  /// Calls `body` with the first row's address and the row stride; the memory is read-only.
  @inlinable
  public func withUnsafeBaseAddress<R>(
    _ body: (_ base: UnsafeRawPointer, _ rowBytes: Int) throws -> R
  ) rethrows -> R {
    try withExtendedLifetime(storage) {
      try body(UnsafeRawPointer(storage.baseAddress + byteOffset), rowBytes)
    }
  }

  /// Calls `body` with the first row's writable address and the row stride, copying first if shared.
  @inlinable
  public mutating func withUnsafeMutableBaseAddress<R>(
    _ body: (_ base: UnsafeMutableRawPointer, _ rowBytes: Int) throws -> R
  ) rethrows -> R {
    makeUnique()
    storage.contentsWillChange()
    return try withExtendedLifetime(storage) {
      try body(storage.baseAddress + byteOffset, rowBytes)
    }
  }

  /// Typed read access to the pixels: `pixels[row: y]` points at row `y`'s first channel value.
  ///
  /// - Precondition: `T`'s size matches the component type.
  @inlinable
  public func withUnsafePixels<T, R>(
    as type: T.Type, _ body: (UnsafePixels<T>) throws -> R
  ) rethrows -> R {
    precondition(
      MemoryLayout<T>.stride == format.component.byteCount
        || MemoryLayout<T>.stride == format.bytesPerPixel, "\(T.self) does not match \(format)")
    return try withUnsafeBaseAddress { base, rowBytes in
      try body(UnsafePixels(base: base, width: width, height: height, rowBytes: rowBytes))
    }
  }

  /// Typed write access to the pixels, copying first if the memory is shared.
  @inlinable
  public mutating func withUnsafeMutablePixels<T, R>(
    as type: T.Type, _ body: (UnsafeMutablePixels<T>) throws -> R
  ) rethrows -> R {
    let (w, h) = (width, height)
    return try withUnsafeMutableBaseAddress { base, rowBytes in
      try body(UnsafeMutablePixels(base: base, width: w, height: h, rowBytes: rowBytes))
    }
  }

  // MARK: Comparison

  /// True when both buffers have the same size and format and every pixel's bytes are equal
  /// (row padding is ignored; colour space and metadata are not compared).
  public func hasSamePixels(as other: PixelBuffer) -> Bool {
    guard width == other.width, height == other.height, format == other.format else { return false }
    let rowLength = width * format.bytesPerPixel
    return withUnsafeBaseAddress { a, aStride in
      other.withUnsafeBaseAddress { b, bStride in
        for y in 0..<height where memcmp(a + y * aStride, b + y * bStride, rowLength) != 0 {
          return false
        }
        return true
      }
    }
  }
}

/// Read-only typed rows of a `PixelBuffer`, valid only inside the closure that received it.
public struct UnsafePixels<T> {
  /// Row 0's address.
  public let base: UnsafeRawPointer
  /// Columns.
  public let width: Int
  /// Rows.
  public let height: Int
  /// Bytes between rows.
  public let rowBytes: Int

  @inlinable init(base: UnsafeRawPointer, width: Int, height: Int, rowBytes: Int) {
    self.base = base
    self.width = width
    self.height = height
    self.rowBytes = rowBytes
  }

  /// The first value of row `y`.
  @inlinable public subscript(row y: Int) -> UnsafePointer<T> {
    (base + y * rowBytes).assumingMemoryBound(to: T.self)
  }
}

/// Writable typed rows of a `PixelBuffer`, valid only inside the closure that received it.
public struct UnsafeMutablePixels<T> {
  /// Row 0's address.
  public let base: UnsafeMutableRawPointer
  /// Columns.
  public let width: Int
  /// Rows.
  public let height: Int
  /// Bytes between rows.
  public let rowBytes: Int

  @inlinable init(base: UnsafeMutableRawPointer, width: Int, height: Int, rowBytes: Int) {
    self.base = base
    self.width = width
    self.height = height
    self.rowBytes = rowBytes
  }

  /// The first value of row `y`.
  @inlinable public subscript(row y: Int) -> UnsafeMutablePointer<T> {
    (base + y * rowBytes).assumingMemoryBound(to: T.self)
  }

  /// A view of the same memory holding just `rect` (in these pixels' coordinates).
  ///
  /// - Precondition: `rect` lies inside `0..<width` × `0..<height`.
  @inlinable public func cropped(to rect: Rect) -> UnsafeMutablePixels<T> {
    precondition(rect.x >= 0 && rect.y >= 0 && rect.maxX <= width && rect.maxY <= height, "crop \(rect) outside \(width)x\(height)")
    return UnsafeMutablePixels(
      base: base + rect.y * rowBytes + rect.x * MemoryLayout<T>.stride, width: rect.width, height: rect.height,
      rowBytes: rowBytes)
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
