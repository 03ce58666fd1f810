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
import Locking

/// A byte budget shared by the files of a batch; see the file comment.
final class MemoryBudget: Sendable {
  /// The limit in bytes.
  let limit: Int
  private let state = Monitor(State())

  private struct State {
    var held = 0
    var files = 0
    var counters = Counters()
  }

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
    let limit = limit
    let fits = { (state: State) in state.files == 0 || (state.held <= limit - bytes && bytes <= limit) }
    var looks = 0
    state.withLock(waitingUntil: { looks += 1; return fits($0) }) { state in
      if looks > 1 { state.counters.waited += 1 }
      state.held = state.held > Int.max - bytes ? .max : state.held + bytes
      state.files += 1
      state.counters.peakBytes = max(state.counters.peakBytes, state.held)
      state.counters.peakFiles = max(state.counters.peakFiles, state.files)
    }
  }

  /// Gives back what `acquire(bytes)` took.
  func release(_ bytes: Int) {
    state.update { state in
      state.held -= min(bytes, state.held)
      state.files -= 1
      if state.files == 0 { state.held = 0 }
    }
  }

  /// The counters so far.
  var statistics: Counters { state.withLock { $0.counters } }
}
