// DecodeCache.swift — decode once: decoded sources kept by identity, bounded in bytes (LRU).

import Foundation
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
final class DecodeCache: @unchecked Sendable {  // every var is only touched under `lock`
  let byteLimit: Int
  private let lock = NSCondition()
  private var entries: [String: (buffer: PixelBuffer, lastUse: Int)] = [:]
  private var inFlight: Set<String> = []
  private var clock = 0
  private(set) var statistics = DecodeStatistics()

  init(byteLimit: Int) { self.byteLimit = byteLimit }

  /// The pixels for `key`, decoding them with `decode` only if no entry exists. A `decode` that
  /// returns nil (a generated source: nothing to decode) is neither counted nor cached.
  func pixels(for key: String, decode: () throws -> PixelBuffer?) throws -> PixelBuffer? {
    lock.lock()
    while inFlight.contains(key) { lock.wait() }
    clock += 1
    if let hit = entries[key] {
      entries[key]!.lastUse = clock
      statistics.hits += 1
      lock.unlock()
      return hit.buffer
    }
    inFlight.insert(key)
    lock.unlock()
    let result: Result<PixelBuffer?, Error> = Result { try decode() }
    lock.lock()
    inFlight.remove(key)
    defer {
      lock.broadcast()
      lock.unlock()
    }
    guard let buffer = try result.get() else { return nil }
    statistics.decodes += 1
    let bytes = buffer.rowBytes * buffer.height
    if bytes <= byteLimit {
      entries[key] = (buffer, clock)
      statistics.bytesHeld += bytes
      evict()
    }
    return buffer
  }

  private func evict() {
    while statistics.bytesHeld > byteLimit, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
      entries.removeValue(forKey: oldest.key)
      statistics.bytesHeld -= oldest.value.buffer.rowBytes * oldest.value.buffer.height
      statistics.evictions += 1
    }
  }

  /// True when `key` is decoded and held.
  func contains(_ key: String) -> Bool {
    lock.lock()
    defer { lock.unlock() }
    return entries[key] != nil
  }

  /// Counts a streamed decode (of a region of its source, or of all of it) holding a window of
  /// `windowBytes`.
  func recordStreamedDecode(region: Bool, windowBytes: Int) {
    lock.lock()
    statistics.streamedDecodes += 1
    statistics.largestStreamedWindowBytes = max(statistics.largestStreamedWindowBytes, windowBytes)
    if region { statistics.regionDecodes += 1 }
    lock.unlock()
  }

  /// Counts a decode of a region of its source (`pixels(for:)` counts it as a decode too).
  func recordRegionDecode() {
    lock.lock()
    statistics.regionDecodes += 1
    lock.unlock()
  }

  /// Drops the entries whose key starts with `prefix`.
  func remove(prefix: String) {
    lock.lock()
    for (key, entry) in entries where key.hasPrefix(prefix) {
      entries.removeValue(forKey: key)
      statistics.bytesHeld -= entry.buffer.rowBytes * entry.buffer.height
    }
    lock.unlock()
  }

  /// Drops every entry.
  func removeAll() {
    lock.lock()
    entries.removeAll()
    statistics.bytesHeld = 0
    lock.unlock()
  }

  func snapshot() -> DecodeStatistics {
    lock.lock()
    defer { lock.unlock() }
    return statistics
  }
}
