// Batch.swift — what a batch shows while it runs: a progress bar on a terminal (files done, files/s,
// ETA, failures), plain lines otherwise, every failure and warning in full, and a summary at the end.
//
// On a terminal the bar is the last line of standard error: a warning or a failure clears it,
// prints its own line and draws it again below, so no message is ever glued to the bar. The bar
// fits the terminal's width (read again at every draw, so a resized window is followed): the file
// name goes first, then the bar narrows, so the line never wraps. Ctrl-C (SIGINT) ends the batch
// with the summary so far and a note to rerun with --resume; the files in flight are unnamed
// until complete (`OutputFile`), so the kernel discards them with the process.

import CProcess
import FilterGraph
import Foundation
import Locking

#if canImport(Glibc)
  import Glibc
#endif

/// Progress of a batch, updated from any thread. On a terminal a one-line bar is redrawn on
/// standard error; otherwise one line per finished file goes to standard output. Failures and
/// warnings always go to standard error.
final class BatchProgress: Sendable {
  /// Files in the batch, when known (a manifest read from a pipe given by its path is not counted ahead).
  let total: Int?
  /// True to draw a bar.
  let terminal: Bool
  private let tally: Locked<Tally>

  /// `countsSkipped`: name skipped files in the summary (--resume).
  init(total: Int?, terminal: Bool, countsSkipped: Bool) {
    self.total = total
    self.terminal = terminal
    tally = Locked(Tally(total: total, terminal: terminal, countsSkipped: countsSkipped))
  }

  /// Files that failed.
  var failures: Int { tally.withLock { $0.failed } }

  /// A file starts.
  func begin(_ path: String) {
    guard terminal else { return }
    tally.withLock { $0.drawBar(current: path) }
  }

  /// A warning, on its own line above the bar.
  func warning(_ message: String) {
    tally.withLock {
      $0.clearBar()
      Console.error("fgrun: warning: \(message)")
      if terminal { $0.drawBar(current: nil, force: true) }
    }
  }

  /// A file finished: written, skipped or failed.
  func finished(_ outcome: BatchOutcome) {
    tally.withLock { tally in
      switch outcome.status {
      case .ok: tally.successes += 1
      case .skipped: tally.skipped += 1
      case .failed: tally.failed += 1
      }
      if outcome.status != .failed {
        if outcome.damaged { tally.damaged += 1 } else if !outcome.warnings.isEmpty { tally.warned += 1 }
      }
      if let failure = outcome.failure {
        tally.clearBar()
        if failure.isDiagnostic {
          Console.error("fgrun: error: \(outcome.input): the recipe failed:\n\(failure.message)")
        } else {
          Console.error("fgrun: error: \(outcome.input): \(failure.message)")
        }
      }
      if terminal {
        tally.drawBar(current: nil, force: outcome.failure != nil)
      } else if outcome.status != .failed {
        let note = outcome.damaged ? " (damaged)" : outcome.warnings.isEmpty ? "" : " (\(Self.count(outcome.warnings.count, "warning")))"
        Console.out(
          String(
            format: "[%d/%@] %@%@ %@ -> %@ (%.0f ms)", tally.done, tally.totalText, outcome.status.rawValue, note, outcome.input,
            outcome.output ?? "-", outcome.milliseconds))
      }
    }
  }

  /// The closing line: counts and time (`198 files: 197 ok (1 damaged), 1 failed in 3.20 s`).
  func summary() {
    tally.withLock { $0.printSummary() }
  }

  /// From now on Ctrl-C prints the summary so far and ends the process with status 130. A thread
  /// of its own waits for the signal (a signal handler may take no lock, and libdispatch's signal
  /// sources need a thread libdispatch may wait for forever); where the system refuses that
  /// thread, Ctrl-C ends the process as it would anyway, without the summary.
  func endOnInterrupt() {
    let pipe = fg_signal_pipe(SIGINT)
    guard pipe >= 0 else { return }
    let started = SystemThread.start(named: "fgrun interrupt") { [tally, total] in
      var byte: UInt8 = 0
      while read(pipe, &byte, 1) != 1 {
        if errno != EINTR {
          signal(SIGINT, SIG_DFL)
          return
        }
      }
      tally.withLock {  // held to the end: no file reports after the summary
        $0.printSummary()
        let left = total.map { " of \($0)" } ?? ""
        Console.error("fgrun: interrupted after \($0.done)\(left) files; rerun with --resume to finish (finished outputs are kept).")
        _exit(130)
      }
    }
    if !started {
      signal(SIGINT, SIG_DFL)
      close(pipe)
    }
  }

  /// The counts and the bar's state, changed only under the lock.
  private struct Tally {
    let total: Int?
    let terminal: Bool
    let countsSkipped: Bool
    let start = Stats.now()
    var successes = 0
    var skipped = 0
    var failed = 0
    /// Written or skipped files whose input is damaged, and those with other warnings only.
    var damaged = 0
    var warned = 0
    var lastDraw = 0.0
    var barShown = false

    var done: Int { successes + skipped + failed }
    var totalText: String { total.map(String.init) ?? "?" }

    mutating func printSummary() {
      clearBar()
      let seconds = Stats.now() - start
      let files = done == 1 ? "file" : "files"
      var notes: [String] = []
      if damaged > 0 { notes.append("\(damaged) damaged") }
      if warned > 0 { notes.append("\(warned) with warnings") }
      let noteText = notes.isEmpty ? "" : " (" + notes.joined(separator: ", ") + ")"
      let skippedText = countsSkipped ? String(format: " %d skipped,", skipped) : ""
      Console.out(
        String(format: "%d %@: %d ok%@,%@ %d failed in %.2f s", done, files, successes, noteText, skippedText, failed, seconds))
    }

    /// Erases the bar, when one is shown, so the next line starts at the left margin.
    mutating func clearBar() {
      guard barShown else { return }
      Console.errorWithoutNewline("\r\u{1B}[K")
      barShown = false
    }

    /// Redraws the bar, at most ten times a second unless `force`.
    mutating func drawBar(current: String?, force: Bool = false) {
      let now = Stats.now()
      guard force || now - lastDraw >= 0.1 || (total != nil && done == total) else { return }
      lastDraw = now
      let elapsed = max(now - start, 1e-9)
      let rate = Double(done) / elapsed
      var counts = "\(done)/\(totalText)" + String(format: " %.1f files/s", rate)
      if let total, rate > 0, done < total { counts += " ETA " + BatchProgress.duration(Double(total - done) / rate) }
      if failed > 0 { counts += " (\(failed) failed)" }
      if damaged > 0 { counts += " (\(damaged) damaged)" }
      Console.errorWithoutNewline(
        "\r\u{1B}[K" + BatchProgress.barLine(counts: counts, current: current, total: total, done: done, columns: Console.errorColumns))
      barShown = true
    }
  }

  /// `1 warning`, `2 warnings`.
  private static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

  /// The bar's text within `columns` − 1 characters (the last column is left free: writing it
  /// makes some terminals wrap): the current file's name goes first, then the bar narrows from 30
  /// to 10 marks, then the text is cut.
  static func barLine(counts: String, current: String?, total: Int?, done: Int, columns: Int) -> String {
    let room = max(columns - 1, 1)
    func bar(_ width: Int) -> String {
      guard let total, width > 0 else { return "" }
      let filled = total == 0 ? width : min(width, done * width / total)
      return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] "
    }
    let name = current.map { " " + ($0.count > 40 ? "…" + $0.suffix(39) : $0) } ?? ""
    var width = 30
    if bar(width).count + counts.count + name.count <= room { return bar(width) + counts + name }
    width = max(10, room - counts.count - 3)
    let line = bar(min(width, 30)) + counts
    if line.count <= room { return line }
    return String(counts.prefix(room))
  }

  /// `1h02m`, `3m05s`, `42s`.
  static func duration(_ seconds: Double) -> String {
    let s = Int(seconds.rounded())
    if s >= 3600 { return String(format: "%dh%02dm", s / 3600, s % 3600 / 60) }
    if s >= 60 { return String(format: "%dm%02ds", s / 60, s % 60) }
    return "\(s)s"
  }
}

/// Where the renderer's warnings go: standard error, or above a batch's bar once one is shown.
final class WarningRelay: Sendable {
  private let progress = Locked<BatchProgress?>(nil)

  /// Sends later warnings through `progress`.
  func attach(_ progress: BatchProgress) { self.progress.withLock { $0 = progress } }

  /// Prints `message` as a warning.
  func warn(_ message: String) {
    if let progress = progress.withLock({ $0 }) {
      progress.warning(message)
    } else {
      Console.error("fgrun: warning: \(message)")
    }
  }
}
