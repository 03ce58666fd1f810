// RecipeStandIns.swift — the stand-in filters RecipeParserTests compiles recipes with: the
// parameter shapes of scale, blur, tint, convert, blend and composite, each applied as a
// `StandInOperation` that records the inputs and arguments its statement gave.

import Foundation
import ImageCodecs
import PixelBufferModule

@testable import FilterGraph

/// The recipe tests' filters and graph signatures.
enum RecipeStandIns {
  /// A node that only records its name and arguments.
  struct StandInOperation: ImageOperation {
    let descriptor: OperationDescriptor
    let arguments: Arguments
    var workingSpace: WorkingSpace? { nil }
    func render(into output: inout Tile, inputs: [Tile]) throws {}
  }

  static func standIn<Parameters: FilterParameters>(
    _ name: String, _ category: OperationCategory, inputCount: Int = 1, _ parameters: Parameters.Type, example: String,
    check: (@Sendable (Parameters) throws -> Void)? = nil
  ) -> FilterDefinition {
    let descriptor = OperationDescriptor(
      name: name, category: category, summary: "A stand-in.", inputCount: inputCount, parameters: Parameters.table, example: example)
    return FilterDefinition(descriptor, reading: Parameters.self) { inputs, p, _ in
      try check?(p)
      return inputs[0].applying(StandInOperation(descriptor: descriptor, arguments: p.arguments), with: Array(inputs.dropFirst()))
    }
  }

  struct ScaleStandIn: FilterParameters {
    @OptionalParam("factor", range: 0.001...100, help: "Factor.") var factor: Double?
    @OptionalParam("fit", sides: 1...65535, help: "Box.") var fit: Size?
    @Param("kernel", words: ["lanczos3", "linear"], help: "Kernel.") var kernel = "lanczos3"
    init() {}
  }

  struct BlurStandIn: FilterParameters {
    @Param("sigma", range: 0...100, help: "Sigma.") var sigma = 1.0
    init() {}
  }

  struct TintStandIn: FilterParameters {
    @Param("color", help: "Colour.") var color = Color.black
    @Param("amount", range: 0...1, percent: .fraction, help: "Amount.") var amount = 0.5
    init() {}
  }

  struct ConvertStandIn: FilterParameters {
    @Param(Parameter(spec: ParameterSpec("to", .choice(["gray", "srgb"]), help: "Target."))) var to: String
    @Param("dither", help: "Dither.") var dither = false
    @Param("levels", range: 2...256, help: "Levels.") var levels = 256
    @OptionalParam(Parameter(spec: ParameterSpec("weights", .numbers(count: 3), optional: true, help: "Weights."))) var weights: [Double]?
    init() {}
  }

  struct BlendStandIn: FilterParameters {
    @Param("mode", words: ["normal", "screen", "multiply"], help: "Mode.") var mode = "normal"
    @Param("opacity", range: 0...1, help: "Opacity.") var opacity = 1.0
    init() {}
  }

  struct CompositeStandIn: FilterParameters {
    @Param(image: "over", help: "The background.") var over: String
    @Param("gravity", words: ["center", "southeast", "northwest"], help: "Where.") var gravity = "center"
    @Param("margin", range: 0...10000, help: "Margin.") var margin = 0
    @OptionalParam(Parameter(spec: ParameterSpec("offset", .point, optional: true, help: "Offset."))) var offset: Point?
    init() {}
  }

  static let standIns: [FilterDefinition] = [
    standIn(
      "scale", .resample, ScaleStandIn.self, example: "scale 0.5",
      check: { p in
        if (p.factor == nil) == (p.fit == nil) { throw FilterError("scale needs exactly one of factor= and fit=.") }
      }),
    standIn("blur", .convolution, BlurStandIn.self, example: "blur sigma=2"),
    standIn("tint", .color, TintStandIn.self, example: "tint color=#FF8000"),
    standIn("convert", .color, ConvertStandIn.self, example: "convert to=gray"),
    standIn("blend", .compositing, inputCount: 2, BlendStandIn.self, example: "blend mode=screen a b"),
    standIn("composite", .compositing, inputCount: 2, CompositeStandIn.self, example: "composite logo over=photo"),
  ]

  static let filters = standIns + SourceFilters.all + GeometryFilters.all

  /// `name(arguments)[inputs]`, recursively: two graphs are the same when their signatures are.
  static func signature(_ node: ImageNode) -> String {
    let args = node.operation.arguments.description
    let head = node.operation.descriptor.name + (args.isEmpty ? "" : "(\(args))")
    return node.inputs.isEmpty ? head : head + "[" + node.inputs.map(signature).joined(separator: ", ") + "]"
  }
}
