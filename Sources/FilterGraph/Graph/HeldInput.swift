// HeldInput.swift — an operation whose input is computed whole, once per render, and read from memory.
//
// Definition: held(op)(I) = op(I). Only the schedule differs. An ordinary node is computed tile by
// tile, and each output tile pulls from its input exactly the region the operation names; when
// that region is large compared with the tile — an upscale by k reads a 1/k-sized region, but
// everything below it (a blur's reach, a box reduction's k × k blocks) is recomputed for every
// output tile that overlaps it — the same input pixels are computed many times over. Holding the
// input computes each of its pixels once: the renderer evaluates the whole input before the
// first tile, as an analysis (`HeldPixelsAnalysis`: every tile of the input copied into one float
// buffer), and replaces the node by `op` reading that buffer (`HeldPixelsSource`).
//
// The cost is the input's pixels in memory as premultiplied float RGBA (16 bytes a pixel) for the
// length of the render; the renderer keeps such results across renders only within
// `AnalysisCache`'s byte limit. Used where the input is a reduced image (GaussianBlurPyramid.swift),
// for the row pass of a blur of large reach (HeldColumnPass.swift: its column pass, a
// `HeldPixelsReader`, reads the held rows in place instead of a copied tile of its region), and by
// the renderer for the small computed input of an analysed operation, which its analysis
// and the operation would otherwise each compute (Renderer.heldInputSpace).

import ImageCodecs
import PixelBufferModule

/// `operation` applied to its (only) input computed whole beforehand; see the file comment.
struct HeldInputOperation: AnalysedOperation {
  /// What is computed from the held input.
  let operation: any ImageOperation

  /// The wrapped operation's table: the node reads as the operation it is.
  var descriptor: OperationDescriptor { operation.descriptor }
  var arguments: Arguments { operation.arguments }
  var workingSpace: WorkingSpace? { operation.workingSpace }

  func outputInfo(inputs: [ImageInfo]) -> ImageInfo { operation.outputInfo(inputs: inputs) }

  func inputRegion(for output: Rect, input index: Int, inputs: [ImageInfo]) -> Rect {
    operation.inputRegion(for: output, input: index, inputs: inputs)
  }

  /// The input's pixels in the space the operation reads.
  var analysis: HeldPixelsAnalysis { HeldPixelsAnalysis(workingSpace: operation.workingSpace ?? .linear) }

  func resolved(with result: PixelBuffer, input: ImageInfo) -> any ImageOperation { operation }

  /// The operation reading the held pixels instead of `input`: in place when it is a
  /// `HeldPixelsReader`, else as a source of tiles of them.
  func resolvedNode(with result: PixelBuffer, inputs: [ImageNode]) -> ImageNode {
    let space = analysis.workingSpace
    if let reader = operation as? any HeldPixelsReader {
      let identity = "\(operation.descriptor.name) \(operation.arguments.description) of held \(space.rawValue) of \(inputs[0].structuralKey)"
      return ImageNode(operation: reader.reading(held: result, of: inputs[0], identity: identity), inputs: [])
    }
    return ImageNode(operation: operation, inputs: [HeldPixelsAnalysis.source(holding: result, of: inputs[0], space: space)])
  }
}

/// An operation that, given its input held whole, computes its tiles from the held buffer in
/// place (no tile of its input region copied out of it).
protocol HeldPixelsReader: ImageOperation {
  /// The source that computes this operation from `pixels`, the pixels of `input` held in this
  /// operation's working space; `identity` names them for keys.
  func reading(held pixels: PixelBuffer, of input: ImageNode, identity: String) -> any SourceOperation
}

/// Every pixel of an image, copied tile by tile into one premultiplied float buffer in
/// `workingSpace` (tagged linear sRGB or sRGB accordingly).
struct HeldPixelsAnalysis: ImageAnalysis {
  /// The encoding the pixels are held in.
  let workingSpace: WorkingSpace
  /// The buffer the tiles are copied into, allocated by `prepared`.
  private var target: PixelBuffer?

  init(workingSpace: WorkingSpace) { self.workingSpace = workingSpace }

  var label: String { "the whole input held in memory (\(workingSpace.rawValue))" }
  var view: AnalysisView { .fullSize }

  /// Allocates the buffer; memory the system refuses is `CodecError.tooLarge`.
  func prepared(reading read: (Rect) throws -> Tile, viewSize: Size) throws -> HeldPixelsAnalysis {
    var ready = self
    do {
      ready.target = try PixelBuffer.allocate(
        width: viewSize.width, height: viewSize.height, format: .rgbaFloatPremultiplied,
        colorSpace: workingSpace == .linear ? .linearSRGB : .sRGB)
    } catch {
      throw CodecError(
        .tooLarge, "There is not enough memory to hold a \(viewSize.width)×\(viewSize.height) intermediate image (\(error.amount) could not be allocated).")
    }
    return ready
  }

  /// Copies the tile into its place in the buffer (tiles are disjoint, so workers never write the
  /// same bytes) and counts its pixels.
  func partial(of tile: Tile, viewSize: Size) -> Int {
    guard let target else { return 0 }
    let rowLength = tile.rect.width * MemoryLayout<SIMD4<Float>>.stride
    target.withUnsafeBaseAddress { base, rowBytes in
      let origin = UnsafeMutableRawPointer(mutating: base) + tile.rect.y * rowBytes + tile.rect.x * MemoryLayout<SIMD4<Float>>.stride
      tile.withPixels { px in
        for y in 0..<px.height { (origin + y * rowBytes).copyMemory(from: px[row: y], byteCount: rowLength) }
      }
    }
    return tile.rect.width * tile.rect.height
  }

  func merged(_ first: Int, _ second: Int) -> Int { first + second }

  func result(_ partial: Int, viewSize: Size, imageSize: Size) -> PixelBuffer {
    assert(partial == viewSize.width * viewSize.height, "every pixel of the held image is written once")
    return target!
  }

  func retainedBytes(of result: PixelBuffer) -> Int { result.rowBytes * result.height }

  /// A source node of `pixels`, the pixels of `node` held in `space`.
  static func source(holding pixels: PixelBuffer, of node: ImageNode, space: WorkingSpace) -> ImageNode {
    let identity = "held \(space.rawValue) of \(node.structuralKey)"
    return ImageNode(operation: HeldPixelsSource(buffer: pixels, info: node.info, identity: identity), inputs: [])
  }
}
