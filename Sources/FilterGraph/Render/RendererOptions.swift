// RendererOptions.swift — the settings a Renderer is made with.

import Foundation
import ImageCodecs

/// Settings of a renderer.
public struct RendererOptions: Hashable, Sendable {
  /// Worker threads (default: one per core).
  public var threads: Int
  /// The tile size work is cut into (default 512 × 64).
  public var tileSize: Size
  /// The decode cache's byte limit (default 1 GiB).
  public var cacheLimitBytes: Int
  /// Rewrites applied before rendering.
  public var optimizer: OptimizerOptions
  /// How many bands of tiles may be in flight ahead of the one being written (default: one per thread and one more).
  public var bandsInFlight: Int?
  /// JPEG sources at least this large once decoded (default 4 MiB) are streamed when the graph
  /// reads them in order: decoded on demand into a window of rows, never held whole (see
  /// `Renderer.streamingWindow`). Such a decode is counted in `DecodeStatistics.streamedDecodes`
  /// and is not cached. Smaller sources, sources already in the cache, and sources the graph
  /// reads out of order (rotations, flips, a source read by two branches) decode fully, once,
  /// through the decode cache. `Int.max` turns streaming off.
  public var streamingMinimumBytes: Int
  /// The most pixels the output or any image inside the graph may have (default 268,402,689 =
  /// 16383², the decoders' default input limit); larger graphs are refused before any decode.
  public var maxPixels: Int = DecodeLimits.defaultMaxPixels

  /// Creates options.
  public init(
    threads: Int = ProcessInfo.processInfo.activeProcessorCount, tileSize: Size = Size(width: 512, height: 64),
    cacheLimitBytes: Int = 1 << 30, optimizer: OptimizerOptions = OptimizerOptions(), bandsInFlight: Int? = nil,
    streamingMinimumBytes: Int = 4 << 20
  ) {
    self.streamingMinimumBytes = streamingMinimumBytes
    self.threads = max(1, threads)
    self.tileSize = Size(width: max(tileSize.width, 8), height: max(tileSize.height, 1))
    self.cacheLimitBytes = cacheLimitBytes
    self.optimizer = optimizer
    self.bandsInFlight = bandsInFlight
  }
}
