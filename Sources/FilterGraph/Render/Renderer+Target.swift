// Renderer+Target.swift — a write with `WriteOptions.target`: the image is rendered once, whole,
// in the pixels the encoder takes; then at most three encodes at qualities `QualityTarget.search`
// chooses, each decoded and scored (SSIMULACRA2 against the rendered pixels), and the smallest
// file scoring at least the target N is written. When it scores more than N + 1 (no encode
// landed in the window) a warning says so; when no encode reaches N (N beyond what the codec
// reaches at its highest quality) the highest-scoring one is written and a warning says so.
// `RenderResult.target` reports the outcome either way.
//
// Memory: the rendered image, the reference's scales (about 48 bytes per pixel) and one encode's
// decoded pixels are held at once, so the mode suits web-sized images more than huge ones.

import Foundation
import ImageCodecs

extension Renderer {
  /// The encoded bytes of `output` at the quality that reaches `target` (see the file header),
  /// written to `handle` when there is one.
  ///
  /// - Throws: `CodecError(.invalidArgument)` for a format other than lossy JPEG, WebP or AVIF
  ///   (the codecs with a prior); any render or codec error.
  func encodeToTarget(_ output: OutputPlan, target: QualityTarget, handle: OutputHandle?, stop: (() -> Bool)?) throws -> Data? {
    let plan = output.plan
    let info = plan.root.info
    let codec = output.codec
    guard case .integer(let qualities)? = codec.encodeOptions.first(where: { $0.name == "quality" })?.kind,
      !output.options.boolean("lossless"), let prior = QualityTarget.prior(for: codec, options: output.options)
    else {
      throw CodecError(
        .invalidArgument,
        "A target chooses the quality of a lossy JPEG, WebP or AVIF file, not of \(output.options.boolean("lossless") ? "lossless " : "")\(codec.displayName).")
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
      eager: true, outputTransform: try output.color.transform(for: pixelFormat), stop: stop
    ) { _, _ in if let stop, stop() { throw CancellationError() } }
    let reference = SSIMULACRA2.Reference(image)

    var trials: [(quality: Int, score: Double, bytes: Data)] = []
    func trial(_ quality: Int) throws -> Double {
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

    try target.search(prior, in: qualities, encode: trial)

    let goal = target.score
    let passing = trials.filter { $0.score >= goal }
    let chosen = passing.min { $0.bytes.count < $1.bytes.count } ?? trials.max { $0.score < $1.score }!
    let outcome = TargetOutcome(
      target: target, quality: chosen.quality, score: chosen.score, byteCount: chosen.bytes.count, encodes: trials.count)
    plan.targetOutcome = outcome
    let tried = "\(trials.count) encode\(trials.count == 1 ? "" : "s")"
    if !outcome.reached {
      warn(
        "\(target) was not reached: the best of \(tried) scores \(String(format: "%.2f", chosen.score)) at quality \(chosen.quality)\(chosen.quality == qualities.upperBound ? ", the highest" : "").",
        in: plan)
    } else if !outcome.landed {
      warn(
        "\(target): none of \(tried) scored \(FormatOptionValue.number(goal))…\(FormatOptionValue.number(goal + 1)); written: the smallest above, \(String(format: "%.2f", chosen.score)) at quality \(chosen.quality).",
        in: plan)
    }
    guard let handle else { return chosen.bytes }
    try chosen.bytes.withUnsafeBytes { try handle.writeAll($0) }
    return nil
  }
}
