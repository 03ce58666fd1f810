// GraphLimits.swift — what a graph may be, checked before anything is optimized or decoded.
//
// Four limits, each far above any real recipe and each refused with a sentence:
// - pixels: the output, and every image inside the graph, has at most `maxPixels` pixels
//   (`RendererOptions.maxPixels`), so `scale factor=100` of a photo or `solid size=65535x65535`
//   fails at once instead of running for minutes and filling the disk;
// - sides: no computed image is over `maxSide` (65535) on a side. Operations keep the size they
//   compute (`extend` by 65000 on each side of a photo, `scale factor=100` of a large one) so this
//   check names the true size rather than a clamped one that would render silently;
// - nodes: at most `maxNodes` distinct images in one graph;
// - depth: at most `maxDepth` images on the longest path from the output to a source. Tiles are
//   evaluated by walking that path on a worker thread's stack, so the depth bounds the stack a
//   render can use (a 2,500-filter recipe once overflowed it).

import Foundation
import ImageCodecs

/// A graph over the renderer's limits — too many images, too deep, or an intermediate or output
/// image over the pixel limit: the recipe's (or the caller's) doing, not the input's, so fgrun
/// exits 64 and the server answers 422. A source over the pixel limit stays a `CodecError`.
public struct GraphLimitError: Error, CustomStringConvertible, LocalizedError, Sendable {
  /// One sentence saying which limit and what to do.
  public let message: String
  public var description: String { message }
  public var errorDescription: String? { message }
}

enum GraphLimits {
  /// The largest side of any image in a graph: what JPEG, WebP, AVIF/HEIC and the tile grid's
  /// coordinates hold (PNG and TIFF could hold more; no recipe has needed it).
  static let maxSide = 65535
  /// The most distinct images one graph may hold.
  static let maxNodes = 10_000
  /// The most images on one path from the output to a source.
  static let maxDepth = 512

  /// Throws `GraphLimitError` when the graph under `root` breaks a limit: too many nodes, too
  /// deep, or a computed node (the output first) with more than `maxPixels` pixels; a source over
  /// `maxPixels` is `CodecError.tooLarge` (the file is too large, not the recipe).
  static func check(_ root: ImageNode, maxPixels: Int) throws {
    let nodes = try reachableNodes(root)
    try checkDepth(root, nodeCount: nodes.count)
    for node in nodes {
      let size = node.info.size
      let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
      // Spelled only for the message: a label formats every argument.
      var what: String { node === root ? "output" : "image made by '\(node.label)'" }
      if overflow || pixels > maxPixels {
        let message = "The recipe's \(what) would be \(size.width)×\(size.height) pixels, more than the limit of \(maxPixels) pixels; "
            + "nothing was decoded. Raise the limit (fgrun --max-pixels) if this is intended."
        if node.operation is EncodedSourceOperation { throw CodecError(.tooLarge, message) }
        throw GraphLimitError(message: message)
      }
      if size.width > maxSide || size.height > maxSide, !(node.operation is EncodedSourceOperation) {
        throw GraphLimitError(
          message: "The recipe's \(what) would be \(size.width)×\(size.height) pixels; no side may be over \(maxSide). Nothing was decoded.")
      }
    }
  }

  /// Every node under `root` once, the root first, walked without recursion.
  private static func reachableNodes(_ root: ImageNode) throws -> [ImageNode] {
    var order: [ImageNode] = []
    var pending = [root]
    var seen = Set<ObjectIdentifier>()
    while let node = pending.popLast() {
      guard seen.insert(ObjectIdentifier(node)).inserted else { continue }
      order.append(node)
      if order.count > maxNodes {
        throw GraphLimitError(
          message: "The recipe's graph has more than \(maxNodes) images; nothing was decoded. Split the work into several recipes.")
      }
      pending.append(contentsOf: node.inputs)
    }
    return order
  }

  /// Finds the longest path from `root` to a source by an explicit post-order walk (a recursive
  /// walk would itself overflow on the graphs this guards against).
  private static func checkDepth(_ root: ImageNode, nodeCount: Int) throws {
    var depth: [ObjectIdentifier: Int] = [:]
    depth.reserveCapacity(nodeCount)
    var stack: [(node: ImageNode, expanded: Bool)] = [(root, false)]
    while let (node, expanded) = stack.popLast() {
      let id = ObjectIdentifier(node)
      if depth[id] != nil { continue }
      if expanded {
        let below = node.inputs.map { depth[ObjectIdentifier($0)] ?? 0 }.max() ?? 0
        depth[id] = below + 1
        if below + 1 > maxDepth {
          throw GraphLimitError(
            message: "The recipe chains more than \(maxDepth) steps one after another (at '\(node.label)'); nothing was decoded. "
              + "Split the work into several recipes.")
        }
        continue
      }
      stack.append((node, true))
      for input in node.inputs where depth[ObjectIdentifier(input)] == nil { stack.append((input, false)) }
    }
  }
}
