// Stats.swift — what `--stats` prints: time per stage, decodes and cache hits, peak memory.

import FilterGraph
import Foundation
#if canImport(Glibc)
  import Glibc
#endif

/// Stage timings collected over a run (a batch adds every file's up).
struct Stats {
  /// Reading, parsing and checking the recipe.
  var recipeSeconds = 0.0
  /// Reading input headers and compiling the recipe into a graph.
  var headerSeconds = 0.0
  /// Decoding, rendering, encoding and writing.
  var renderSeconds = 0.0
  /// The start of the run.
  let start = Stats.now()

  /// Adds a job's timings.
  mutating func add(_ timings: RenderTimings) {
    headerSeconds += timings.readSeconds + timings.buildSeconds
    renderSeconds += timings.renderSeconds
  }

  /// Adds the stage times of `other` (a batch's files).
  mutating func add(_ other: Stats) {
    headerSeconds += other.headerSeconds
    renderSeconds += other.renderSeconds
  }

  /// Seconds on a monotonic clock.
  static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

  /// Runs `body` and adds its duration to the stage `keyPath`.
  mutating func time<T>(_ keyPath: WritableKeyPath<Stats, Double>, _ body: () throws -> T) rethrows -> T {
    let t0 = Stats.now()
    defer { self[keyPath: keyPath] += Stats.now() - t0 }
    return try body()
  }

  /// The peak resident set size in bytes (getrusage's ru_maxrss).
  static var peakMemoryBytes: Int {
    var usage = rusage()
    #if os(Linux)
      getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
      getrusage(RUSAGE_SELF, &usage)
    #endif
    return Int(usage.ru_maxrss) * 1024  // kilobytes on Linux
  }

  /// Prints the report to standard error; a batch's with what its files did with `budget`.
  func report(renderer: Renderer, budget: MemoryBudget? = nil) {
    func ms(_ s: Double) -> String { String(format: "%.1f ms", s * 1000) }
    func mb(_ b: Int) -> String { String(format: "%.1f MB", Double(b) / 1_048_576) }
    let cache = renderer.statistics
    Console.error(
      "fgrun: stats: recipe \(ms(recipeSeconds)), header+compile \(ms(headerSeconds)), "
        + "decode+render+encode+write \(ms(renderSeconds)), total \(ms(Stats.now() - start))")
    Console.error(
      "fgrun: stats: decodes \(cache.decodes), cache hits \(cache.hits), cache holds \(mb(cache.bytesHeld)), "
        + "streamed decodes \(cache.streamedDecodes), colour transforms built \(ColorStatistics.transformsBuilt), "
        + "threads \(renderer.options.threads), peak memory \(mb(Stats.peakMemoryBytes)) (ru_maxrss)")
    if let budget {
      let used = budget.statistics
      Console.error(
        "fgrun: stats: memory budget \(mb(budget.limit)): at most \(used.peakFiles) files in flight, "
          + "holding \(mb(used.peakBytes)) by estimate; \(used.waited) files waited for it")
    }
    let analyses = renderer.analysisStatistics
    if analyses.computed + analyses.reused > 0 {
      Console.error(
        "fgrun: stats: analyses computed \(analyses.computed) in \(ms(analyses.seconds)), reused \(analyses.reused)"
          + analyses.timings.map { "; \($0)" }.joined())
    }
  }
}
