// BatchReport.swift — `--report FILE.jsonl`: one JSON object a line for each input as it finishes.
//
// Each line is written with one `write(2)` to a file opened for appending, so a crash loses no
// finished line and a reader never sees half a line from a live batch. Fields:
//
//   input, output          the paths (output null when it could not be named)
//   status                 "ok", "skipped" (--resume found it done) or "failed"
//   error, class, exit     for failures: the message, its class (usage, input, output, software,
//                          timeout) and the exit status fgrun gives that class
//   warnings               what the render warned about, in order (empty when nothing); a skipped
//                          file's are those recorded when its output was made
//   damaged                true when a decoder patched up corrupt or truncated input data
//                          (the pixels are not all the file's; `--fail-on damaged` refuses these)
//   ms                     wall time spent on the file
//   input_bytes, output_bytes        file sizes (null when unknown)
//   input_width, input_height, output_width, output_height   pixel sizes (null when unknown)
//   target                 with --target: {"score", "quality", "encodes", "reached", "landed"} of
//                          the file written (reached: score ≥ N; landed: N ≤ score ≤ N + 1;
//                          absent without --target)

import FilterGraph
import Foundation
import Locking

#if canImport(Glibc)
  import Glibc
#endif

/// What happened to one input.
struct BatchOutcome {
  /// How the file ended.
  enum Status: String {
    case ok, skipped, failed
  }

  var input: String
  var output: String?
  var status: Status
  var failure: Failure?
  /// The render's warnings (for a skipped file, those recorded with its output).
  var warnings: [String] = []
  /// True when among them a decoder patched up damaged input data.
  var damaged = false
  /// True when the failure is the per-file time limit.
  var timedOut = false
  var milliseconds: Double
  var inputBytes: Int?
  var outputBytes: Int?
  var inputSize: (width: Int, height: Int)?
  var outputSize: (width: Int, height: Int)?
  /// What --target chose.
  var target: TargetOutcome?

  /// The failure's class name.
  var failureClass: String? {
    guard let failure else { return nil }
    if timedOut { return "timeout" }
    switch failure.status {
    case ExitStatus.usage: return "usage"
    case ExitStatus.input: return "input"
    case ExitStatus.output: return "output"
    default: return "software"
    }
  }

  /// The JSON line (without its newline).
  var jsonLine: String {
    var fields: [(String, String)] = [
      ("input", json(input)), ("output", output.map(json) ?? "null"), ("status", json(status.rawValue)),
    ]
    if let failure {
      fields += [("error", json(failure.message)), ("class", json(failureClass!)), ("exit", String(failure.status))]
    }
    fields += [
      ("warnings", "[" + warnings.map(json).joined(separator: ",") + "]"), ("damaged", damaged ? "true" : "false"),
      ("ms", String(format: "%.1f", milliseconds)),
      ("input_bytes", inputBytes.map(String.init) ?? "null"), ("output_bytes", outputBytes.map(String.init) ?? "null"),
      ("input_width", inputSize.map { String($0.width) } ?? "null"),
      ("input_height", inputSize.map { String($0.height) } ?? "null"),
      ("output_width", outputSize.map { String($0.width) } ?? "null"),
      ("output_height", outputSize.map { String($0.height) } ?? "null"),
    ]
    if let target {
      fields.append((
        "target",
        "{\"score\":\(String(format: "%.2f", target.score)),\"quality\":\(target.quality),\"encodes\":\(target.encodes),\"reached\":\(target.reached),\"landed\":\(target.landed)}"
      ))
    }
    return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
  }
}

/// A JSON string literal for `text`.
func json(_ text: String) -> String {
  var out = "\""
  for scalar in text.unicodeScalars {
    switch scalar {
    case "\"": out += "\\\""
    case "\\": out += "\\\\"
    case "\n": out += "\\n"
    case "\r": out += "\\r"
    case "\t": out += "\\t"
    case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
    default: out.unicodeScalars.append(scalar)
    }
  }
  return out + "\""
}

/// The report file, appended to line by line from any thread.
final class BatchReport: Sendable {
  /// The descriptor, used only with its lock held, so lines never interleave.
  private let file: Locked<Int32>
  private let path: String

  /// Opens (creating, appending to) `path`.
  ///
  /// - Throws: `Failure` (output) when it cannot be opened.
  init(path: String) throws {
    self.path = path
    let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    let openError = errno
    file = Locked(fd)
    guard fd >= 0 else {
      throw Failure(status: ExitStatus.output, message: "Cannot open the report \(path): \(String(cString: strerror(openError))).")
    }
  }

  deinit { file.withLock { _ = close($0) } }

  /// Before a resumed batch appends to the report at `path`, removes the lines of the inputs it
  /// will report again (`rerun`), so the report ends with exactly one line per input, however
  /// often the batch was interrupted: a skipped file's line carries the warnings recorded with
  /// its output. Lines of other inputs (another shard's, another list's) are kept. The report is
  /// rewritten to a temporary file that then replaces it, so a crash keeps the old one whole;
  /// shards resumed at the same moment should each have their own report.
  ///
  /// - Throws: `Failure` (output) when the report cannot be rewritten.
  static func removeLines(at path: String, of rerun: (String) -> Bool) throws {
    guard FileManager.default.fileExists(atPath: path) else { return }
    let text: String
    do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
      throw Failure(status: ExitStatus.output, message: "Cannot read the report \(path) to resume it: \(error.localizedDescription)")
    }
    let kept = text.split(separator: "\n").filter { line in
      guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        let input = object["input"] as? String
      else { return true }
      return !rerun(input)
    }
    let temporary = path + ".fgrun-resume"
    do {
      try Data(kept.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: temporary))
      guard rename(temporary, path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    } catch {
      unlink(temporary)
      throw Failure(status: ExitStatus.output, message: "Cannot rewrite the report \(path) to resume it: \(error.localizedDescription)")
    }
  }

  /// Appends one line for `outcome` with a single write; a failed write (a full disk,
  /// `/dev/full`) is kept as lost output, which ends the batch with exit 73 (`Console.lost`).
  func record(_ outcome: BatchOutcome) {
    file.withLock { fd in
      if let code = Console.write(outcome.jsonLine + "\n", to: fd) { Console.lost("the report \(path)", errno: code) }
    }
  }
}
