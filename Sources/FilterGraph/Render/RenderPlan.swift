// RenderPlan.swift — an optimized graph with its sources decoded, ready for tiles.

import Foundation
import ImageCodecs
import Locking
import PixelBufferModule
import Synchronization

/// What the renderer runs: the optimized graph, who reads what, and the decoded sources.
final class RenderPlan: @unchecked Sendable {  // filled by `prepare` before any tile runs, read-only after
  let root: ImageNode
  let consumerCount: [ObjectIdentifier: Int]
  /// How the output is cut into bands and tiles.
  let grid: TileGrid
  /// Whether the bands run one at a time (each one tile wide), so that the sources are read in
  /// the order one tile's evaluation reads them (`Renderer.sequentialPlan`).
  let isSequential: Bool
  var decoded: [ObjectIdentifier: PixelBuffer] = [:]
  /// Where `decoded` pixels start in their source, for sources decoded only in part (a region
  /// of a TIFF; see `Renderer.sourceRegion`). Absent: at the origin.
  var decodedOrigins: [ObjectIdentifier: Point] = [:]
  /// Sources decoded on demand, in order, into a ring of rows (see StreamingSource).
  var streamed: [ObjectIdentifier: StreamingSource] = [:]
  /// The rasters of `RasterizedSource`s (through the decode cache), with their warnings
  /// (`Renderer.passRasterWarnings`): each made at the start of `Renderer.run` on a worker, or by
  /// the first tile that reads it if that comes first (and in analyses' tile passes).
  var rasters: [ObjectIdentifier: HandedWork<(pixels: PixelBuffer, warnings: [String])>] = [:]
  /// How many tiles found a raster not made yet, and made it or waited for it.
  let rasterWaits = Atomic<Int>(0)
  /// Sources whose pixels are converted from their ICC profile into the working space on load.
  var sourceTransforms: [ObjectIdentifier: ColorTransform] = [:]
  /// The warnings this render gave (`Renderer.warn`), in order; written on the rendering thread only.
  var warnings: [String] = []
  /// The warnings among them that say a source's data is damaged (a decoder patched it up).
  var damage: [String] = []
  /// Warnings already passed to the warning handler by an earlier render of the same job (a
  /// frame loop's earlier frames): recorded here, not passed again.
  var reported: Set<String> = []
  /// What a write with a target chose (Renderer+Target.swift); written on the rendering thread only.
  var targetOutcome: TargetOutcome?

  init(root: ImageNode, grid: TileGrid, isSequential: Bool = false) {
    self.root = root
    self.grid = grid
    self.isSequential = isSequential
    self.consumerCount = Optimizer.consumerCounts(root)
  }

  /// Every node once, inputs before the nodes that read them.
  var nodes: [ImageNode] {
    var order: [ImageNode] = []
    var seen: Set<ObjectIdentifier> = []
    func visit(_ n: ImageNode) {
      guard seen.insert(ObjectIdentifier(n)).inserted else { return }
      n.inputs.forEach(visit)
      order.append(n)
    }
    visit(root)
    return order
  }
}

/// Prints graphs the way `fgrun explain` shows them (like Core Image's CI_PRINT_TREE).
public enum GraphPrinter {
  /// An indented tree: the root first, each input below its reader; a node read twice is
  /// printed once and referred to as `(same as #N)` afterwards. Sources say how their colours
  /// are read, CMYK files with `rendering`.
  public static func describe(_ root: ImageNode, rendering: ColorRendering = ColorRendering()) -> String {
    var lines: [String] = []
    var numbers: [ObjectIdentifier: Int] = [:]
    let counts = Optimizer.consumerCounts(root)
    func visit(_ node: ImageNode, depth: Int) {
      let indent = String(repeating: "  ", count: depth)
      if let n = numbers[ObjectIdentifier(node)] {
        lines.append("\(indent)(same as #\(n), computed once)")
        return
      }
      let n = numbers.count + 1
      numbers[ObjectIdentifier(node)] = n
      let label = (node.operation as? FusedPointOperation).map { "fused pass [\($0.label)]" } ?? node.label
      let info = node.info
      var line = "\(indent)#\(n) \(label)  → \(info.size) \(info.layout.rawValue) \(info.component.bitDepth)-bit"
      if let space = node.operation.workingSpace { line += " (\(space.rawValue))" }
      if counts[ObjectIdentifier(node), default: 0] > 1 { line += "  [read by \(counts[ObjectIdentifier(node)]!)]" }
      if let source = node.operation as? EncodedSourceOperation {
        let h = source.source.header
        line += "  [\(h.fileFormat.rawValue) \(h.size)"
        if source.scaleDenominator == 1 {
          line += ", full decode]"
        } else if let level = source.source.storedLevelSize(scaleDenominator: source.scaleDenominator) {
          line += ", decoded at 1/\(source.scaleDenominator) from its stored \(level) level (shrink-on-load)]"
        } else {
          line += ", decoded at 1/\(source.scaleDenominator) (shrink-on-load)]"
        }
      }
      if let analysed = node.operation.asAnalysed { line += "  [\(analysed.analysisSummary)]" }
      if let warned = node.operation.asWarning, let warning = warned.warning(inputs: node.inputs.map(\.info)) {
        line += "  [warning: \(warning)]"
      }
      if node.operation.asSource != nil, let colour = SourceColor.explanation(node, rendering: rendering) { line += "  [\(colour)]" }
      lines.append(line)
      for input in node.inputs { visit(input, depth: depth + 1) }
    }
    visit(root, depth: 0)
    return lines.joined(separator: "\n")
  }
}
