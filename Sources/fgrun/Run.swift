// Run.swift — `fgrun [run] RECIPE INPUT OUTPUT`, `-e TEXT INPUT OUTPUT`, and batches with `-o DIR`.
//
// One file: read the recipe (and check it) → read the input's header → compile → render,
// encode and write atomically. `-` reads standard input or writes standard output.
//
// A batch (BatchRunner.swift) runs its files through one Renderer, so its worker pool and decode
// cache are shared (a watermark is decoded once for the whole batch), with up to --jobs files in
// flight; BatchOptions.swift lists its options.

import ArgumentParser
import FilterGraph
import Foundation
import ImageCodecs

/// The default subcommand.
struct Run: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "run",
    abstract: "Applies a recipe to an image, or to many (the default subcommand).",
    discussion: """
      fgrun RECIPE INPUT OUTPUT          one file; the format follows OUTPUT's extension
      fgrun -e 'TEXT' INPUT OUTPUT       an inline recipe (';' separates lines)
      fgrun RECIPE OUTPUT                a recipe that makes its image (it starts with solid,
                                         load or text and never names 'input') needs no INPUT
      fgrun RECIPE INPUT... -o DIR       a batch: DIR/<input name>.<--format or input's extension>
      fgrun RECIPE --manifest LIST [-o DIR]  a batch from a list: INPUT or INPUT<TAB>OUTPUT a line
      INPUT or OUTPUT '-'                standard input / standard output

      A batch reports each file and goes on after a failure; it ends with a summary and exit
      status 1 if any file failed. See 'fgrun --help' for all exit codes.

      Warnings (a damaged input a decoder patched up, a profile that cannot be used) are printed,
      listed on the file's --report line and counted in the summary: '198 ok (1 damaged), 2 failed'.
      --fail-on decides which of them fail a file instead: none (the default, as libvips: the
      picture that is left is written), damaged, or warning. A refused file is not written; for
      one file fgrun exits 65.
      """)

  @Option(
    name: [.customShort("e"), .customLong("expression")],
    help: ArgumentHelp("Recipe text given inline; the arguments are then INPUT OUTPUT (or INPUT... -o DIR).", valueName: "recipe"))
  var expression: String?

  @Option(
    name: [.customShort("o"), .customLong("output-dir")],
    help: ArgumentHelp("Batch mode: write every result into this folder (created if missing).", valueName: "dir"))
  var outputDirectory: String?

  @Flag(help: "Print time per stage, decodes, cache hits and peak memory to standard error.")
  var stats = false

  @Option(
    name: .customLong("fail-on"),
    help: ArgumentHelp(
      "Which warnings fail a file, which is then not written: none (default: every warning is reported, damaged files are written and counted), damaged (a decoder patched up corrupt or truncated data), warning (any).",
      valueName: "none|damaged|warning"))
  var failOn: FailOn = FailOn.standard

  @OptionGroup var engine: EngineOptions
  @OptionGroup(title: "Batches") var batch: BatchOptions
  @OptionGroup var output: OutputOptions
  @OptionGroup(title: "Animations") var animation: AnimationFlags

  @Argument(help: ArgumentHelp(
    "RECIPE INPUT OUTPUT; RECIPE INPUT... with -o; no RECIPE with -e.", valueName: "files"))
  var files: [String] = []

  /// The recipe path (nil with -e), the inputs, and the output (nil for a batch).
  private var layout: (recipe: String?, inputs: [String], output: String?) {
    var rest = files[...]
    let recipe = expression == nil ? rest.popFirst() : nil
    if isBatch { return (recipe, Array(rest), nil) }
    let out = rest.popLast()
    return (recipe, Array(rest), out)
  }

  /// True for a batch: `-o DIR` or `--manifest`.
  private var isBatch: Bool { outputDirectory != nil || batch.manifest != nil }

  func validate() throws {
    let needed = expression == nil ? "RECIPE INPUT" : "INPUT"
    if batch.manifest != nil {
      if expression == nil && layout.recipe == nil { throw ValidationError("Give RECIPE --manifest FILE (or -e TEXT --manifest FILE).") }
    } else if outputDirectory != nil {
      let (_, inputs, _) = layout
      guard !inputs.isEmpty else { throw ValidationError("Give \(needed)... -o DIR.") }
      if inputs.contains("-") { throw ValidationError("A batch (-o) reads files; '-' (standard input) is for one file.") }
    } else if batch.isUsed {
      throw ValidationError("--shard, --resume, --report, --jobs, --memory and --timeout are for batches (-o DIR or --manifest).")
    }
    // One file's argument count and a manifest's stray inputs are checked in `run`, after the
    // parser has reported an unknown option (`--qualty 80` leaves its value among the files)
    // with its did-you-mean.
  }

  /// One file: throws unless the arguments are RECIPE INPUT OUTPUT (or INPUT OUTPUT with -e), or
  /// RECIPE OUTPUT (OUTPUT with -e) for a recipe that needs no input.
  private func checkFileCount(_ source: RecipeSource) throws {
    let count = expression == nil ? 3 : 2
    if files.count == count - 1, (try? source.recipe.needsInput()) == false { return }
    let needed = expression == nil ? "RECIPE INPUT" : "INPUT"
    guard files.count == count else {
      throw ValidationError(
        files.count < count
          ? "Give \(needed) OUTPUT (or \(needed)... -o DIR for a batch); only a recipe that makes its image (starting with solid, load or text) needs no INPUT."
          : "Too many arguments: give \(needed) OUTPUT, or use -o DIR for a batch.")
    }
  }

  func run() throws {
    if !isBatch && expression == nil && files.isEmpty { throw ValidationError("Give RECIPE INPUT OUTPUT (or RECIPE INPUT... -o DIR for a batch).") }
    if batch.manifest != nil && !layout.inputs.isEmpty {
      throw ValidationError("Give the inputs either in --manifest or on the command line, not both.")
    }
    var stats = Stats()
    let (recipePath, inputs, outputPath) = layout
    var loaded: RecipeSource?
    try runReportingFailures {
      loaded = try stats.time(\.recipeSeconds) { try RecipeSource.load(path: recipePath, text: expression) }
      return ExitStatus.ok
    }
    guard let source = loaded else { return }
    if !isBatch { try checkFileCount(source) }
    try runReportingFailures {
      let relay = WarningRelay()
      let renderer = engine.makeRenderer(relay: relay)
      let protection = InputProtection()
      protection.protect(recipe: source, path: recipePath, loadOptions: engine.loadOptions)
      let status: Int32
      var budget: MemoryBudget?
      if isBatch {
        let limit = MemoryBudget(limit: (batch.memory ?? BatchOptions.defaultMemoryMiB) << 20)
        budget = limit
        status = try runBatch(
          source, inputs: inputs, renderer: renderer, relay: relay, budget: limit, protection: protection, stats: &stats)
      } else if let input = inputs.first {
        try protection.claimSingleRun(input: input, output: outputPath!)
        try runOne(source, input: input, output: outputPath!, renderer: renderer, stats: &stats)
        status = ExitStatus.ok
      } else {
        if outputPath == "-" { try protection.claimStandardOutput() } else { try protection.claim(URL(fileURLWithPath: outputPath!)) }
        try stats.time(\.renderSeconds) { try runGenerated(source, output: outputPath!, renderer: renderer) }
        status = ExitStatus.ok
      }
      if self.stats { stats.report(renderer: renderer, budget: budget) }
      return status
    }
  }

  // MARK: - One file

  private func runOne(
    _ source: RecipeSource, input inputPath: String, output outputPath: String, renderer: Renderer, stats: inout Stats
  ) throws {
    let context = source.context(loadOptions: engine.loadOptions)
    var job = RenderJob(
      input: inputPath == "-" ? .handle(.standardInput) : .file(URL(fileURLWithPath: inputPath)),
      destination: outputPath == "-" ? .handle(.standardOutput) : .file(URL(fileURLWithPath: outputPath)),
      options: output.writeOptions, loadOptions: try output.flags.inputLoadOptions(engine.loadOptions)
    ) { try source.recipe.compile(input: $0, context: context) }
    try animation.apply(to: &job)
    do {
      var prepared = try job.prepare(on: renderer)
      let name = inputPath == "-" ? "standard input" : URL(fileURLWithPath: inputPath).lastPathComponent
      try animation.check(prepared, input: name) { Console.error("fgrun: warning: \($0)") }
      // The frame loop allocates frame after frame (MallocSettings.swift).
      if try prepared.writesAnimation() { fixMallocMapThreshold(256 << 10) }
      prepared.options.formatOptions = try output.flags.encodeValues(for: prepared.outputFormat())
      let result = try prepared.render(vet: { warnings, damage in
        if let refusal = failOn.refusal(warnings: warnings, damage: damage) { throw refusal }
      })
      stats.add(result.timings)
      if let target = result.target { Console.error("fgrun: \(outputPath == "-" ? "standard output" : outputPath): \(target)") }
    } catch {
      throw Failure(error, making: outputPath)
    }
  }

  /// A recipe that makes its image from nothing, written to `outputPath` ('-': standard output,
  /// in the --format asked for).
  private func runGenerated(_ source: RecipeSource, output outputPath: String, renderer: Renderer) throws {
    let image: Image
    do {
      image = try source.recipe.compile(context: source.context(loadOptions: engine.loadOptions))
    } catch {
      throw Failure(error, stage: .recipe)
    }
    let url = outputPath == "-" ? nil : URL(fileURLWithPath: outputPath)
    guard let format = output.requestedFormat ?? url.flatMap({ ImageFileFormat(pathExtension: $0.pathExtension) }) else {
      throw Failure(
        status: ExitStatus.usage,
        message: "A recipe with no input has no format to keep: name the output \(CodecRegistry.writableExtensions), or give --format.")
    }
    var options = output.writeOptions
    options.format = format
    options.formatOptions = try output.flags.encodeValues(for: format)
    do {
      if let url {
        try renderer.write(image, to: url, options: options)
      } else {
        FileHandle.standardOutput.write(try renderer.encode(image, format: format, options: options))
      }
    } catch {
      throw Failure(error, making: outputPath)
    }
  }

  // MARK: - Batch

  private func runBatch(
    _ source: RecipeSource, inputs: [String], renderer: Renderer, relay: WarningRelay, budget: MemoryBudget, protection: InputProtection,
    stats: inout Stats
  ) throws -> Int32 {
    var folder: URL?
    if let outputDirectory {
      folder = URL(fileURLWithPath: outputDirectory, isDirectory: true)
      do {
        try FileManager.default.createDirectory(at: folder!, withIntermediateDirectories: true)
      } catch {
        throw Failure(status: ExitStatus.output, message: "Cannot create the output folder \(outputDirectory): \(error.localizedDescription)")
      }
    }
    let shard = batch.shard
    let terminal = Console.errorIsTerminal
    let manifest = try batch.manifest.map { try Manifest(path: $0, maxBytes: engine.loadOptions.limits.maxInputBytes) }
    if let manifest { try protection.protect(manifest: manifest) }
    for input in inputs { protection.protect(input, as: "the input") }
    // The report is opened for appending at once: it is checked before.
    if let report = batch.report { try protection.claim(URL(fileURLWithPath: report), as: "the report") }
    if batch.resume, let path = batch.report {
      // This run reports every one of its inputs again: their earlier lines go.
      let rerun: Set<UInt64>
      if let manifest {
        rerun = manifest.inputHashes(shard: shard)
      } else {
        rerun = Set(inputs.filter { shard?.contains($0) ?? true }.map(Shard.hash))
      }
      try BatchReport.removeLines(at: path) { rerun.contains(Shard.hash($0)) }
    }
    let report = try batch.report.map { try BatchReport(path: $0) }
    let settings = BatchRunner.Settings(
      folder: folder, jobs: batch.jobs ?? BatchOptions.defaultJobs, budget: budget, timeout: batch.timeout, resume: batch.resume,
      failOn: failOn, digest: ResumeDigest(source: source, output: output, animation: animation, failOn: failOn, strict: engine.strict), protection: protection)
    let status: Int32
    if let manifest {
      let reader = try manifest.lines()
      let total = terminal ? manifest.count(shard: shard) : nil
      let progress = BatchProgress(total: total, terminal: terminal, countsSkipped: batch.resume)
      let runner = try BatchRunner(
        source: source, renderer: renderer, output: output, animation: animation, loadOptions: engine.loadOptions, settings: settings,
        report: report, progress: progress)
      relay.attach(progress)
      progress.endOnInterrupt()
      status = runner.run(reader.lazy.filter { shard?.contains($0.input) ?? true })
      progress.summary()
      stats.add(runner.stageTimes)
      if let error = reader.readError { throw Failure(status: ExitStatus.input, message: error) }
    } else {
      let items = inputs.map { BatchItem(input: $0, output: nil) }.filter { shard?.contains($0.input) ?? true }
      let progress = BatchProgress(total: items.count, terminal: terminal, countsSkipped: batch.resume)
      let runner = try BatchRunner(
        source: source, renderer: renderer, output: output, animation: animation, loadOptions: engine.loadOptions, settings: settings,
        report: report, progress: progress)
      relay.attach(progress)
      progress.endOnInterrupt()
      status = runner.run(items)
      progress.summary()
      stats.add(runner.stageTimes)
    }
    return status
  }
}
