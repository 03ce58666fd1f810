// ChangedRectangle.swift — where two frames of an animation differ.
//
// For frames A and B of one size and pixel format, the changed rectangle is the smallest
// rectangle holding every pixel whose bytes differ between A and B (exact comparison), grown left
// and up to even coordinates (`snappedToEven`: WebP stores frame offsets halved); nil when the
// frames are byte for byte equal. The animated WebP and APNG writers store it.

import Foundation
import PixelBufferModule

extension PixelBuffer {
  /// The smallest rectangle outside which this buffer's pixels equal `previous`'s byte for byte,
  /// or nil when every pixel does. Both buffers have one size and format.
  func changedRectangle(since previous: PixelBuffer) -> Rect? {
    precondition(size == previous.size && format == previous.format, "frames of one animation differ in size or format")
    return withUnsafeBaseAddress { new, newStride in
      previous.withUnsafeBaseAddress { old, oldStride in
        ImageCodecs.changedRectangle(new, stride: newStride, old, stride: oldStride, size: size, pixelBytes: format.bytesPerPixel)
      }
    }
  }
}

/// The smallest rectangle outside which the `size` pixels of `pixelBytes` bytes at `new` equal
/// those at `old` byte for byte (rows `stride` bytes apart), or nil when every pixel does.
func changedRectangle(
  _ new: UnsafeRawPointer, stride newStride: Int, _ old: UnsafeRawPointer, stride oldStride: Int, size: Size, pixelBytes: Int
) -> Rect? {
  let rowBytes = size.width * pixelBytes
  func row(_ y: Int) -> (UnsafeRawPointer, UnsafeRawPointer) { (new + y * newStride, old + y * oldStride) }
  func equal(_ y: Int) -> Bool { let (a, b) = row(y); return memcmp(a, b, rowBytes) == 0 }
  guard let top = (0..<size.height).first(where: { !equal($0) }) else { return nil }
  let bottom = (top..<size.height).last(where: { !equal($0) }) ?? top
  // Bytes, narrowed row by row: a row only needs looking at outside the span found so far.
  var first = rowBytes, last = -1
  for y in top...bottom {
    let (a, b) = row(y)
    var i = 0
    while i < first, a.load(fromByteOffset: i, as: UInt8.self) == b.load(fromByteOffset: i, as: UInt8.self) { i += 1 }
    first = min(first, i)
    var j = rowBytes - 1
    while j > last, a.load(fromByteOffset: j, as: UInt8.self) == b.load(fromByteOffset: j, as: UInt8.self) { j -= 1 }
    last = max(last, j)
  }
  let left = first / pixelBytes, right = last / pixelBytes
  return Rect(x: left, y: top, width: right - left + 1, height: bottom - top + 1)
}

extension Rect {
  /// This rectangle grown left and up to even `x` and `y`, its right and bottom edges kept.
  var snappedToEven: Rect {
    let x0 = x & ~1, y0 = y & ~1
    return Rect(x: x0, y: y0, width: width + x - x0, height: height + y - y0)
  }
}
