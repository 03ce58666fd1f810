// DecodeCache.swift — decode once: decoded sources kept by identity, bounded in bytes (LRU).

import Foundation
import Locking
import PixelBufferModule

/// Counters a renderer's decode cache keeps; read them with `Renderer.statistics`.
public struct DecodeStatistics: Hashable, Sendable {
  /// Full decodes performed.
  public var decodes = 0
  /// Requests answered from the cache.
  public var hits = 0
  /// Bytes of decoded pixels held now.
  public var bytesHeld = 0
  /// Entries evicted to stay under the byte limit.
  public var evictions = 0
  /// Sources decoded in order while rendering, a window of rows at a time, instead of fully
  /// (not counted in `decodes`, never cached; see `RendererOptions.streamingMinimumBytes`).
  public var streamedDecodes = 0
  /// Decodes of only the part of a source a render reads (a crop of a TIFF, whose codec decodes
  /// regions), streamed or not: also counted in `streamedDecodes` or `decodes`.
  public var regionDecodes = 0
  /// The bytes of the largest window of rows a streamed decode held (its ring of decoded rows).
  public var largestStreamedWindowBytes = 0
}

/// Decoded source pixels keyed by the source's identity and decode parameters.
///
/// The same file in two branches, in two renders, or in every image of a batch (a watermark) is
/// decoded once while it fits. Concurrent requests for one key wait for the single decode.
final class DecodeCache: Sendable {
  let byteLimit: Int
  private let state = Monitor(State())

  private struct State {
    var entries: [String: (buffer: PixelBuffer, lastUse: Int)] = [:]
    /// Keys being decoded now: requests for them wait for that decode.
    var inFlight: Set<String> = []
    var clock = 0
    var statistics = DecodeStatistics()

    mutating func evict(to byteLimit: Int) {
      while statistics.bytesHeld > byteLimit, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
        entries.removeValue(forKey: oldest.key)
        statistics.bytesHeld -= oldest.value.buffer.rowBytes * oldest.value.buffer.height
        statistics.evictions += 1
      }
    }
  }

  init(byteLimit: Int) { self.byteLimit = byteLimit }

  /// The pixels for `key`, decoding them with `decode` only if no entry exists. A `decode` that
  /// returns nil (a generated source: nothing to decode) is neither counted nor cached.
  func pixels(for key: String, decode: () throws -> PixelBuffer?) throws -> PixelBuffer? {
    let hit = state.withLock(waitingUntil: { !$0.inFlight.contains(key) }) { state -> PixelBuffer? in
      state.clock += 1
      if let hit = state.entries[key] {
        state.entries[key]!.lastUse = state.clock
        state.statistics.hits += 1
        return hit.buffer
      }
      state.inFlight.insert(key)
      return nil
    }
    if let hit { return hit }
    let result: Result<PixelBuffer?, Error> = Result { try decode() }
    let byteLimit = byteLimit
    return try state.update { state in
      state.inFlight.remove(key)
      guard let buffer = try result.get() else { return nil }
      state.statistics.decodes += 1
      let bytes = buffer.rowBytes * buffer.height
      if bytes <= byteLimit {
        state.entries[key] = (buffer, state.clock)
        state.statistics.bytesHeld += bytes
        state.evict(to: byteLimit)
      }
      return buffer
    }
  }

  /// True when `key` is decoded and held.
  func contains(_ key: String) -> Bool { state.withLock { $0.entries[key] != nil } }

  /// Counts a streamed decode (of a region of its source, or of all of it) holding a window of
  /// `windowBytes`.
  func recordStreamedDecode(region: Bool, windowBytes: Int) {
    state.withLock {
      $0.statistics.streamedDecodes += 1
      $0.statistics.largestStreamedWindowBytes = max($0.statistics.largestStreamedWindowBytes, windowBytes)
      if region { $0.statistics.regionDecodes += 1 }
    }
  }

  /// Counts a decode of a region of its source (`pixels(for:)` counts it as a decode too).
  func recordRegionDecode() { state.withLock { $0.statistics.regionDecodes += 1 } }

  /// Drops the entries whose key starts with `prefix`.
  func remove(prefix: String) {
    state.withLock { state in
      for (key, entry) in state.entries where key.hasPrefix(prefix) {
        state.entries.removeValue(forKey: key)
        state.statistics.bytesHeld -= entry.buffer.rowBytes * entry.buffer.height
      }
    }
  }

  /// Drops every entry.
  func removeAll() {
    state.withLock {
      $0.entries.removeAll()
      $0.statistics.bytesHeld = 0
    }
  }

  /// The counters now.
  func snapshot() -> DecodeStatistics { state.withLock { $0.statistics } }
}
