// TileGrid.swift — how a render's output is cut into bands and tiles, and how big tiles are.
//
// Bands are `tileSize.height` rows; each band is cut into tiles of `tileSize.width` columns
// (the last band and column take what is left). The width is chosen once per render, from the
// regions a tile would read (`Regions`): a strong downscale reads ratio² times its tile's pixels,
// so its tiles narrow until no input region is too large.

import PixelBufferModule

/// The bands and tiles of one render's output.
struct TileGrid: Hashable {
  /// The output's size.
  let size: Size
  /// Tile width and band height.
  let tileSize: Size

  /// How many bands, top to bottom.
  var bandCount: Int { (size.height + tileSize.height - 1) / tileSize.height }
  /// How many tiles make one band.
  var tilesAcross: Int { (size.width + tileSize.width - 1) / tileSize.width }

  /// The rows of band `band`.
  func rows(ofBand band: Int) -> (y: Int, height: Int) {
    let y = band * tileSize.height
    return (y, min(tileSize.height, size.height - y))
  }

  /// Tile `column` of band `band`.
  func tile(_ column: Int, ofBand band: Int) -> Rect {
    let (y, h) = rows(ofBand: band)
    let x = column * tileSize.width
    return Rect(x: x, y: y, width: min(tileSize.width, size.width - x), height: h)
  }
}

extension Renderer {
  /// Bytes of working pixels one tile may ask of any single input, above which tiles narrow.
  static let inputTileByteLimit = 3 << 20

  /// The grid a render of `root` uses (see `tileSize(for:)`).
  func tileGrid(for root: ImageNode) -> TileGrid {
    TileGrid(size: root.info.size, tileSize: tileSize(for: root))
  }

  /// The tile size a render of `root` uses: `options.tileSize`, halved in width (down to 128
  /// columns at most) while some input region of a tile exceeds `inputTileByteLimit` — a strong
  /// downscale reads ratio² times its tile's pixels (W1 at 1/3.75: 8 MB per 512 × 64 tile;
  /// narrowing costs little, the kernels' margins are a small part of such wide regions) — and
  /// then evened out over the width so the last tile is not a sliver. Bands keep their height.
  func tileSize(for root: ImageNode) -> Size {
    let size = root.info.size
    let h = options.tileSize.height
    var w = options.tileSize.width
    guard size.width > 128 else { return options.tileSize }
    while w > 128 && Self.largestInputBytes(root, Rect(x: 0, y: 0, width: min(w, size.width), height: min(h, size.height))) > Self.inputTileByteLimit {
      w = max(128, w / 2)
    }
    if w == options.tileSize.width { return options.tileSize }
    let across = (size.width + w - 1) / w
    return Size(width: (size.width + across - 1) / across, height: h)
  }

  /// The largest input region (in working bytes) any node reads for `rect` of `root`, following
  /// the regions the tiles will read (the first 64 nodes reached only).
  static func largestInputBytes(_ root: ImageNode, _ rect: Rect) -> Int {
    var largest = 0, reached = 1
    Regions.walk(from: root, rect) { _, _, region in
      largest = max(largest, region.width * region.height * MemoryLayout<SIMD4<Float>>.stride)
      reached += 1
      return reached <= 64
    }
    return largest
  }
}
