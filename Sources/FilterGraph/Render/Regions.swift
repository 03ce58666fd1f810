// Regions.swift — which region of each node a tile needs: the one rule every part of the
// renderer follows.
//
// A tile asks the root for its rectangle. A node computes only the part of a request inside its
// extent (`computed`: the rest is filled by extending its edges) and, for that part, reads from
// each input the region its operation names (`inputRegion`), except that a point operation reads
// exactly the pixels it writes. The evaluator pulls pixels this way; tile sizing and the
// streaming analysis follow the same regions without computing anything, so what they predict is
// what the tiles will read.

import PixelBufferModule

enum Regions {
  /// The part of `rect` a node with `extent` actually computes: `rect ∩ extent`, or the nearest
  /// edge pixels when `rect` lies entirely outside.
  static func computed(_ rect: Rect, extent: Rect) -> Rect {
    let inside = rect.intersection(extent)
    if !inside.isEmpty { return inside }
    let x = min(max(rect.x, 0), extent.width - 1), y = min(max(rect.y, 0), extent.height - 1)
    let x1 = min(max(rect.maxX, 1), extent.width), y1 = min(max(rect.maxY, 1), extent.height)
    return Rect(x: min(x, x1 - 1), y: min(y, y1 - 1), width: max(x1 - min(x, x1 - 1), 1), height: max(y1 - min(y, y1 - 1), 1))
  }

  /// The region of input `index` that `node` reads to compute `rect`, which lies inside the
  /// node's extent (a `computed` region).
  static func input(_ index: Int, of node: ImageNode, for rect: Rect) -> Rect {
    let op = node.operation
    if op.asPositionalPoint != nil { return rect }
    return op.inputRegion(for: rect, input: index, inputs: node.inputs.map(\.info))
  }

  /// Follows a request for `rect` of `root` down the graph, depth first, as the tiles will:
  /// `visit(node, index, region)` is called with the region of each input each reached node
  /// reads, and returns whether to go on into that input. A node reached again for the same
  /// region is not followed again (the tiles compute it once too), so a graph that reuses its
  /// images costs its edges, not its paths.
  static func walk(from root: ImageNode, _ rect: Rect, _ visit: (ImageNode, Int, Rect) -> Bool) {
    var reached: Set<TileEvaluator.MemoKey> = []
    func reach(_ node: ImageNode, _ rect: Rect) {
      let rect = computed(rect, extent: node.info.extent)
      guard reached.insert(TileEvaluator.MemoKey(node: ObjectIdentifier(node), rect: rect, space: .linear)).inserted else { return }
      for (i, input) in node.inputs.enumerated() {
        let region = Self.input(i, of: node, for: rect)
        if visit(node, i, region) { reach(input, region) }
      }
    }
    reach(root, rect)
  }
}
