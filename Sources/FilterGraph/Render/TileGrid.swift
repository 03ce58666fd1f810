// TileGrid.swift — how a render's output is cut into bands and tiles, and how big tiles are.
//
// Bands are `tileSize.height` rows; each band is cut into tiles of `tileSize.width` columns
// (the last band and column take what is left). The size is chosen once per render, from the
// regions a tile would read (`Regions`): a strong downscale reads ratio² times its tile's pixels,
// so its tiles narrow until no input region is too large. An output render narrows only the
// width, down to 128 columns (its bands go to an encoder and keep their height); an analysis's
// render (a held blur's reduction, a view of a few thousand pixels) also lowers the band height
// and then the width, down to one pixel, until no tile pulls more than `inputTileByteLimit` from
// any input — a σ 500 blur's reduction of a 24 MP photo would otherwise pull the whole photo as
// one float tile.

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

  /// The grid a render of `root` uses (see `tileSize(for:bounded:)`).
  func tileGrid(for root: ImageNode, bounded: Bool = false) -> TileGrid {
    TileGrid(size: root.info.size, tileSize: tileSize(for: root, bounded: bounded))
  }

  /// The tile size a render of `root` uses: `options.tileSize`, halved in width (down to 128
  /// columns at most) while some input region of a tile exceeds `inputTileByteLimit` — a strong
  /// downscale reads ratio² times its tile's pixels (W1 at 1/3.75: 8 MB per 512 × 64 tile;
  /// narrowing costs little, the kernels' margins are a small part of such wide regions) — and
  /// then evened out over the width so the last tile is not a sliver. `bounded` (analyses): then
  /// also halved in height, and in width below 128, down to one pixel, until no input region
  /// exceeds the limit; otherwise bands keep their height.
  func tileSize(for root: ImageNode, bounded: Bool = false) -> Size {
    let size = root.info.size
    var h = options.tileSize.height
    var w = options.tileSize.width
    func largest() -> Int {
      Self.largestInputBytes(root, Rect(x: 0, y: 0, width: min(w, size.width), height: min(h, size.height)))
    }
    if size.width > 128 {
      while w > 128 && largest() > Self.inputTileByteLimit { w = max(128, w / 2) }
    }
    if bounded && !size.isEmpty {
      w = min(w, size.width)
      h = min(h, size.height)
      while h > 1 && largest() > Self.inputTileByteLimit { h = max(1, h / 2) }
      while w > 1 && largest() > Self.inputTileByteLimit { w = max(1, w / 2) }
    }
    if w == options.tileSize.width && h == options.tileSize.height { return options.tileSize }
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
