// Batch.swift — what a batch shows while it runs: a progress bar on a terminal, plain lines
// otherwise, every failure in full, and a summary at the end.

import Foundation

/// Progress of a batch. On a terminal a one-line bar is redrawn on standard error; otherwise one
/// line per finished file goes to standard output. Failures always go to standard error.
final class BatchProgress {
  /// Files in the batch.
  let total: Int
  /// True to draw a bar.
  let terminal: Bool
  /// Files written.
  private(set) var successes = 0
  /// Files that failed.
  private(set) var failures = 0

  init(total: Int, terminal: Bool) {
    self.total = total
    self.terminal = terminal
  }

  private var done: Int { successes + failures }

  /// A file starts.
  func begin(_ path: String) {
    if terminal { drawBar(current: path) }
  }

  /// A file was written.
  func succeeded(_ path: String, output: String, seconds: Double) {
    successes += 1
    if terminal {
      drawBar(current: nil)
    } else {
      Console.out(String(format: "[%d/%d] ok %@ -> %@ (%.0f ms)", done, total, path, output, seconds * 1000))
    }
  }

  /// A file failed; the batch goes on.
  func failed(_ path: String, _ failure: Failure) {
    failures += 1
    if terminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    if failure.isDiagnostic {
      Console.error("fgrun: error: \(path): the recipe failed:\n\(failure.message)")
    } else {
      Console.error("fgrun: error: \(path): \(failure.message)")
    }
    if terminal { drawBar(current: nil) }
  }

  /// The closing line: counts and time.
  func summary(seconds: Double) {
    if terminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    let line = String(
      format: "%d %@: %d ok, %d failed in %.2f s", total, total == 1 ? "file" : "files", successes, failures, seconds)
    Console.out(line)
  }

  private func drawBar(current: String?) {
    let width = 30
    let filled = total == 0 ? width : done * width / total
    let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
    var line = "\r\u{1B}[K[\(bar)] \(done)/\(total)"
    if failures > 0 { line += " (\(failures) failed)" }
    if let current { line += " " + (current.count > 40 ? "…" + current.suffix(39) : current) }
    FileHandle.standardError.write(Data(line.utf8))
  }
}
