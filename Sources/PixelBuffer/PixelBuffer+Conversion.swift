// PixelBuffer+Conversion.swift — one conversion between any two formats (and transfer curves).
//
// `converted(to:colorSpace:)` composes the pieces in the neighbouring files, one row at a time
// through a float working row:
//   1. load      component → nominal float (x / 255, v / 65535); for integer sources that only
//                need decoding to linear light this step reads the exact sRGB decode table instead
//   2. layout    gray ↔ RGB (Rec. 709 luma / replication), add alpha (opaque) or drop it
//   3. alpha     unpremultiply if the transfer curve changes or the target is straight
//   4. transfer  sRGB decode or encode of the colour channels (never alpha)
//   5. alpha     premultiply if the target is premultiplied and the values are straight by now
//   6. store     float → component (clamped to [0, 1] and rounded to nearest for integers)
// Conversions that only change the component type or only the alpha mode of an integer buffer
// skip the float row and use the exact integer kernels of PixelBuffer+Depth / PixelBuffer+Alpha.

extension PixelBuffer {
  /// True when `converted(to:colorSpace:)` can go from colour space `from` to `to`: they are
  /// equal or differ only in the transfer curve (sRGB ↔ linear sRGB, Display P3 ↔ linear P3).
  /// Changing primaries (for example Display P3 → sRGB) is not a pixel-format conversion.
  public static func canConvert(from: ColorSpace, to: ColorSpace) -> Bool {
    from == to || (from.encoded == to.encoded && from.isLinear != to.isLinear)
  }

  /// The same image in any other pixel format, optionally moved to or from linear light.
  ///
  /// Handles every combination of channel layout, component type and alpha mode:
  /// - component: see `converted(to: ComponentType)` — 8 → float → 8, 16 → float → 16 and
  ///   8 → 16 → 8 are exact;
  /// - layout: see `converted(to: ChannelLayout)` — RGB → gray is the Rec. 709 weighted sum of the
  ///   stored (source colour space) values, gray → RGB replicates, added alpha is opaque, and
  ///   dropping alpha keeps the stored colour values (over black for premultiplied input);
  /// - alpha mode: see `premultiplied()` / `unpremultiplied()`;
  /// - colour space: when `colorSpace` differs from the buffer's only by the transfer curve, the
  ///   colour channels are decoded or encoded with `SRGBTransfer` (premultiplied pixels are
  ///   unpremultiplied first and premultiplied again after). Alpha is never curve-mapped.
  ///
  /// Returns `self` when nothing changes. Colour space and metadata carry over (with
  /// `colorSpace` replacing the colour space when given).
  ///
  /// - Precondition: `PixelBuffer.canConvert(from: self.colorSpace, to: colorSpace)`.
  public func converted(to format: PixelFormat, colorSpace: ColorSpace? = nil) -> PixelBuffer {
    let target = colorSpace ?? self.colorSpace
    precondition(
      PixelBuffer.canConvert(from: self.colorSpace, to: target),
      "cannot convert \(self.colorSpace) to \(target): only the transfer curve may change")
    let src = self.format
    let decode = !self.colorSpace.isLinear && target.isLinear
    let encode = self.colorSpace.isLinear && !target.isLinear
    let transfer = decode || encode

    if !transfer {
      if format == src { return self }
      var alphaOnly = src
      alphaOnly.alphaMode = format.alphaMode
      if alphaOnly == format { return changingAlphaMode(to: format.alphaMode) }
      var depthOnly = src
      depthOnly.component = format.component
      if depthOnly == format { return converted(to: format.component) }
    }

    var out = PixelBuffer(
      width: width, height: height, format: format, colorSpace: target, metadata: metadata)
    if width == 0 || height == 0 { return out }

    let bothAlpha = src.layout.hasAlpha && format.layout.hasAlpha
    let unpremultiply =
      bothAlpha && src.alphaMode == .premultiplied && (transfer || format.alphaMode == .straight)
    let premultiply =
      bothAlpha && format.alphaMode == .premultiplied && (transfer || src.alphaMode == .straight)
    let fuseDecode =
      decode && src.component != .float32 && !unpremultiply
      && src.layout.isGray == format.layout.isGray
    let fuseEncode =
      encode && !premultiply && !format.layout.hasAlpha && format.component != .float32
    let sameLayout = src.layout == format.layout
    let (w, h) = (width, height)
    let (cs, cd) = (src.channelCount, format.channelCount)

    let scratch = UnsafeMutablePointer<Float>.allocate(capacity: w * (cs + cd))
    defer { scratch.deallocate() }
    let rowA = scratch, rowB = scratch + w * cs

    withUnsafeBaseAddress { srcBase, srcStride in
      out.withUnsafeMutableBaseAddress { dstBase, dstStride in
        for y in 0..<h {
          let s = srcBase + y * srcStride
          let d = dstBase + y * dstStride
          // The working row: the destination itself when it holds floats.
          let work = format.component == .float32 ? d.assumingMemoryBound(to: Float.self) : rowB
          let loadInto = sameLayout ? work : rowA

          // 1. load
          if fuseDecode {
            if src.component == .uint8 {
              SRGBTransfer.decodePixels(
                s.assumingMemoryBound(to: UInt8.self), pixelCount: w, layout: src.layout, into: loadInto)
            } else {
              SRGBTransfer.decodePixels(
                s.assumingMemoryBound(to: UInt16.self), pixelCount: w, layout: src.layout, into: loadInto)
            }
          } else {
            DepthKernels.load(s, src.component, loadInto, w * cs)
          }
          // 2. layout
          if !sameLayout {
            ChannelKernels.remap(rowA, from: src.layout, work, to: format.layout, pixels: w)
          }
          // 3–5. alpha and transfer curve
          if unpremultiply { AlphaKernels.unpremultiplyFloat(work, pixels: w, channels: cd) }
          if transfer && !fuseDecode && !fuseEncode {
            SRGBTransfer.transformPixels(work, pixelCount: w, layout: format.layout, decode: decode)
          }
          if premultiply { AlphaKernels.premultiplyFloat(work, pixels: w, channels: cd) }
          // 6. store
          if fuseEncode {
            if format.component == .uint8 {
              SRGBTransfer.encodeRow(work, count: w * cd, into: d.assumingMemoryBound(to: UInt8.self))
            } else {
              SRGBTransfer.encodeRow(work, count: w * cd, into: d.assumingMemoryBound(to: UInt16.self))
            }
          } else if format.component != .float32 {
            DepthKernels.store(work, format.component, d, w * cd)
          }
        }
      }
    }
    return out
  }
}
