// GainMapWindow.swift — a gain map taking the window its base's analysis chose (`trim`, `smartcrop`).
//
// Definition: for a window-choosing operation W (WindowChoosingOperation) on a base B of size S_B
// whose map M has size S_M, the map's output is
//
//   crop(M, R · S_M / S_B)   with R = the window W's analysis chooses on B,
//
// resampled where its edges fall between map pixels, as a plain crop's map is
// (CropOperation.repeated). The node reads two inputs, B (analysed, never rendered) and M (cropped); it resolves
// like W itself, before the tiles: the analysis is W's own of the same input, so the renderer's
// analysis cache computes it once for the base and its map. Deciding the window again on the map
// would not do: the map's picture is not the base's (a trim's border may be boosted or not, a
// smartcrop's interest is in the colours), and its quarter resolution would move the window.
import PixelBufferModule

/// A gain map (input 1) cropped to the window `window` chooses on its base (input 0).
struct GainMapWindowOperation<Window: WindowChoosingOperation>: AnalysedOperation {
  /// The base's window-choosing operation.
  let window: Window
  /// The map value meaning "no boost" (what a resampled window blends in beyond the map's edges).
  let fill: Color

  /// The base operation's table and arguments: the node reads as the step it repeats.
  var descriptor: OperationDescriptor { window.descriptor }
  var arguments: Arguments { window.arguments }
  var workingSpace: WorkingSpace? { nil }

  /// The map's size scaled as the base's provisional result is (the input's size for `trim`, the
  /// window for `smartcrop`), until the analysis gives the final one.
  func outputInfo(inputs: [ImageInfo]) -> ImageInfo {
    let base = inputs[0].size, map = inputs[1].size
    let provisional = window.outputInfo(inputs: [inputs[0]]).size
    let (rx, ry) = ResolutionRatio.of(map, base)
    var info = inputs[1]
    info.size = Size(
      width: min(map.width, max(1, Int((Double(provisional.width) * rx).rounded(.up)))),
      height: min(map.height, max(1, Int((Double(provisional.height) * ry).rounded(.up)))))
    return info
  }

  var analysis: Window.Analysis { window.analysis }

  func resolved(with result: Rect, input: ImageInfo) -> any ImageOperation { window.resolved(with: result, input: input) }

  /// The map cropped to the window chosen on the base.
  func resolvedNode(with result: Rect, inputs: [ImageNode]) -> ImageNode {
    let crop = CropOperation(region: result).repeated(from: inputs[0].info.size, to: inputs[1].info.size, fill: fill)
    return ImageNode(operation: crop, inputs: [inputs[1]])
  }
}

extension GainMapWindowOperation {
  /// The node cropping `map` to the window `window` chooses on `base`.
  static func node(_ window: Window, base: ImageNode, map: ImageNode, fill: Color) -> ImageNode {
    ImageNode(operation: GainMapWindowOperation(window: window, fill: fill), inputs: [base, map])
  }
}
