// Capabilities.swift — what an operation lets the optimizer do with it, declared by adopting a
// protocol (the optimizer never names a concrete operation).
//
// - `PointOperation` / `PositionalPointOperation` (Operation.swift): runs in place; chains fuse.
// - `ResampleOperation`: may be fed a reduced-size decode of its source (shrink-on-load).
// - `ReducibleSource`: a source that can decode at reduced sizes.
// - `ScaleCommutingOperation`: shrink-on-load looks through it to the source below.
// - `FoldingOperation`: merges with the operation below it into one (orientations).
// - `ResolutionMappable`: repeats itself on the same picture at another resolution (gain maps).
// - `GainMapCarrying`: leaves a gain map following its input right as it is (HDR/GainMapPolicy.swift);
//   a `PointOperation` that does not is applied to the map's HDR rendition instead
//   (HDR/GainMapRerendering.swift).
// - `GainMapEnding`: an instance whose output is no picture of the scene's light ends a gain map,
//   saying why (HDR/GainMapPolicy.swift).
// - `OverlayingOperation`: places its second input on its first (a gain map then gets "no boost"
//   under the overlay: HDR/GainMapOverlay.swift; or, when the overlay has a map of its own, is
//   made from the blend of the two HDR renditions: HDR/GainMapBlending.swift).
// - `WindowChoosingOperation`: an analysis chooses a window that the operation crops to (decided
//   once for an animation; taken by a gain map at its own resolution).
// - `StoredRowsReader`: computes from a decoded 8-bit source's stored rows (the tile evaluator
//   hands them over instead of a float tile).
// - `BandedInputReader`: takes a large input region a band of rows at a time (reductions), so its
//   memory is bounded by a band and its output, not by the whole region.
// - `RegionalOperation`: changes only a rectangle of its first input (a composite), in place on
//   its tile; output tiles outside it copy the stored rows of the source below (TileWriter,
//   PassThrough).
// - `LowPassOperation`: removes detail finer than a Gaussian of σ pixels (a blur); a downscale
//   only it reads, directly or through `WindowOperation`s (crop), keeps no shrink-on-load margin.
// - `RasterizedSource`: a generated source filled from a raster made once per render, on a worker
//   at its start (a text; SourceOperation.swift).

//
// Every operation answers `asSource`, `asPositionalPoint`, `asAnalysed`, `asFolding`,
// `asResample` and `asWarning` (requirements of `ImageOperation`), and every source
// `asRasterized` (a requirement of `SourceOperation`): itself when it adopts the
// protocol, nil otherwise, from the witness chosen when its type is compiled (the protocol's
// extension below, or `ImageOperation`'s). The renderer and the optimizer read these instead of
// casting with `as? any P`, whose first answer for each type and protocol scans every
// protocol-conformance record of the program (≈ 0.4 M instructions each in the static fgrun: a
// credit line's text, shadow and composite asked about a dozen protocols cost ≈ 4 ms at start).

import PixelBufferModule

extension ImageOperation {
  /// Not a source.
  public var asSource: (any SourceOperation)? { nil }
  /// Not a positional point operation.
  public var asPositionalPoint: (any PositionalPointOperation)? { nil }
  /// Not analysed.
  public var asAnalysed: (any AnalysedOperation)? { nil }
  /// Does not fold.
  public var asFolding: (any FoldingOperation)? { nil }
  /// Does not resample.
  public var asResample: (any ResampleOperation)? { nil }
  /// Has no warning.
  public var asWarning: (any WarningOperation)? { nil }
}

extension SourceOperation {
  /// Itself.
  public var asSource: (any SourceOperation)? { self }
  /// Not rasterized.
  public var asRasterized: (any RasterizedSource)? { nil }
}

extension RasterizedSource {
  /// Itself.
  public var asRasterized: (any RasterizedSource)? { self }
}

extension PositionalPointOperation {
  /// Itself.
  public var asPositionalPoint: (any PositionalPointOperation)? { self }
}

extension AnalysedOperation {
  /// Itself.
  public var asAnalysed: (any AnalysedOperation)? { self }
}

extension FoldingOperation {
  /// Itself.
  public var asFolding: (any FoldingOperation)? { self }
}

extension ResampleOperation {
  /// Itself.
  public var asResample: (any ResampleOperation)? { self }
}

extension WarningOperation {
  /// Itself.
  public var asWarning: (any WarningOperation)? { self }
}

/// An operation that resamples to a target size, which the optimizer can feed from a
/// reduced-size decode.
public protocol ResampleOperation: ImageOperation {
  /// The output size (the input may shrink under it: the operation rescales from whatever it
  /// gets, reading its input tile's `imageSize`).
  var targetSize: Size { get }
  /// False when the user asked for exact full-resolution sampling.
  var allowsShrinkOnLoad: Bool { get }
  /// This operation reading its input decoded at 1/`denominator` of `fullSize` where a side
  /// ends in a partial block (⌈side / d⌉ pixels, the last covering less than `d` stored ones):
  /// it must map positions as on the full-size input (side / d reduced pixels), not stretch
  /// ⌈side / d⌉ pixels over the output.
  func reading(_ fullSize: Size, reducedBy denominator: Int) -> any ResampleOperation
}

/// A source that can decode at reduced sizes (JPEG's DCT scaling, WebP's scaler, PNG's box
/// average while decoding).
public protocol ReducibleSource: SourceOperation {
  /// This source decoded at the strongest reduction whose size is still at least `minimum` on
  /// both sides, or nil when there is none (or the source is reduced already); `blocks` is the
  /// denominator d when the reduced pixels are d × d blocks of the stored image (nil for a
  /// stored pyramid level, an image of its own). Without `allowingPartialBlocks`, only
  /// reductions that divide both sides (or stored levels).
  func reduced(toAtLeast minimum: Size, allowingPartialBlocks: Bool) -> (source: any SourceOperation, blocks: Int?)?
}

/// An operation that only rearranges its one input as a whole, so that running it on a
/// reduced-size input gives its full-size result reduced (orientations): shrink-on-load looks
/// through it.
public protocol ScaleCommutingOperation: ImageOperation {
  /// Whether the output's width is the input's height (and the other way round).
  var swapsAxes: Bool { get }
}

/// A one-input operation that merges with the operation below it into one (two orientations
/// compose into one), and disappears when it changes nothing.
public protocol FoldingOperation: ImageOperation {
  /// One operation equal to applying `inner` and then `self`, or nil when they don't fold.
  func folded(after inner: any ImageOperation) -> (any ImageOperation)?
  /// Whether it leaves its input unchanged.
  var isIdentity: Bool { get }
}

/// A one-input operation whose output can be computed from its input region taken a band of rows at
/// a time, top to bottom (a large reduction: `scale fit=100x100` of a computed 16383² image reads
/// the whole image for its one output tile). The tile evaluator uses it when the region is over
/// `TileEvaluator.largestWholeInput` pixels; the result must equal `render(into:inputs:)` on the
/// whole region, bit for bit, so that tiling never changes a pixel.
protocol BandedInputReader: ImageOperation {
  /// Renders `output` from the input region `input` of an image of `inputImageSize`; `band(rows)`
  /// returns the region's rows `rows` (absolute, within `input`'s rows, asked in increasing order,
  /// at most `bandRows` at a time) as a tile of the region's full width.
  func render(
    into output: inout Tile, input: Rect, inputImageSize: Size, bandRows: Int, band: (Range<Int>) throws -> Tile) throws
}

/// A one-input operation that can compute its output straight from a decoded 8-bit gray or RGB
/// source's stored rows, converting them to its working values where it reads them, instead of
/// receiving a float tile of its whole input region (`ScaleOperation`: a cache-sized strip at a
/// time for its vertical pass). The tile evaluator offers the rows when the input is such a
/// source, sRGB-encoded with no profile to apply, read by this node only; the result must equal
/// `render(into:inputs:)` on the converted tile.
protocol StoredRowsReader: ImageOperation {
  /// Whether this instance reads stored rows (false: it takes float tiles as usual).
  var readsStoredRows: Bool { get }
  /// Renders `output` from the input region `input` of an image of `inputImageSize`: `rows[r]`
  /// is the stored row region row r reads (rows beyond the image are its nearest edge row), at
  /// the source pixel of region column `columns.lowerBound`; region columns outside `columns`
  /// repeat the nearest one inside. `channels` is 1 (gray) or 3 (RGB), codes sRGB-encoded.
  func render(
    into output: inout Tile, rows: [UnsafePointer<UInt8>], columns: Range<Int>, channels: Int, input: Rect,
    inputImageSize: Size) throws
}

/// An operation that can tell, from its inputs' sizes, that its result is not all that was asked
/// (a `smartcrop` window larger than the image, clamped to it). The renderer passes `warning` to
/// its warning handler each time it renders a graph holding the node (with the inputs' final
/// sizes, after analyses), and `explain` prints it beside the node: a result that looks fine but
/// is not what was written is never silent.
public protocol WarningOperation: ImageOperation {
  /// What differs from what was asked, given the inputs, or nil when nothing does.
  func warning(inputs: [ImageInfo]) -> String?
}

/// A geometry operation that can be repeated on another image showing the same picture at another
/// resolution (an Ultra HDR gain map, often a quarter of its base's size): `GainMapBranch` follows
/// the base's geometry with it. Areas the operation paints with its colour are painted with `fill`
/// on the other image (for a gain map: the value meaning "no boost").
public protocol ResolutionMappable: ImageOperation {
  /// This operation for an input of `otherSize` showing the same picture as an input of
  /// `inputSize` does here, or nil when it cannot be repeated so.
  func mapped(from inputSize: Size, to otherSize: Size, fill: Color) -> (any ImageOperation)?
  /// `mapped(from:to:fill:)` where the other image's resolution is `ratio` (per axis) of this one's
  /// overall, its size being that rounded: a resample to an absolute size (`scale`) scales the size
  /// by `ratio`, so a chain that shrinks to a few pixels and back (a large blur's pyramid) ends at
  /// the map's own size, not at a size the few pixels' rounding changed.
  func mapped(from inputSize: Size, to otherSize: Size, ratio: (Double, Double), fill: Color) -> (any ImageOperation)?
  /// False when this instance is not repeated at other resolutions (`mapped` gives nil): a gain map
  /// following its input ends there.
  var repeatsAtOtherResolutions: Bool { get }
  /// True when the operation mixes neighbouring pixels' light (a blur): `mapped` is then the same
  /// filter in its own working space, which a gain map's branch applies to both renditions to make
  /// the map again (HDR/GainMapRerendering.swift) rather than to the map's values.
  var mixesLight: Bool { get }
}

extension ResolutionMappable {
  /// Every instance repeats itself.
  public var repeatsAtOtherResolutions: Bool { true }
  /// Moves pixels.
  public var mixesLight: Bool { false }

  /// The other image's own size says its resolution.
  public func mapped(from inputSize: Size, to otherSize: Size, ratio: (Double, Double), fill: Color) -> (any ImageOperation)? {
    mapped(from: inputSize, to: otherSize, fill: fill)
  }
}

/// An analysed operation whose analysis chooses a window of its input, and which resolves to the
/// crop to that window (`trim`, `smartcrop`): an animation's window is decided once for every
/// frame, and a gain map takes the window its base's analysis chose (GainMapWindow.swift).
public protocol WindowChoosingOperation: AnalysedOperation where Analysis.Result == Rect {}

/// An operation after which a gain map that followed its input is still right, unchanged: the
/// HDR rendition of the output is the output seen through the same boosts (per-pixel colour and
/// tone changes that keep brighter brighter; see HDR/GainMapPolicy.swift).
public protocol GainMapCarrying: ImageOperation {
  /// Whether this instance carries the map (false: the output is SDR).
  var carriesGainMap: Bool { get }
}

/// An operation some of whose instances draw something that is not a picture of the scene's light
/// (an edge map): a gain map following its input ends there, with the reason as the warning says it
/// (HDR/GainMapPolicy.swift).
public protocol GainMapEnding: ImageOperation {
  /// Why this instance's output has no HDR rendition, or nil when its other capabilities decide.
  var gainMapEndsBecause: String? { get }
}

/// An operation that changes only `changedRect` of its first input: its output has input 0's
/// extent, reads input 0's region equal to the output rectangle, and equals input 0 outside
/// `changedRect` (a composite outside its overlay). Output tiles outside the changed rectangles of
/// a chain of them down to a stored source in the output's format are that source's rows copied
/// (`PassThrough`), which the float path would give back unchanged.
protocol RegionalOperation: ImageOperation {
  /// The rectangle, in output coordinates, outside which the output is input 0.
  var changedRect: Rect { get }
  /// Computes the output in place on `tile`, which holds input 0's pixels of the output
  /// rectangle; `others` are the tiles of inputs 1… over their `inputRegion`s (the evaluator then
  /// needs no second tile and no copy of input 0's).
  func change(_ tile: inout Tile, others: [Tile]) throws
}

/// An operation that places its second input, an overlay, on its first, the base (composite): a
/// gain map following the base takes "no boost" where the overlay covers (HDR/GainMapOverlay.swift).
public protocol OverlayingOperation: ImageOperation {
  /// The operation that puts `layer` (made from `overlay`) on a map of `mapSize` following a base
  /// of `baseSize`, so the map is `fill` ("no boost") where the overlay covers, blended by coverage.
  func mapOverlay(of overlay: Image, baseSize: Size, mapSize: Size, fill: Color, mapIsGray: Bool) -> (operation: any ImageOperation, layer: Image)
  /// The same blend repeated on a gain map's `mapSize` for a base of `baseSize` (its placement and
  /// the overlay's size × mapSize/baseSize, rounded), and whether it is a weighted mean of its two
  /// inputs' light, so the blended boosts stay within the two maps' range; nil when the output does
  /// not show the overlay's light (a mask: its values are opacity), whose own gain map then does not
  /// matter. For an overlay that has a gain map of its own (HDR/GainMapBlending.swift).
  func mapBlend(baseSize: Size, mapSize: Size) -> (operation: any ImageOperation, overlaySize: Size, mean: Bool)?
}

/// An operation that removes at least the detail a Gaussian of `lowPassSigma` pixels removes from
/// its one input (a blur): a downscale read only by it, directly or through windows of it, needs
/// no shrink-on-load margin (`Optimizer.shrinkOnLoadUnderLowPass`).
protocol LowPassOperation: ImageOperation {
  /// The standard deviation, in pixels, of a Gaussian that the operation's smoothing at least
  /// matches (0 for none).
  var lowPassSigma: Double { get }
}

/// An operation whose output is a window of its one input, pixel for pixel (a crop).
protocol WindowOperation: ImageOperation {}
