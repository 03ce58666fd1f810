// Renderer+Memory.swift — how many bytes a render of an image may hold at once, known before it
// starts, so a caller running several renders side by side (fgrun's batches) can keep their sum
// within a budget.
//
// The estimate is an upper bound of the render's own memory, from the graph alone (no decode, no
// analysis):
//
//   Σ over distinct encoded sources not already in the decode cache: width × height × bytes per
//     pixel (decoded whole; a streamed source holds only a window of rows, so this over-counts it;
//     buffers and generated sources hold nothing of the render's own)
//   + Σ over held intermediates (a large blur's reduced copy): width × height × 16
//   + the bands in flight: bandWindow × tile height × output width × 16, twice (the float tiles
//     being computed and the band buffer in the output's format, counted at float size)
//
// What a render shares with others — sources already cached, such as a batch's watermark — is not
// counted: the decode cache's own byte limit bounds it.

import PixelBufferModule

extension Renderer {
  /// An upper bound, in bytes, of what rendering `image` holds at once besides what the decode
  /// cache holds now (see Renderer+Memory.swift).
  public func estimatedMemory(for image: Image) -> Int {
    // Sides are at most 65,535 and a graph at most 10,000 nodes (GraphLimits): the sums fit.
    var total = 0
    var sources: Set<String> = []
    var seen: Set<ObjectIdentifier> = []
    var pending = [image.node]
    while let node = pending.popLast() {
      guard seen.insert(ObjectIdentifier(node)).inserted else { continue }
      pending.append(contentsOf: node.inputs)
      let info = node.info
      if let source = node.operation as? EncodedSourceOperation, !cache.contains(source.identity),
        sources.insert(source.identity).inserted
      {
        total += info.size.width * info.size.height * PixelFormat(layout: info.layout, component: info.component).bytesPerPixel
      }
      if node.operation is HeldInputOperation, let input = node.inputs.first {
        total += input.info.size.width * input.info.size.height * 16
      }
    }
    // The tile height is a caller's option: saturate rather than overflow.
    let bands = [bandWindow, options.tileSize.height, image.size.width, 32].reduce(1) { product, factor in
      let (p, overflow) = product.multipliedReportingOverflow(by: factor)
      return overflow ? .max : p
    }
    let (sum, overflow) = total.addingReportingOverflow(bands)
    return overflow ? .max : sum
  }
}
