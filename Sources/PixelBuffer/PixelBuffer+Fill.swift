// PixelBuffer+Fill.swift — solid fills and same-format blits.

extension PixelBuffer {
  /// Allocates a buffer with every pixel set to `color`.
  ///
  /// `color` is straight (not premultiplied) RGBA in nominal [0, 1] units, expressed in
  /// `colorSpace`; see `fill(_:)` for how it maps onto each format.
  public init(
    width: Int, height: Int, format: PixelFormat, filledWith color: SIMD4<Float>,
    colorSpace: ColorSpace = .sRGB, metadata: ImageMetadata = ImageMetadata()
  ) {
    self.init(width: width, height: height, format: format, colorSpace: colorSpace, metadata: metadata)
    fill(color)
  }

  /// Sets every pixel to `color`, straight RGBA in nominal [0, 1] units in the buffer's own colour
  /// space, converted like a pixel by `converted(to:)`: gray formats take the Rec. 709 luma of the
  /// RGB part, layouts without alpha ignore alpha, premultiplied formats multiply, and integer
  /// formats clamp and round.
  public mutating func fill(_ color: SIMD4<Float>) {
    guard width > 0, height > 0 else { return }
    var one = PixelBuffer(
      width: 1, height: 1,
      format: PixelFormat(layout: .rgba, component: .float32, alphaMode: .straight),
      colorSpace: colorSpace)
    one.withUnsafeMutablePixels(as: Float.self) { p in
      for c in 0..<4 { p[row: 0][c] = color[c] }
    }
    let pixel = one.converted(to: format)
    let bpp = format.bytesPerPixel
    let (w, h) = (width, height)
    pixel.withUnsafeBaseAddress { value, _ in
      withUnsafeMutableBaseAddress { base, stride in
        // Fill the first row pixel by pixel, then copy it to the others.
        for x in 0..<w { (base + x * bpp).copyMemory(from: value, byteCount: bpp) }
        for y in 1..<max(h, 1) { (base + y * stride).copyMemory(from: base, byteCount: w * bpp) }
      }
    }
  }

  /// Copies all of `source`'s pixels into this buffer with `source`'s top-left at `origin`
  /// (a blit, for example a finished tile into the output). Bytes are copied as they are;
  /// colour space and metadata are not looked at.
  ///
  /// Copies first if this buffer's memory is shared (also when `source` is a view of it, so
  /// overlapping regions read the old pixels).
  ///
  /// - Precondition: the formats are equal and the placed rectangle lies inside `bounds`.
  public mutating func copyPixels(from source: PixelBuffer, to origin: Point) {
    precondition(source.format == format, "copyPixels: \(source.format) into \(format)")
    let placed = Rect(origin: origin, size: source.size)
    precondition(bounds.contains(placed) || placed.isEmpty, "copyPixels: \(placed) outside \(bounds)")
    guard !placed.isEmpty else { return }
    let bpp = format.bytesPerPixel
    let length = source.width * bpp
    let rows = source.height
    source.withUnsafeBaseAddress { src, srcStride in
      withUnsafeMutableBaseAddress { dst, dstStride in
        let d = dst + origin.y * dstStride + origin.x * bpp
        for y in 0..<rows {
          (d + y * dstStride).copyMemory(from: src + y * srcStride, byteCount: length)
        }
      }
    }
  }
}
