// Failure.swift — exit codes, and how each kind of error is reported and mapped to one.

import ArgumentParser
import CProcess
import FilterGraph
import Foundation
import ImageCodecs
import Locking

#if canImport(Glibc)
  import Glibc
#endif

/// The exit codes `fgrun` documents (sysexits.h values where one fits).
enum ExitStatus {
  /// Everything was written.
  static let ok: Int32 = 0
  /// Some files of a batch failed; the others were written.
  static let batchFailures: Int32 = 1
  /// A usage or recipe error (EX_USAGE).
  static let usage: Int32 = 64
  /// An input could not be read: missing, corrupt, unsupported, too large (EX_DATAERR).
  static let input: Int32 = 65
  /// A bug (EX_SOFTWARE).
  static let software: Int32 = 70
  /// The system refused what the command cannot run without: threads for `serve` (EX_OSERR).
  static let system: Int32 = 71
  /// An output could not be written (EX_CANTCREAT).
  static let output: Int32 = 73
}

/// An error already worded for the user, with its exit status.
struct Failure: Error, CustomStringConvertible {
  /// The exit status.
  var status: Int32
  /// The complete message (a recipe diagnostic, or one sentence).
  var message: String
  /// True when `message` already carries its `file:line:column: error:` prefix.
  var isDiagnostic = false

  var description: String { message }

  /// Which stage an error happened in decides what a codec error means.
  enum Stage {
    case recipe, input, output
  }

  /// Maps an error thrown while making `output` (a path, or "-") to a failure; memory refused for
  /// pixels, whose error knows no file, names it.
  init(_ error: Error, making output: String) {
    let underlying = (error as? RenderJobError)?.underlying ?? error
    if let allocation = underlying as? PixelAllocationError {
      let file = output == "-" ? "standard output" : output
      self.init(status: ExitStatus.input, message: "Not enough memory to make \(file): \(allocation.amount) for pixels could not be allocated.")
    } else {
      self.init(error, stage: .output)
    }
  }

  /// Maps any error thrown at `stage` to a failure.
  init(_ error: Error, stage: Stage) {
    switch error {
    case let failure as Failure:
      self = failure
    case let job as RenderJobError:
      switch (job.stage, job.underlying) {
      case (.options, let codec as CodecError): self.init(status: ExitStatus.usage, message: codec.message)
      case (.options, _), (.output, _): self.init(job.underlying, stage: .output)
      case (.input, _): self.init(job.underlying, stage: .input)
      case (.recipe, _): self.init(job.underlying, stage: .recipe)
      }
    case let recipe as RecipeError:
      // A `load` of a missing or corrupt file is an input error; anything else in a recipe is a
      // recipe error.
      let status = recipe.underlying is CodecError ? ExitStatus.input : ExitStatus.usage
      self.init(status: status, message: recipe.description, isDiagnostic: true)
    case let codec as CodecError:
      switch (stage, codec.kind) {
      case (.output, .io), (.output, .invalidArgument): self.init(status: ExitStatus.output, message: codec.message)
      case (.recipe, _): self.init(status: ExitStatus.usage, message: codec.message)
      default: self.init(status: ExitStatus.input, message: codec.message)
      }
    case let allocation as PixelAllocationError:
      self.init(status: ExitStatus.input, message: "\(allocation.description).")
    case let limit as GraphLimitError:
      self.init(status: ExitStatus.usage, message: limit.message)
    case let filter as FilterError:
      self.init(status: ExitStatus.usage, message: filter.message)
    default:
      let text = (error as? LocalizedError)?.errorDescription ?? String(describing: error)
      self.init(status: stage == .output ? ExitStatus.output : ExitStatus.software, message: text)
    }
  }

  init(status: Int32, message: String, isDiagnostic: Bool = false) {
    self.status = status
    self.message = message
    self.isDiagnostic = isDiagnostic
  }

  /// Prints the message to standard error (prefixed unless it is a recipe diagnostic).
  func report(prefix: String = "") {
    Console.error(isDiagnostic ? message : "fgrun: error: \(prefix)\(message)")
  }
}

/// Standard error and standard output, written with `write(2)`.
///
/// A closed pipe or a full disk on standard error is ignored (the message has nowhere to go).
/// On standard output, and on any other stream whose writer calls `lost`, the first failure is
/// kept: `runReportingFailures` then ends the command with exit 73 and that sentence, instead of
/// exit 0 for output that never arrived. Foundation's `FileHandle.write` would trap instead.
enum Console {
  /// The first write that failed, as a sentence; nil while every write has succeeded.
  static var lostOutput: String? { lostWrites.first }

  /// Records that output was lost: `what` could not be written, because of `errno`.
  static func lost(_ what: String, errno code: Int32) {
    lostWrites.keep("Cannot write \(what): \(String(cString: strerror(code))).")
  }

  private static let lostWrites = FirstMessage()

  /// Writes a line to standard error.
  static func error(_ text: String) { write(text + "\n", to: STDERR_FILENO) }

  /// Writes a line to standard output.
  static func out(_ text: String) {
    if let code = write(text + "\n", to: STDOUT_FILENO) { lost("standard output", errno: code) }
  }

  /// Writes `text` as it is (no newline) to standard error: progress lines.
  static func errorWithoutNewline(_ text: String) { write(text, to: STDERR_FILENO) }

  /// True when standard error is a terminal (progress bars go there).
  static var errorIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }

  /// The width of the terminal on standard error (80 when it cannot be told).
  static var errorColumns: Int {
    var size = winsize()
    guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
    return Int(size.ws_col)
  }

  /// Writes all of `text` to `fd`; the errno of a failed write (ENOSPC for a write that wrote
  /// nothing), or nil.
  @discardableResult
  static func write(_ text: String, to fd: Int32) -> Int32? {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
      let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      if n < 0 { return errno }
      if n == 0 { return ENOSPC }
      bytes = bytes.dropFirst(n)
    }
    return nil
  }
}

/// The first of the messages given to it, kept under a lock (writers on several threads).
private final class FirstMessage: Sendable {
  private let message = Locked<String?>(nil)

  var first: String? { message.withLock { $0 } }

  func keep(_ text: String) { message.withLock { if $0 == nil { $0 = text } } }
}

/// How fgrun meets the signals that would otherwise kill it silently.
enum ProcessSignals {
  /// A closed output pipe (SIGPIPE) and the file-size limit (SIGXFSZ) become write errors —
  /// EPIPE and EFBIG — which fgrun reports and exits 73 for. SIGINT, SIGTERM and SIGHUP keep
  /// their default action: the output being written is an unnamed file (`OutputFile`), which
  /// the kernel removes with the process, and the previous output stays as it was.
  ///
  /// Under an address-space limit (`ulimit -v`), memory the limit refuses can stop code that
  /// cannot fail cleanly (the Swift runtime's allocations, Foundation, fontconfig): SIGABRT,
  /// SIGILL, SIGTRAP, SIGSEGV and SIGBUS then end fgrun with exit 65 and a sentence naming the
  /// limit and the signal, after whatever the failing code printed, instead of a signal status;
  /// the output being written is unnamed and goes with the process. Without a limit these
  /// signals keep their default action (and Swift's backtrace), as they would be a bug.
  static func install() {
    signal(SIGPIPE, SIG_IGN)
    signal(SIGXFSZ, SIG_IGN)
    if let limit = addressSpaceLimit() {
      let before = "fgrun: error: not enough memory: under the address-space limit (ulimit -v \(limit >> 10)), code that cannot fail cleanly ended with "
      _ = fg_end_fatal_signals_with(before, "; nothing was written.\n", ExitStatus.input)
    }
  }
}

/// Runs `body`, printing a failure and turning it into the process's exit status.
func runReportingFailures(_ body: () throws -> Int32) throws {
  let status: Int32
  do {
    status = try body()
  } catch let failure as Failure {
    failure.report()
    throw ExitCode(Console.lostOutput == nil ? failure.status : ExitStatus.output)
  }
  if let lost = Console.lostOutput {
    Failure(status: ExitStatus.output, message: lost).report()
    throw ExitCode(ExitStatus.output)
  }
  if status != 0 { throw ExitCode(status) }
}
