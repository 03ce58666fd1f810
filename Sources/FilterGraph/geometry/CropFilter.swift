// CropFilter.swift — the `crop` recipe verb (the operation and its definition are in Crop.swift).

import PixelBufferModule

extension GeometryFilters {
  /// `crop size=WxH [gravity=northwest|north|…|southeast] [x=N] [y=N]`: the box of `size` placed
  /// against the side or corner `gravity` names (`Gravity.origin`: centring rounds down), moved by
  /// (x, y), clipped.
  public static let crop = FilterDefinition(CropOperation.table) { inputs, args, _ in
    let image = inputs[0]
    let box = args[CropOperation.size]
    let anchor = args[CropOperation.gravity].origin(of: box, in: image.size)
    let region = Rect(x: anchor.x + args[CropOperation.x], y: anchor.y + args[CropOperation.y], width: box.width, height: box.height)
    return image.cropped(to: region)
  }
}
