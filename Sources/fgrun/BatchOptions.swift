// BatchOptions.swift — the options of a batch: where its list comes from, which part of it this
// process does, and how files run and are reported.

import ArgumentParser

/// `--manifest`, `--shard`, `--resume`, `--report`, `--jobs`, `--memory`, `--timeout`.
struct BatchOptions: ParsableArguments {
  /// Files in flight when `--jobs` is not given (see docs/Batches.md for the measurement).
  static let defaultJobs = 2
  /// The budget of the files in flight, in MiB, when `--memory` is not given.
  static let defaultMemoryMiB = 1024

  @Option(help: ArgumentHelp(
    "Read the inputs from FILE ('-': standard input), one a line: INPUT, or INPUT<TAB>OUTPUT (INPUT-only lines need -o DIR).",
    valueName: "file"))
  var manifest: String?

  @Option(help: ArgumentHelp(
    "Do only shard K of N (1-based): the inputs whose hash of the path, modulo N, is K-1. The N shards are disjoint and cover the list.",
    valueName: "K/N"),
    transform: { try Shard(parsing: $0) })
  var shard: Shard?

  @Flag(help: "Skip an input whose output exists and is newer than the input and the recipe file.")
  var resume = false

  @Option(help: ArgumentHelp(
    "Append one JSON line per input to FILE as it finishes (input, output, status, error, class, exit, ms, sizes).",
    valueName: "file"))
  var report: String?

  // The numeric options take their value unconditionally, so `--memory -1` is refused by
  // `validate` with its rule instead of read as a missing value and an unknown option.
  @Option(parsing: .unconditional, help: ArgumentHelp("Files rendering at once on the one worker pool (default \(BatchOptions.defaultJobs)); one more may be open, being read or flushed to disk.", valueName: "n"))
  var jobs: Int?

  @Option(parsing: .unconditional, help: ArgumentHelp(
    "MiB the files in flight may hold together by estimate (default \(BatchOptions.defaultMemoryMiB)); a file that would exceed it waits for others to finish, and one larger than it runs alone.",
    valueName: "MiB"))
  var memory: Int?

  @Option(parsing: .unconditional, help: ArgumentHelp("Fail a file that takes longer than this many seconds; the batch goes on.", valueName: "seconds"))
  var timeout: Double?

  /// True when any batch option was given.
  var isUsed: Bool { manifest != nil || shard != nil || resume || report != nil || jobs != nil || memory != nil || timeout != nil }

  func validate() throws {
    if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1.") }
    if let memory, memory < 1 || memory > Int.max >> 20 { throw ValidationError("--memory must be a number of MiB of at least 1.") }
    if let timeout, !(timeout > 0) { throw ValidationError("--timeout must be a number of seconds above 0.") }
  }
}
