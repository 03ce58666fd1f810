// Analysis.swift — reductions over a whole image whose results parameterise later operations.
//
// Some filters cannot compute a pixel before they have seen the whole image: `normalize` needs
// the histogram, `trim` the border, `smartcrop` where the interest is. An `ImageAnalysis` is such
// a reduction, split the way tiles are: `partial` reduces one tile of the (possibly downscaled)
// view, `merged` combines two partial results of adjacent parts (always in the same order, so
// the result never depends on how tiles were scheduled), and `result` turns the merged value into
// what the operation needs, in the coordinates of the full-size image. An analysis never sees
// threads or tiles' order, as operations never do.
//
// An `AnalysedOperation` is a node whose operation is known only once an analysis of its input
// is: before the first tile of a render the renderer computes the analysis (tile-parallel, once
// per render, and kept across renders keyed by what the input computes — the source's identity
// included — like decoded pixels) and replaces the node by `resolved(with:)`, an ordinary
// operation (normalize → levels, trim and smartcrop → crop). Until then the node's `ImageInfo` is
// provisional: `trim` reports its input's size, the largest it can be; `Renderer.resolved(_:)`
// gives the graph with every analysis done, whose sizes are final. An analysis may also compute
// the input's pixels themselves, for an operation that reads them from memory
// (`HeldInputOperation`).

import PixelBufferModule

/// Which pixels an analysis reduces.
public enum AnalysisView: Hashable, Sendable, CustomStringConvertible {
  /// Every pixel at full size.
  case fullSize
  /// The image scaled to fit within this many pixels (area), when larger; shrink-on-load applies,
  /// so a large JPEG is decoded at 1/2, 1/4 or 1/8. Each analysis states the tolerance this costs.
  case reduced(maximumPixels: Int)

  /// `full size`, `≤ 2 MP view`.
  public var description: String {
    switch self {
    case .fullSize: return "full size"
    case .reduced(let n): return "≤ \(ParameterValue.format(Double(n) / 1_000_000)) MP view"
    }
  }
}

/// A reduction over an image, computed tile by tile and merged; see the file comment.
public protocol ImageAnalysis: Sendable {
  /// The reduction of one part of the view.
  associatedtype Partial: Sendable
  /// What operations are given.
  associatedtype Result: Sendable

  /// What is computed, with every setting that changes the result (`histogram bins=4096`): part
  /// of the key results are kept under across renders, and shown by `fgrun explain`.
  var label: String { get }
  /// The pixels it reduces.
  var view: AnalysisView { get }
  /// The encoding the tiles it is given are in.
  var workingSpace: WorkingSpace { get }

  /// Reads what it needs to know before the tiles (`trim` without a background colour reads the
  /// top-left pixel) through `read`, which returns any rectangle of the view; the default needs
  /// nothing and returns `self`.
  func prepared(reading read: (Rect) throws -> Tile, viewSize: Size) throws -> Self
  /// Reduces one tile of the view (premultiplied float RGBA in `workingSpace`, `tile.rect` in the
  /// view's coordinates).
  func partial(of tile: Tile, viewSize: Size) -> Partial
  /// Combines the partials of two parts of the view, `first` above or left of `second`.
  func merged(_ first: Partial, _ second: Partial) -> Partial
  /// The result for an image of `imageSize` whose view (of `viewSize`) reduced to `partial`.
  func result(_ partial: Partial, viewSize: Size, imageSize: Size) -> Result
  /// The memory `result` holds, counted against the byte limit of the results a renderer keeps
  /// across renders; the default, 0, is for results of a few kilobytes (a histogram, a rectangle).
  func retainedBytes(of result: Result) -> Int
}

extension ImageAnalysis {
  /// Needs nothing before the tiles.
  public func prepared(reading read: (Rect) throws -> Tile, viewSize: Size) throws -> Self { self }
  /// Small results: nothing counted.
  public func retainedBytes(of result: Result) -> Int { 0 }
}

/// An operation whose parameters come from an analysis of its first input (usually its only one);
/// see the file comment.
public protocol AnalysedOperation: ImageOperation {
  /// The analysis it is parameterised by.
  associatedtype Analysis: ImageAnalysis
  /// The analysis of the input this instance needs.
  var analysis: Analysis { get }
  /// The ordinary operation that replaces this node once the analysis of an input of `input`
  /// gave `result`.
  func resolved(with result: Analysis.Result, input: ImageInfo) -> any ImageOperation
  /// The node that replaces this one, given its (resolved) `inputs`, the first being the one
  /// analysed: by default `resolved(with:input:)` reading it; an operation whose analysis computes
  /// the input's pixels reads them instead (HeldInput.swift), and a gain map's window
  /// (GainMapWindow.swift) crops its second input by what the analysis of the first chose.
  func resolvedNode(with result: Analysis.Result, inputs: [ImageNode]) -> ImageNode
}

extension AnalysedOperation {
  /// The resolved operation reading the analysed input.
  public func resolvedNode(with result: Analysis.Result, inputs: [ImageNode]) -> ImageNode {
    ImageNode(operation: resolved(with: result, input: inputs[0].info), inputs: [inputs[0]])
  }
}

extension AnalysedOperation {
  /// Never called: the renderer replaces the node by `resolved(with:input:)` before any tile.
  public func render(into output: inout Tile, inputs: [Tile]) throws {
    throw FilterError("\(descriptor.name): rendered before its analysis was computed")
  }
}

extension AnalysedOperation {
  /// How `fgrun explain` shows the analysis: `analysis before the tiles: histogram … (≤ 4 MP view)`.
  public var analysisSummary: String { "analysis before the tiles: \(analysis.label) (\(analysis.view))" }
}
