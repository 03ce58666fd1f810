// BatchRunner+Resume.swift — `--resume`: skipping an output made exactly as this run would make
// it, and recording with each output what made it (OutputRecord.swift).

import Foundation
import ImageCodecs

#if canImport(Glibc)
  import Glibc
#endif

extension BatchRunner {
  /// The digest of this run's output of an input with `inputStatus` in `format`.
  func digest(_ inputStatus: stat, _ format: ImageFileFormat) -> String {
    settings.digest.digest(inputStatus: inputStatus, format: format)
  }

  /// A skipped outcome when --resume finds `target` made as this run would make it: its record
  /// names this run's digest (the recipe, options, named files, version and the input as it is).
  func resumed(_ item: BatchItem, target: URL, inputStatus: stat?) -> BatchOutcome? {
    guard settings.resume, let done = fileStatus(target.path), let inputStatus else { return nil }
    guard let format = ImageFileFormat(pathExtension: target.pathExtension) ?? output.requestedFormat,
      let record = OutputRecord.read(path: target.path), record.digest == digest(inputStatus, format)
    else { return nil }
    var outcome = BatchOutcome(input: item.input, output: target.relativePath, status: .skipped, milliseconds: 0)
    outcome.inputBytes = Int(inputStatus.st_size)
    outcome.outputBytes = Int(done.st_size)
    outcome.warnings = record.warnings
    outcome.damaged = record.damaged
    return outcome
  }

  /// Stores `record` with the output at `url`; when the filesystem refuses and --resume is asked
  /// for, says once that such outputs will be made again.
  func record(_ record: OutputRecord, _ url: URL) {
    guard let code = record.write(path: url.path), settings.resume else { return }
    let first = shared.withLock { shared in
      defer { shared.unrecorded = true }
      return !shared.unrecorded
    }
    if first {
      progress.warning(
        "cannot record how \(url.relativePath) was made (\(String(cString: strerror(code)))); --resume makes outputs without a record again.")
    }
  }
}
