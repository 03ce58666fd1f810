// MemoryBudget.swift — the bytes a batch's files in flight may hold together (`--memory`).
//
// Each file, once its recipe is compiled (the graph, and so its sizes, known; nothing decoded),
// asks for its estimate (`Renderer.estimatedMemory`: its large blurs' held copies, its sources
// decoded whole, the rows its streamed sources hold, and the tiles and bands its analyses and its
// output hold in flight) and waits while the files in flight hold so much that its
// estimate would take them past the limit. A file is never refused: when nothing is in flight it
// starts whatever its estimate, so a file larger than the budget runs alone. Hence, at every
// moment, the estimates of the files in flight sum to at most the limit, or there is one file.
// `--jobs` still caps how many files are open at once.

import Foundation

/// A byte budget shared by the files of a batch; see the file comment.
final class MemoryBudget: @unchecked Sendable {  // every var is only touched under `condition`
  /// The limit in bytes.
  let limit: Int
  private let condition = NSCondition()
  private var held = 0
  private var files = 0
  private var counters = Counters()

  /// What a batch's files did with the budget (`--stats` prints it).
  struct Counters {
    /// The most bytes the files in flight held together.
    var peakBytes = 0
    /// The most files in flight at once.
    var peakFiles = 0
    /// Files that waited for others to finish before starting.
    var waited = 0
  }

  init(limit: Int) { self.limit = max(limit, 0) }

  /// Waits until `bytes` fit beside what the files in flight hold (or none is in flight), then
  /// takes them.
  func acquire(_ bytes: Int) {
    condition.lock()
    defer { condition.unlock() }
    var waited = false
    while files > 0 && (held > limit - bytes || bytes > limit) {
      waited = true
      condition.wait()
    }
    if waited { counters.waited += 1 }
    held = held > Int.max - bytes ? .max : held + bytes
    files += 1
    counters.peakBytes = max(counters.peakBytes, held)
    counters.peakFiles = max(counters.peakFiles, files)
  }

  /// Gives back what `acquire(bytes)` took.
  func release(_ bytes: Int) {
    condition.lock()
    held -= min(bytes, held)
    files -= 1
    if files == 0 { held = 0 }
    condition.broadcast()
    condition.unlock()
  }

  /// The counters so far.
  var statistics: Counters {
    condition.lock()
    defer { condition.unlock() }
    return counters
  }
}
