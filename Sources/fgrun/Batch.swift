// Batch.swift — what a batch shows while it runs: a progress bar on a terminal (files done, files/s,
// ETA, failures), plain lines otherwise, every failure in full, and a summary at the end.

import Foundation

/// Progress of a batch, updated from any thread. On a terminal a one-line bar is redrawn on
/// standard error; otherwise one line per finished file goes to standard output. Failures always
/// go to standard error.
final class BatchProgress: @unchecked Sendable {
  /// Files in the batch, when known (a manifest on standard input is not counted ahead).
  let total: Int?
  /// True to draw a bar.
  let terminal: Bool
  /// True to name skipped files in the summary (--resume).
  let countsSkipped: Bool
  private let lock = NSLock()
  private let start = Stats.now()
  private var successes = 0
  private var skipped = 0
  private var failed = 0
  private var lastDraw = 0.0

  init(total: Int?, terminal: Bool, countsSkipped: Bool) {
    self.total = total
    self.terminal = terminal
    self.countsSkipped = countsSkipped
  }

  /// Files that failed.
  var failures: Int { lock.withLock { failed } }

  private var done: Int { successes + skipped + failed }
  private var totalText: String { total.map(String.init) ?? "?" }

  /// A file starts.
  func begin(_ path: String) {
    guard terminal else { return }
    lock.withLock { drawBar(current: path) }
  }

  /// A file finished: written, skipped or failed.
  func finished(_ outcome: BatchOutcome) {
    lock.withLock {
      switch outcome.status {
      case .ok: successes += 1
      case .skipped: skipped += 1
      case .failed: failed += 1
      }
      if let failure = outcome.failure {
        if terminal { Console.errorWithoutNewline("\r\u{1B}[K") }
        if failure.isDiagnostic {
          Console.error("fgrun: error: \(outcome.input): the recipe failed:\n\(failure.message)")
        } else {
          Console.error("fgrun: error: \(outcome.input): \(failure.message)")
        }
      }
      if terminal {
        drawBar(current: nil, force: outcome.failure != nil)
      } else if outcome.status != .failed {
        Console.out(
          String(
            format: "[%d/%@] %@ %@ -> %@ (%.0f ms)", done, totalText, outcome.status.rawValue, outcome.input,
            outcome.output ?? "-", outcome.milliseconds))
      }
    }
  }

  /// The closing line: counts and time.
  func summary() {
    lock.withLock {
      if terminal { Console.errorWithoutNewline("\r\u{1B}[K") }
      let seconds = Stats.now() - start
      let files = done == 1 ? "file" : "files"
      let skippedText = countsSkipped ? String(format: " %d skipped,", skipped) : ""
      Console.out(String(format: "%d %@: %d ok,%@ %d failed in %.2f s", done, files, successes, skippedText, failed, seconds))
    }
  }

  /// Redraws the bar, at most ten times a second unless `force`.
  private func drawBar(current: String?, force: Bool = false) {
    let now = Stats.now()
    guard force || now - lastDraw >= 0.1 || (total != nil && done == total) else { return }
    lastDraw = now
    let elapsed = max(now - start, 1e-9)
    let rate = Double(done) / elapsed
    let width = 30
    var line = "\r\u{1B}[K"
    if let total {
      let filled = total == 0 ? width : min(width, done * width / total)
      line += "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] "
    }
    line += "\(done)/\(totalText)" + String(format: " %.1f files/s", rate)
    if let total, rate > 0, done < total { line += " ETA " + Self.duration(Double(total - done) / rate) }
    if failed > 0 { line += " (\(failed) failed)" }
    if let current { line += " " + (current.count > 40 ? "…" + current.suffix(39) : current) }
    Console.errorWithoutNewline(line)
  }

  /// `1h02m`, `3m05s`, `42s`.
  static func duration(_ seconds: Double) -> String {
    let s = Int(seconds.rounded())
    if s >= 3600 { return String(format: "%dh%02dm", s / 3600, s % 3600 / 60) }
    if s >= 60 { return String(format: "%dm%02ds", s / 60, s % 60) }
    return "\(s)s"
  }
}
