// CropFilter.swift — the `crop` recipe verb (the operation and its definition are in Crop.swift).

import PixelBufferModule

extension GeometryFilters {
  /// `crop size=WxH [gravity=northwest|north|…|southeast] [x=N] [y=N]`: the box of `size` placed
  /// against the side or corner `gravity` names (centring rounds down), moved by (x, y), clipped.
  public static let crop = FilterDefinition(CropOperation.table) { inputs, args, _ in
    let image = inputs[0]
    guard let box = args.size("size") else {
      throw FilterError("crop needs a size: write 'crop size=WIDTHxHEIGHT' (optionally with gravity=, x=, y=).")
    }
    let anchor = cropAnchor(of: box, in: image.size, gravity: args.choice("gravity"))
    let region = Rect(x: anchor.x + args.integer("x"), y: anchor.y + args.integer("y"), width: box.width, height: box.height)
    return image.cropped(to: region)
  }

  /// The top-left corner of a `box` placed against the side or corner `gravity` names inside
  /// `size` (centred on the axes it does not name, rounding towards −∞).
  static func cropAnchor(of box: Size, in size: Size, gravity: String) -> Point {
    func centred(_ free: Int) -> Int { free >= 0 ? free / 2 : -((-free + 1) / 2) }
    let freeX = size.width - box.width, freeY = size.height - box.height
    let x = gravity.hasSuffix("west") ? 0 : gravity.hasSuffix("east") ? freeX : centred(freeX)
    let y = gravity.hasPrefix("north") ? 0 : gravity.hasPrefix("south") ? freeY : centred(freeY)
    return Point(x: x, y: y)
  }
}
