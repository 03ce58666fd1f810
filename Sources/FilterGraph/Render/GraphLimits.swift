// GraphLimits.swift — the size every image of a graph may have, checked before any decode.

import ImageCodecs

/// Refuses a graph whose output, or any image inside it, would have more pixels than the
/// renderer allows (`RendererOptions.maxPixels`), before anything is decoded or computed: a
/// `scale factor=100` of a photo or a `solid size=65535x65535` fails at once with a sentence
/// naming the step, instead of running for minutes and filling the disk.
enum GraphLimits {
  /// Throws `CodecError.tooLarge` for the first node (outputs first) over `maxPixels`.
  static func check(_ root: ImageNode, maxPixels: Int) throws {
    var pending = [root]
    var seen = Set<ObjectIdentifier>()
    while let node = pending.popLast() {
      guard seen.insert(ObjectIdentifier(node)).inserted else { continue }
      let size = node.info.size
      let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
      if overflow || pixels > maxPixels {
        let what = node === root ? "output" : "image made by '\(node.label)'"
        throw CodecError(
          .tooLarge,
          "The recipe's \(what) would be \(size.width)×\(size.height) pixels, more than the limit of \(maxPixels) pixels; "
            + "nothing was decoded. Raise the limit (fgrun --max-pixels) if this is intended.")
      }
      pending.append(contentsOf: node.inputs)
    }
  }
}
