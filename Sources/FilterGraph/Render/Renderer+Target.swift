// Renderer+Target.swift — a write with `WriteOptions.target`: the image is rendered once, whole,
// in the pixels the encoder takes; then at most three encodes at chosen qualities, each decoded
// and scored (SSIMULACRA2 against the rendered pixels), and the smallest file scoring at least
// the target is written.
//
// The search, on the codec's integer quality q (scores rise with q, though not strictly), aims
// at N + 0.3 and rounds qualities up, so that an encode is more likely to land just above N.
// P(q) is the codec's prior (QualityTarget.prior: the corpus's median score at q, interpolated)
// and P⁻¹ its inverse:
//   1. q₁ = P⁻¹(N + 0.3). A score s₁ in [N, N + ½] ends the search.
//   2. The image is taken to score like the prior shifted by the first miss:
//      q₂ = P⁻¹(N + 0.3 − (s₁ − P(q₁))), at least one step from q₁ toward N.
//   3. s = a·P(q) + b through both encodes (a = 1 when it is out of 0.2…5, b through the one
//      nearer N), q₃ = its quality for N + 0.3: strictly between q₁ and q₂ when they bracket N
//      (skipped when they are one step apart), else at least one step past the nearer.
// The file written is the smallest among the encodes scoring at least N. When none does (N is
// beyond what the codec reaches at its highest quality, or the search ran out of encodes) the
// highest-scoring encode is written and a warning says so; `RenderResult.target` reports the
// outcome either way.
//
// Memory: the rendered image, the reference's scales (about 48 bytes per pixel) and one encode's
// decoded pixels are held at once, so the mode suits web-sized images more than huge ones.

import Foundation
import ImageCodecs

extension Renderer {
  /// The encoded bytes of `output` at the quality that reaches `target` (see the file header),
  /// written to `handle` when there is one.
  ///
  /// - Throws: `CodecError(.invalidArgument)` when the codec has no quality (lossless formats,
  ///   lossless WebP/AVIF); any render or codec error.
  func encodeToTarget(_ output: OutputPlan, target: QualityTarget, handle: OutputHandle?, stop: (() -> Bool)?) throws -> Data? {
    let plan = output.plan
    let info = plan.root.info
    let codec = output.codec
    guard case .integer(let qualities)? = codec.encodeOptions.first(where: { $0.name == "quality" })?.kind,
      !output.options.boolean("lossless")
    else {
      throw CodecError(
        .invalidArgument,
        "--target chooses a lossy encoder's quality; \(codec.displayName)\(output.options.boolean("lossless") ? " lossless" : "") has none (write JPEG, WebP, AVIF or HEIC).")
    }
    let pixelFormat = codec.encodedPixelFormat(layout: info.layout, component: info.component, options: output.options)
    let fileSpace: ColorSpace = output.color.embedded.map { .icc($0) } ?? (info.colorSpace.isLinear ? .linearSRGB : .sRGB)
    let metadata = output.color.kept.written(from: info.metadata, size: info.size, profile: output.color.embedded, format: codec.format)
    let image: PixelBuffer
    do {
      image = try PixelBuffer.allocate(width: info.size.width, height: info.size.height, format: pixelFormat, colorSpace: fileSpace)
    } catch {
      throw CodecError(.tooLarge, "There is not enough memory to hold the \(info.size) image a target search compares against.")
    }
    try run(
      plan, format: pixelFormat, band: { y, h in image.cropped(to: Rect(x: 0, y: y, width: info.size.width, height: h)) },
      eager: true, outputTransform: try output.color.transform(for: pixelFormat)
    ) { _, _ in if let stop, stop() { throw CancellationError() } }
    let reference = SSIMULACRA2.Reference(image)

    var trials: [(quality: Int, score: Double, bytes: Data)] = []
    func trial(_ quality: Int) throws -> Double {
      if let done = trials.first(where: { $0.quality == quality }) { return done.score }
      if let stop, stop() { throw CancellationError() }
      var values = FormatOptionValues(output.options.values)
      values["quality"] = .integer(quality)
      let encoder = try codec.makeEncoder(
        EncodeRequest(
          size: info.size, pixelFormat: pixelFormat, colorSpace: fileSpace, metadata: metadata,
          options: try values.resolved(by: codec.encodeOptions), handle: nil, executor: pool))
      try encoder.write(rows: image)
      let bytes = try encoder.finish() ?? Data()
      let score = try reference.score(try codec.makeDecoder(bytes, request: DecodeRequest()).decodeAll())
      trials.append((quality, score, bytes))
      return score
    }

    let goal = target.score, aim = target.score + 0.3
    let lowest = Double(max(qualities.lowerBound, 1)), highest = Double(qualities.upperBound)
    let prior = QualityTarget.Prior(QualityTarget.prior(for: codec, options: output.options))
    func clamped(_ q: Double) -> Int { Int(min(max(q.rounded(.up), lowest), highest)) }
    // 1. The prior's quality for the target.
    let q1 = clamped(prior.quality(for: aim))
    let s1 = try trial(q1)
    if !(goal...(goal + 0.5)).contains(s1) {
      // 2. The prior shifted by the first encode's miss.
      var q2 = clamped(prior.quality(for: aim - (s1 - prior.score(at: q1))))
      if q2 == q1 { q2 = clamped(Double(q1) + (s1 < goal ? 1 : -1)) }
      if q2 != q1 {
        let s2 = try trial(q2)
        // 3. The prior scaled and shifted through both encodes (s = a·prior + b), kept inside
        //    the bracket when they bracket the target, else past the nearer one.
        let (low, high) = q1 < q2 ? ((q: q1, s: s1), (q: q2, s: s2)) : ((q: q2, s: s2), (q: q1, s: s1))
        let (pLow, pHigh) = (prior.score(at: low.q), prior.score(at: high.q))
        var a = (high.s - low.s) / (pHigh - pLow)
        if !(0.2...5).contains(a) { a = 1 }
        let near = abs(low.s - goal) < abs(high.s - goal) ? low : high
        let b = near.s - a * prior.score(at: near.q)
        var q3 = clamped(prior.quality(for: (aim - b) / a))
        if low.s < goal && high.s >= goal {
          q3 = high.q - low.q > 1 ? min(max(q3, low.q + 1), high.q - 1) : high.q
        } else if low.s >= goal {
          q3 = min(q3, low.q - 1)
        } else {
          q3 = max(q3, high.q + 1)
        }
        q3 = Int(min(max(Double(q3), lowest), highest))
        _ = try trial(q3)
      }
    }

    let passing = trials.filter { $0.score >= goal }
    let chosen = passing.min { $0.bytes.count < $1.bytes.count } ?? trials.max { $0.score < $1.score }!
    plan.targetOutcome = TargetOutcome(
      target: target, quality: chosen.quality, score: chosen.score, byteCount: chosen.bytes.count, encodes: trials.count)
    if passing.isEmpty {
      warn(
        "\(target) was not reached: the best of \(trials.count) encodes scores \(String(format: "%.2f", chosen.score)) at quality \(chosen.quality)\(chosen.quality == Int(highest) ? ", the highest" : "").",
        in: plan)
    }
    guard let handle else { return chosen.bytes }
    try chosen.bytes.withUnsafeBytes { try handle.writeAll($0) }
    return nil
  }
}
