// CompositingFilters.swift — the recipe verbs of the compositing family.
//
// Both verbs take two images. The chain's current image is always the OVERLAY (the top layer,
// the one `opacity` scales); the second image is always the BASE (the bottom layer, whose size
// the output has):
//
//   composite  the second image is named by the `.image` parameter `over=`:
//                output = composite logo over=photo gravity=southeast margin=24 opacity=0.5
//              parameters (CompositeOperation.Parameters): over (image, required), mode,
//              opacity, gravity, margin, x, y, linear.
//   blend      the second image is the second positional image (same size images, centred):
//                glow = blend soft base mode=screen opacity=0.4
//              parameters: mode, opacity, linear (composite's rows: CompositeOperation.BlendParameters).
//
// `apply` receives `inputs = [overlay, base]` in both cases (descriptor.inputCount = 2: the
// chain's image plus one more; for `composite` the recipe compiler resolves `over=` into
// inputs[1]). Swift: `overlay.composited(over: base, …)`.

import PixelBufferModule

/// Recipe verbs: `composite`, `blend`, `flatten`, `mask` and `shadow` (Shadow.swift).
public enum CompositingFilters {
  /// `composite OVERLAY over=BASE [mode=] [opacity=] [gravity=] [margin=] [x=] [y=] [linear=]`.
  public static let composite = FilterDefinition(CompositeOperation.table, reading: CompositeOperation.Parameters.self) { inputs, p, _ in
    // A margin in % is of the base's shorter side, so a watermark sits alike on every photo.
    let margin = p.margin.pixels(of: min(inputs[1].size.width, inputs[1].size.height))
    return inputs[0].composited(
      over: inputs[1], gravity: p.gravity, margin: margin, offset: Point(x: p.x, y: p.y), mode: p.mode, opacity: p.opacity,
      linearLight: p.linear)
  }

  /// `blend OVERLAY BASE [mode=] [opacity=] [linear=]`: the overlay centred on the base.
  public static let blend = FilterDefinition(
    OperationDescriptor(
      name: "blend", category: .compositing,
      summary: "Blends the image onto a second image (the base, given positionally), centred.",
      inputCount: 2, parameters: CompositeOperation.BlendParameters.table, example: "glow = blend soft base mode=screen opacity=0.4"),
    reading: CompositeOperation.BlendParameters.self
  ) { inputs, p, _ in
    inputs[0].composited(over: inputs[1], mode: p.mode, opacity: p.opacity, linearLight: p.linear)
  }

  /// `flatten [color=]` (Flatten.swift).
  public static let flatten = FilterDefinition(FlattenOperation.table, reading: FlattenOperation.Parameters.self) { inputs, p, _ in
    inputs[0].flattened(onto: p.color)
  }

  /// `mask with=NAME [source=luminance|alpha]` (Mask.swift).
  public static let mask = FilterDefinition(MaskOperation.table, reading: MaskOperation.Parameters.self) { inputs, p, _ in
    inputs[0].masked(by: inputs[1], source: p.source)
  }

  /// Every compositing verb.
  public static var all: [FilterDefinition] { [composite, blend, flatten, mask, shadow] }
}
