// URLOption.swift — what a URL option is: its names and how its arguments change the request.
//
// Adding an option: one file in URL/Options/ declaring `extension URLOption { static let … }`
// (and, for a new kind of image step, its `ImageStep`), plus one line in OptionTable.swift.

import FilterGraph

/// One processing option of the URL grammar.
struct URLOption: Sendable {
  /// Its names: imgproxy's full name first, then the short ones.
  let names: [String]
  /// The arguments, as the docs show them (`%sigma`).
  let arguments: String
  /// One line for docs/Server.md and errors.
  let summary: String
  /// Reads the arguments into the request being built.
  let parse: @Sendable (_ arguments: OptionArguments, _ options: inout ProcessingOptions) throws -> Void
}

/// A step of the image pipeline an option asks for. Steps run in `stage` order whatever the
/// order of the options (imgproxy's fixed pipeline), each at most once.
protocol ImageStep: Sendable {
  /// Where the step runs.
  static var stage: Stage { get }
  /// The image with the step applied.
  func apply(to image: Image, context: StepContext) throws -> Image
}

/// The pipeline's order.
enum Stage: Int, Comparable {
  case rotate, trim, crop, resize, blur, sharpen, recipe, padding, background, watermark

  static func < (a: Stage, b: Stage) -> Bool { a.rawValue < b.rawValue }
}

/// What steps read besides the image: settings other options made, and the server's resources.
struct StepContext {
  /// Device pixel ratio: sizes, offsets and paddings are multiplied by it.
  var dpr: Double = 1
  /// Where crops keep the picture.
  var gravity = GravityChoice.edge(.center, x: 0, y: 0)
  /// The colour of new canvas and of flattened transparency; nil leaves transparency.
  var background: Color?
  /// The server's resources (watermark, recipes).
  var resources: ServerResources

  /// `value` × dpr, rounded.
  func scaled(_ value: Int) -> Int { Int((Double(value) * dpr).rounded()) }
}

/// What a URL asks for, filled option by option (a later option overrides an earlier one).
struct ProcessingOptions {
  /// The steps, by stage.
  private(set) var steps: [Stage: any ImageStep] = [:]
  /// Settings steps read.
  var dpr: Double = 1
  var gravity = GravityChoice.edge(.center, x: 0, y: 0)
  var background: Color?
  /// The output format the options name (`f:webp`), if any.
  var format: String?
  /// The encoder quality (`q:80`); nil for the format's default.
  var quality: Int?
  /// `strip_metadata`: true strips to the colour profile, false keeps everything; nil for the server's default.
  var stripsMetadata: Bool?

  /// The step of type `S`, created from `initial` when absent, changed by `body`.
  mutating func update<S: ImageStep>(_ initial: @autoclosure () -> S, _ body: (inout S) throws -> Void) rethrows {
    var step = (steps[S.stage] as? S) ?? initial()
    try body(&step)
    steps[S.stage] = step
  }

  /// Sets the step of its stage.
  mutating func set<S: ImageStep>(_ step: S) { steps[S.stage] = step }

  /// Removes the step of `stage` (`bl:0` turns a blur off).
  mutating func remove(_ stage: Stage) { steps[stage] = nil }

  /// Reads every option segment with `table`.
  ///
  /// - Throws: 400 naming an unknown option or a bad argument.
  init(_ segments: [[Substring]], table: [String: URLOption] = OptionTable.byName) throws {
    for segment in segments {
      guard let name = segment.first else { continue }
      guard let option = table[String(name)] else {
        throw ServerError.badURL("Unknown option '\(name.prefix(40))' (docs/Server.md lists the options).")
      }
      try option.parse(OptionArguments(name: name, values: Array(segment.dropFirst())), &self)
    }
  }

  /// The steps applied to `image` in stage order.
  func apply(to image: Image, resources: ServerResources) throws -> Image {
    let context = StepContext(dpr: dpr, gravity: gravity, background: background, resources: resources)
    return try steps.sorted { $0.key < $1.key }.reduce(image) { try $1.value.apply(to: $0, context: context) }
  }
}
