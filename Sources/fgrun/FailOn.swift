// FailOn.swift — `--fail-on none|damaged|warning`: which warnings fail a file (libvips's
// `fail_on`, sharp's `failOn`).
//
// A render's warnings come in two kinds (`RenderResult`): damage, where a decoder patched up
// corrupt or truncated data (a JPEG cut short renders grey below the cut), and the rest (a colour
// profile that cannot be used, a size clamped to fit). Whatever the choice, every warning is
// printed, listed on the file's report line and counted in the batch summary; `--fail-on` decides
// only whether the file is still written. A refused file is a failed input (exit 65 for one file,
// 1 for a batch) and its output is left as it was: the check runs after encoding, before the new
// file is moved into place.
//
// The default is `none`, as in libvips: a damaged photo usually still holds most of its picture,
// which is the best rendition there is of it, and refusing it loses that for good, while a damaged
// output is never silent (stderr, `"damaged":true` on its report line, the summary's count). Use
// `damaged` where a partial image must never be published, `warning` to stop on anything at all.

import ArgumentParser

/// Which warnings fail a file.
enum FailOn: String, CaseIterable, ExpressibleByArgument {
  /// Warnings are reported; every file that renders is written.
  case none
  /// A file whose input is damaged fails.
  case damaged
  /// A file with any warning fails.
  case warning

  /// The default (see the file header for why).
  static let standard = FailOn.none

  /// The failure `warnings` and `damage` cause under this choice, or nil.
  func refusal(warnings: [String], damage: [String]) -> Failure? {
    let reason: String
    switch self {
    case .none: return nil
    case .damaged:
      guard let first = damage.first else { return nil }
      reason = "the input is damaged (\(first))"
    case .warning:
      guard let first = warnings.first else { return nil }
      reason = "it gave a warning (\(first))"
    }
    return Failure(
      status: ExitStatus.input, message: "Not written, as --fail-on \(rawValue) asks: \(reason). --fail-on none writes it anyway.")
  }
}
