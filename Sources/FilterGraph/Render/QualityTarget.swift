// QualityTarget.swift — `WriteOptions.target` (fgrun `--target ssimulacra2=N`): write the
// smallest file whose SSIMULACRA2 score against the rendered image is at least N, choosing the
// codec's integer `quality` q in at most three encodes, each scored (Renderer+Target.swift).
//
// The prior P(q): for each codec (and JPEG encoder) `prior` lists (quality, score) points, the
// median SSIMULACRA2 (PyPI ssimulacra2) of the corpus photos without alpha at 800 px written at
// that quality — WebP's and AVIF's measured by bench/target-prior.py, JPEG's by bench/bytes.sh
// (its quality ladder 30–97) — read as a piecewise-linear curve extended past its ends along its
// end segments; P⁻¹ is its inverse. The search (`search`) aims at A = N + ½, the middle of the
// window N…N + 1 it means to land in, and ends as soon as an encode lands there:
//   1. q₁ = P⁻¹(A).
//   2. The image is taken to score like the prior shifted by the first encode's miss:
//      q₂ = P⁻¹(A − (s₁ − P(q₁))), at least one step from q₁ toward N.
//   3. s = a·P(q) + b through both encodes (a kept in ½…2; b through the one nearer A) is
//      the image's curve; q₃ is the quality where it is nearest A (nearest N + 1 while no
//      encode reached N, so that this one is likelier to), taken between the two encodes when
//      they straddle the window, below both when the lower already reaches N, else above both.
// Qualities are rounded to the nearest integer and kept in the codec's range. An integer quality
// moves the score by ¼–1 point in most places, but some codecs jump further (AVIF's 101
// qualities map to 64 quantisers: steps of up to 3 points), so some windows hold no quality.
//
// Measured on full curves (every quality, scored with this SSIMULACRA2) of three photos at
// 256–384 px (the test fixtures rocket and kodim23, samples/flower.jpg) for fast and small JPEG,
// WebP and AVIF, every N in 55…90 within the codec's reach: 357 of the 420 windows hold a
// quality, and the search lands in 279 of those (78 %; JPEG 73 of 92, small 71 of 93, WebP 69 of
// 94, AVIF 66 of 78). It reaches N in all 420; the others land above the window, by 1.8 points
// in the median and 6 at most. It takes 2.5 encodes on average. It can miss N when the image's
// curve is far flatter than the prior's (kodim23 fitted to 128 px, WebP, N = 70: 69.6).

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

  /// The prior of `codec` with `options` (see the file header), or nil for a codec without one.
  static func prior(for codec: any ImageCodec.Type, options: ResolvedFormatOptions) -> Prior? {
    switch (codec.format, options.choice("encoder")) {
    case (.jpeg, "small"?):
      return Prior([(30, 49.5), (40, 57.6), (50, 62.9), (60, 67.2), (70, 72.4), (80, 79.1), (85, 82.2), (90, 85.4), (94, 87.9), (97, 89.5)])
    case (.jpeg, _):
      return Prior([(30, 45.9), (40, 54.3), (50, 60.0), (60, 64.0), (70, 69.5), (80, 75.8), (85, 79.1), (90, 83.4), (94, 86.3), (97, 88.6)])
    case (.webp, _):
      return Prior([(10, 19.4), (30, 43.7), (50, 55.8), (60, 61.3), (70, 65.6), (80, 72.9), (90, 82.4), (95, 87.1), (100, 88.9)])
    case (.avif, _):
      return Prior([(10, -24.7), (30, 30.3), (50, 61.7), (60, 72.8), (70, 77.4), (80, 81.9), (90, 87.3), (95, 89.4), (100, 90.9)])
    default:
      return nil
    }
  }

  /// A prior's points (qualities and scores rising), read as a piecewise-linear curve extended
  /// past its ends along its end segments.
  struct Prior {
    let points: [(quality: Double, score: Double)]
    init(_ points: [(quality: Double, score: Double)]) { self.points = points }

    /// The segment holding `value` of `part` (quality or score), or the end segment nearest it.
    private func segment(_ value: Double, _ part: KeyPath<(quality: Double, score: Double), Double>) -> (Double, Double, Double, Double) {
      let segments = zip(points, points.dropFirst())
      let (a, b) = segments.first { value <= $0.1[keyPath: part] } ?? (points[points.count - 2], points[points.count - 1])
      return (a.quality, a.score, b.quality, b.score)
    }

    /// P(q).
    func score(at quality: Int) -> Double {
      let (q0, s0, q1, s1) = segment(Double(quality), \.quality)
      return s0 + (Double(quality) - q0) * (s1 - s0) / (q1 - q0)
    }

    /// P⁻¹(s).
    func quality(for score: Double) -> Double {
      let (q0, s0, q1, s1) = segment(score, \.score)
      return q0 + (score - s0) * (q1 - q0) / (s1 - s0)
    }
  }

  /// Calls `encode` with up to three qualities in `qualities`, each chosen from the scores it
  /// returned before (the search of the file header).
  func search(_ prior: Prior, in qualities: ClosedRange<Int>, encode: (Int) throws -> Double) rethrows {
    let goal = score, aim = score + 0.5
    func landed(_ s: Double) -> Bool { s >= goal && s <= goal + 1 }
    func clamped(_ q: Double) -> Int { Int(min(max(q.rounded(), Double(qualities.lowerBound)), Double(qualities.upperBound))) }
    // 1. The prior's quality.
    let q1 = clamped(prior.quality(for: aim))
    let s1 = try encode(q1)
    if landed(s1) { return }
    // 2. The prior shifted by the miss.
    var q2 = clamped(prior.quality(for: aim - (s1 - prior.score(at: q1))))
    if q2 == q1 { q2 = clamped(Double(q1 + (s1 < goal ? 1 : -1))) }
    guard q2 != q1 else { return }
    let s2 = try encode(q2)
    if landed(s2) { return }
    // 3. The prior scaled and shifted through both encodes.
    let (low, high) = q1 < q2 ? ((q: q1, s: s1), (q: q2, s: s2)) : ((q: q2, s: s2), (q: q1, s: s1))
    let a = min(max((high.s - low.s) / (prior.score(at: high.q) - prior.score(at: low.q)), 0.5), 2)
    let near = abs(low.s - aim) <= abs(high.s - aim) ? low : high
    let b = near.s - a * prior.score(at: near.q)
    let candidates =
      low.s >= goal ? qualities.lowerBound..<low.q : high.s >= goal ? low.q + 1..<high.q : high.q + 1..<qualities.upperBound + 1
    let aim3 = max(s1, s2) >= goal ? aim : goal + 1
    func miss(_ q: Int) -> Double { abs(a * prior.score(at: q) + b - aim3) }
    guard let q3 = candidates.min(by: { miss($0) < miss($1) }) else { return }
    _ = try encode(q3)
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
  /// False when no encode reached the target: the file written is then the best scoring one.
  public var reached: Bool { score >= target.score }
  /// True when the score is in the window the search aims at, the target to one point above it.
  public var landed: Bool { reached && score <= target.score + 1 }

  /// `ssimulacra2 80.4 at quality 74, 41233 bytes, 3 encodes`.
  public var description: String {
    "\(target.metric.rawValue) \(String(format: "%.2f", score)) at quality \(quality), \(byteCount) bytes, \(encodes) encode\(encodes == 1 ? "" : "s")"
  }
}
