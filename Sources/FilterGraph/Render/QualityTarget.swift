// QualityTarget.swift — `WriteOptions.target` (fgrun `--target ssimulacra2=N`): write the
// smallest file whose SSIMULACRA2 score against the rendered image is at least N, choosing the
// codec's `quality` in at most three encodes (Renderer+Target.swift searches).
//
// The prior. For each codec (and JPEG encoder) `prior` lists (quality, score) points: the median
// SSIMULACRA2 of the corpus photos at 800 px encoded at that quality (bench/target-prior.py
// measures them), read as a piecewise-linear curve P(q) that Renderer+Target.swift inverts and
// fits to the image's encodes.

import Foundation
import ImageCodecs

/// A score the written file must reach: the encoder's quality is searched for it.
public struct QualityTarget: Hashable, Sendable, CustomStringConvertible {
  /// The metric scoring the decoded file against the rendered image.
  public enum Metric: String, Hashable, Sendable, CaseIterable {
    /// SSIMULACRA 2 (`SSIMULACRA2`): 90 very high quality, 70 high, 50 medium, 30 low.
    case ssimulacra2
  }

  /// The metric.
  public var metric: Metric
  /// The lowest acceptable score.
  public var score: Double

  /// The scores a target may ask for.
  public static let scoreRange = 10.0...99.0

  /// A target of `score` on `metric`.
  ///
  /// - Throws: `CodecError(.invalidArgument)` for a score outside `scoreRange`.
  public init(_ metric: Metric = .ssimulacra2, score: Double) throws {
    guard Self.scoreRange.contains(score) else {
      throw CodecError(
        .invalidArgument,
        "A \(metric.rawValue) target must be between \(Int(Self.scoreRange.lowerBound)) and \(Int(Self.scoreRange.upperBound)), not \(score).")
    }
    self.metric = metric
    self.score = score
  }

  /// Reads `METRIC=N` (`ssimulacra2=80`).
  ///
  /// - Throws: `CodecError(.invalidArgument)` saying what is accepted.
  public init(parsing text: String) throws {
    let parts = text.split(separator: "=", maxSplits: 1).map { String($0).trimmingCharacters(in: .whitespaces) }
    guard parts.count == 2, let metric = Metric(rawValue: parts[0].lowercased()), let score = Double(parts[1]), score.isFinite else {
      throw CodecError(
        .invalidArgument,
        "A target is METRIC=SCORE with METRIC one of \(Metric.allCases.map(\.rawValue).joined(separator: ", ")) (ssimulacra2=80), not '\(text)'.")
    }
    try self.init(metric, score: score)
  }

  /// `ssimulacra2=80`.
  public var description: String { "\(metric.rawValue)=\(FormatOptionValue.number(score))" }

  /// The (quality, score) points of the prior for `codec` with `options` (see the file header).
  static func prior(for codec: any ImageCodec.Type, options: ResolvedFormatOptions) -> [(quality: Double, score: Double)] {
    switch (codec.format, options.choice("encoder")) {
    case (.jpeg, "small"?):
      return [(10, 24), (30, 50), (50, 60), (70, 70), (80, 75), (90, 82), (95, 86), (100, 90)]
    case (.jpeg, _):
      return [(10, 20), (30, 44), (50, 55), (70, 66), (80, 72), (90, 80), (95, 85), (100, 90)]
    case (.webp, _):
      return [(10, 38), (30, 52), (50, 60), (70, 68), (80, 73), (90, 80), (95, 84), (100, 88)]
    default:
      return [(10, 30), (30, 50), (50, 63), (70, 74), (80, 80), (90, 87), (95, 91), (100, 96)]
    }
  }

  /// A prior's points, read as a piecewise-linear curve (extended flat beyond its ends).
  struct Prior {
    let points: [(quality: Double, score: Double)]
    init(_ points: [(quality: Double, score: Double)]) { self.points = points }

    /// P(q).
    func score(at quality: Int) -> Double {
      let q = Double(quality)
      guard q > points[0].quality else { return points[0].score }
      for (a, b) in zip(points, points.dropFirst()) where q <= b.quality {
        return a.score + (q - a.quality) * (b.score - a.score) / (b.quality - a.quality)
      }
      return points.last!.score
    }

    /// P⁻¹(s): the quality whose prior score is `score`, extended with the end segments' slopes.
    func quality(for score: Double) -> Double {
      let segments = Array(zip(points, points.dropFirst()))
      let (a, b) = segments.first { score <= $0.1.score } ?? segments.last!
      return a.quality + (score - a.score) * (b.quality - a.quality) / (b.score - a.score)
    }
  }
}

/// What a targeted write chose.
public struct TargetOutcome: Hashable, Sendable, CustomStringConvertible {
  /// The target asked for.
  public var target: QualityTarget
  /// The quality written.
  public var quality: Int
  /// The written file's score.
  public var score: Double
  /// The written file's length in bytes.
  public var byteCount: Int
  /// How many encodes the search made (at most 3).
  public var encodes: Int
  /// False when no quality reached the target: the file written is then the best scoring one.
  public var reached: Bool { score >= target.score }

  /// `ssimulacra2 80.4 at quality 74, 41233 bytes, 3 encodes`.
  public var description: String {
    "\(target.metric.rawValue) \(String(format: "%.2f", score)) at quality \(quality), \(byteCount) bytes, \(encodes) encode\(encodes == 1 ? "" : "s")"
  }
}
