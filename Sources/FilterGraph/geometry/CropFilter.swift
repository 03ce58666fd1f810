// CropFilter.swift — the `crop` recipe verb (the operation and its definition are in Crop.swift).

import PixelBufferModule

extension GeometryFilters {
  /// `crop size=WxH [gravity=northwest|north|…|southeast] [x=N] [y=N]`: the box of `size` placed
  /// against the side or corner `gravity` names (`Gravity.origin`: centring rounds down), moved by
  /// (x, y), clipped; placed at render time from the input's actual size.
  public static let crop = FilterDefinition(CropOperation.table, reading: CropOperation.Parameters.self) { inputs, p, _ in
    inputs[0].cropped(to: p.size, gravity: p.gravity, x: p.x, y: p.y)
  }
}
