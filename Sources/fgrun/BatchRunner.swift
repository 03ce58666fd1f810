// BatchRunner.swift — a batch: items from the command line or a manifest, up to `jobs` files in
// flight on the one renderer, each written atomically, skipped when already done (--resume),
// limited in time (--timeout) and reported line by line (--report).
//
// Every file is rendered through the one Renderer, so its worker pool and its decode cache are
// shared (a watermark is decoded once per batch); a file's own decoded pixels leave the cache
// when it is done, so the cache holds only what the files share. With `jobs` > 1 the serial
// stages of one file (reading it, entropy decoding, encoding bands in order) overlap the tiles of
// the others, which all run on the same pool: memory holds at most `jobs` files' working sets
// plus the shared sources, and the files' estimated working sets together stay within `--memory`
// (MemoryBudget.swift: a file waits, once compiled, until its estimate fits beside the others').
// Items are pulled from the manifest only as a slot frees up, so the list itself is never held in
// memory.
//
// A file's stages outside its render use no worker: reading the input and compiling the recipe
// before, flushing the output and its folder to disk (`OutputFile`'s two fsyncs, milliseconds on
// a real disk) after. So one more file than `jobs` is open: while `jobs` files render, the next is
// read and compiled, or a finished one is flushed, and a render slot passes on as soon as a
// file's bytes are written, not once they are durable. The report still says `ok` only once the
// output and its folder entry are on disk.
//
// A file past its time limit is reported failed at once; its render stops at its next tile (the
// tiles running finish, the others are dropped), its output is never linked into place, and only
// then does its slot go to the next file, so memory stays bounded. A file that has not stopped
// while the worker pool stayed idle as long again (at most 5 s) computes nothing: it is stuck in
// a system call no tile check reaches — a write to a named pipe whose reader stopped reading, a
// read from a stalled pipe or network file — and is abandoned: its slots go on, the batch ends
// without it, and the process's exit ends its thread. The limit is wall time, which
// includes waiting for the shared pool behind the other files in flight. Every output carries a
// record of what made it (OutputRecord.swift); `--resume` skips a file whose output exists with
// the record this run would write, and makes the others again. `--fail-on` (FailOn.swift) refuses
// a file whose warnings it names before its output is moved into place.

import FilterGraph
import Foundation
import Locking
import ImageCodecs

#if canImport(Glibc)
  import Glibc
#endif

/// Runs a batch and reports every file.
final class BatchRunner: Sendable {
  /// How a batch runs.
  struct Settings {
    /// `-o DIR` for items without an output of their own.
    var folder: URL?
    /// Files rendering at once; one more may be open, being read or flushed to disk.
    var jobs: Int
    /// The bytes the files in flight may hold together by estimate.
    var budget: MemoryBudget
    /// Per-file limit in seconds.
    var timeout: Double?
    /// Skip finished outputs.
    var resume: Bool
    /// What fails a file besides errors.
    var failOn: FailOn
    /// The digest of the recipe and options, recorded with every output.
    var digest: ResumeDigest
    /// The files the run reads, which no output may replace, and the outputs claimed so far.
    var protection: InputProtection
  }

  private let source: RecipeSource
  private let renderer: Renderer
  let output: OutputOptions
  let settings: Settings
  private let context: FilterContext
  private let inputOptions: LoadOptions
  /// --frames, --frame, --fps, --speed.
  private let animation: AnimationFlags
  private let report: BatchReport?
  let progress: BatchProgress
  /// Files rendering at once (`jobs`), besides the one more that may be reading and compiling its
  /// input or flushing its output.
  private let renderSlots: DispatchSemaphore
  /// What the files in flight add to as they go.
  let shared = Locked(Shared())

  struct Shared {
    var createdFolders: Set<String> = []
    /// The files' stage times, added up (`--stats`).
    var stageTimes = Stats()
    /// True once a record could not be stored (said once).
    var unrecorded = false
  }

  /// The files' stage times, added up (`--stats`).
  var stageTimes: Stats { shared.withLock { $0.stageTimes } }

  init(
    source: RecipeSource, renderer: Renderer, output: OutputOptions, animation: AnimationFlags, loadOptions: LoadOptions,
    settings: Settings, report: BatchReport?, progress: BatchProgress
  ) throws {
    self.source = source
    self.renderer = renderer
    self.output = output
    self.animation = animation
    self.settings = settings
    self.context = source.context(loadOptions: loadOptions)
    self.inputOptions = try output.flags.inputLoadOptions(loadOptions)
    self.report = report
    self.progress = progress
    self.renderSlots = DispatchSemaphore(value: settings.jobs)
  }

  /// Runs every item and returns the batch's exit status.
  func run<Items: Sequence>(_ items: Items) -> Int32 where Items.Element == BatchItem {
    fixMallocMapThreshold()
    // Each file runs on a thread of its own, started with pthread_create: a file the system
    // gives no thread (a pids cgroup, an address-space limit) runs here, on the calling thread,
    // before the next one is read, so the batch goes on one file at a time instead of waiting
    // forever for a thread (libdispatch's global queue retries a refused thread forever).
    let clock = settings.timeout == nil ? nil : BatchClock.start()
    if let timeout = settings.timeout, clock == nil {
      progress.warning(
        String(format: "the system refused the batch a timer thread; --timeout %g is checked before each tile only, so a file stuck in a read or a write is not ended.", timeout))
    }
    let refused = Locked(false)
    let slots = DispatchSemaphore(value: settings.jobs + 1)
    let group = DispatchGroup()
    for item in items {
      slots.wait()
      group.enter()
      let job = Job()
      let started = Stats.now()
      progress.begin(item.input)
      // Outputs named before the input is read are claimed here, in the list's order, so of two
      // inputs that would write one file the earlier one wins, whatever the timing.
      settings.protection.protect(item.input, as: "the input")
      let claimed = Result { try self.predictedTarget(item) }
      job.whenDone {
        slots.signal()
        group.leave()
      }
      let limit = settings.timeout.map { Limit(item: item, started: started, timeout: $0, clock: clock) }
      if let limit, let clock { watch(job, limit, clock: clock, after: limit.timeout) }
      let file: @Sendable () -> Void = {
        var outcome = self.process(item, claimed: claimed, job: job, limit: limit)
        outcome.milliseconds = (Stats.now() - started) * 1000
        if job.claim() { self.record(outcome) }
        job.done()
      }
      if !SystemThread.start(named: "fgrun file", file) {
        if !refused.withLock({ said in defer { said = true }; return said }) {
          progress.warning("the system refused a thread for a file (a limit on threads or memory); such files run one at a time.")
        }
        file()
      }
    }
    group.wait()
    return progress.failures == 0 ? ExitStatus.ok : ExitStatus.batchFailures
  }

  /// A file's time limit: `timeout` seconds of its own from `started`, checked by `clock` when
  /// there is one and by its render before each tile.
  private struct Limit: Sendable {
    let item: BatchItem
    let started: Double
    let timeout: Double
    let clock: BatchClock?
  }

  /// Fails `job` once it has used its limit, looking again `after` seconds from now. The limit
  /// counts the file's own time: a wait for a render slot (behind the other files) does not
  /// count, so when the file waited, the next look is that much later.
  private func watch(_ job: Job, _ limit: Limit, clock: BatchClock, after seconds: Double) {
    clock.after(seconds) {
      if job.expired { return }  // finished
      let used = Stats.now() - limit.started - job.slotWait()
      if used < limit.timeout { return self.watch(job, limit, clock: clock, after: limit.timeout - used) }
      self.expire(job, limit)
    }
  }

  /// True once `job` has ended or used its limit, which fails it (asked by its render before each
  /// tile, so a batch whose timer thread was refused still ends a file that computes too long).
  private func isOver(_ job: Job, _ limit: Limit?) -> Bool {
    if job.expired { return true }
    guard let limit, Stats.now() - limit.started - job.slotWait() >= limit.timeout else { return false }
    expire(job, limit)
    return true
  }

  /// Reports `job` failed for its time, unless it was reported already, and abandons it if it is
  /// stuck.
  private func expire(_ job: Job, _ limit: Limit) {
    guard job.claim() else { return }
    let message = String(format: "Took longer than --timeout %g s; abandoned, nothing written.", limit.timeout)
    var outcome = BatchOutcome(
      input: limit.item.input, output: job.target, status: .failed,
      failure: Failure(status: ExitStatus.input, message: message), milliseconds: (Stats.now() - limit.started) * 1000)
    outcome.timedOut = true
    outcome.inputBytes = fileStatus(limit.item.input).map { Int($0.st_size) }
    record(outcome)
    if let clock = limit.clock { abandonIfStuck(job, grace: min(limit.timeout, 5), clock: clock) }
  }

  /// Ends a timed-out `job` whose render has not stopped once the worker pool has been idle for
  /// `grace` seconds: no tile of it is being computed, so it is stuck in a system call (a write to
  /// a pipe whose reader stopped reading) and its slots may go on. A render still computing its
  /// last band keeps the pool busy and its slots until it stops, so that the files after it are
  /// not timed out behind it.
  private func abandonIfStuck(_ job: Job, grace: Double, clock: BatchClock, idleSince: Double? = nil) {
    let look = min(grace / 4, 0.25)
    clock.after(look) {
      guard !job.isDone else { return }
      let now = Stats.now()
      guard self.renderer.isIdle else { return self.abandonIfStuck(job, grace: grace, clock: clock) }
      let since = idleSince ?? now
      if now - since >= grace { return job.done() }
      self.abandonIfStuck(job, grace: grace, clock: clock, idleSince: since)
    }
  }

  private func record(_ outcome: BatchOutcome) {
    report?.record(outcome)
    progress.finished(outcome)
  }

  /// One file in flight: whoever claims it first (its render or its timer) reports it; whoever
  /// calls `done` first (its render, returning, or its timer, abandoning it) ends it.
  private final class Job: Sendable {
    private struct State {
      var claimed = false
      var target: String?
      var waited = 0.0
      var waitingSince: Double?
      /// What ending the file gives back (its slots), run once; nil once run.
      var ending: [@Sendable () -> Void]? = []
    }
    private let state = Locked(State())
    /// The file starts or stops waiting for a render slot.
    func waitingForSlot(_ waiting: Bool) {
      let now = Stats.now()
      state.withLock {
        if waiting {
          $0.waitingSince = now
        } else if let since = $0.waitingSince {
          $0.waited += now - since
          $0.waitingSince = nil
        }
      }
    }
    /// Seconds spent waiting for a render slot so far (including a wait in progress).
    func slotWait() -> Double {
      let now = Stats.now()
      return state.withLock { $0.waited + ($0.waitingSince.map { now - $0 } ?? 0) }
    }
    /// The output path, once known.
    var target: String? {
      get { state.withLock { $0.target } }
      set { state.withLock { $0.target = newValue } }
    }
    /// True once the job is claimed: by the timer (the render must not publish its output) or by
    /// its render, finished.
    var expired: Bool { state.withLock { $0.claimed } }
    /// Runs `body` when the file ends (at once if it has ended).
    func whenDone(_ body: @escaping @Sendable () -> Void) {
      let ended = state.withLock { state -> Bool in
        guard state.ending != nil else { return true }
        state.ending!.append(body)
        return false
      }
      if ended { body() }
    }
    /// True once the file has ended.
    var isDone: Bool { state.withLock { $0.ending == nil } }
    /// Ends the file: the first call runs what `whenDone` gave, later calls do nothing.
    func done() {
      let ending = state.withLock { state -> [@Sendable () -> Void] in
        defer { state.ending = nil }
        return state.ending ?? []
      }
      ending.forEach { $0() }
    }
    /// Claims the job; true for the first caller only.
    func claim() -> Bool {
      state.withLock {
        if $0.claimed { return false }
        $0.claimed = true
        return true
      }
    }
  }

  /// Renders one item; `claimed` is its output when named (and claimed) before its input was read,
  /// `limit` its time limit (--timeout).
  private func process(_ item: BatchItem, claimed: Result<URL?, Error>, job: Job, limit: Limit?) -> BatchOutcome {
    var outcome = BatchOutcome(input: item.input, output: nil, status: .failed, milliseconds: 0)
    let inputStatus = fileStatus(item.input)
    outcome.inputBytes = inputStatus.map { Int($0.st_size) }
    do {
      let predicted = try claimed.get()
      if let predicted, let skipped = resumed(item, target: predicted, inputStatus: inputStatus) { return skipped }
      let options = output.writeOptions
      let (recipe, context) = (source.recipe, self.context)
      var request = RenderJob(
        input: .file(URL(fileURLWithPath: item.input)), destination: predicted.map { .file($0) } ?? .memory, options: options,
        loadOptions: inputOptions
      ) { try recipe.compile(input: $0, context: context) }
      try animation.apply(to: &request)
      var prepared = try request.prepare(on: renderer)
      // No later file reads this one: its decoded pixels leave the cache (a watermark stays).
      defer { renderer.removeFromCache(prepared.source) }
      outcome.inputSize = (prepared.input.info.size.width, prepared.input.info.size.height)
      let url: URL
      if let predicted {
        url = predicted
      } else {
        url = try name(item, format: prepared.outputFormat())
        outcome.output = url.relativePath
        try claimOutput(url)
        if let skipped = resumed(item, target: url, inputStatus: inputStatus) { return skipped }
        prepared.destination = .file(url)
      }
      outcome.output = url.relativePath
      job.target = url.relativePath
      prepared.options.formatOptions = try output.flags.encodeValues(for: prepared.outputFormat())
      try animation.check(prepared, input: item.input) { progress.warning($0) }
      job.waitingForSlot(true)
      renderSlots.wait()
      job.waitingForSlot(false)
      let rendering = RenderSlot(slots: renderSlots, budget: settings.budget, bytes: prepared.estimatedMemory)
      defer { rendering.release() }
      job.whenDone { rendering.release() }
      // Once its bytes are written the file is flushed to disk, which needs no worker and no
      // render memory: the slot passes on then.
      let failOn = settings.failOn
      let result = try prepared.render(stop: { self.isOver(job, limit) }, written: { rendering.release() }) { warnings, damage in
        (outcome.warnings, outcome.damaged) = (warnings, !damage.isEmpty)
        if let refusal = failOn.refusal(warnings: warnings, damage: damage) { throw refusal }
      }
      outcome.status = .ok
      outcome.outputSize = (result.size.width, result.size.height)
      outcome.outputBytes = result.byteCount
      outcome.target = result.target
      if let inputStatus { record(OutputRecord(digest: digest(inputStatus, result.format), warnings: result.warnings, damaged: !result.damage.isEmpty), url) }
      shared.withLock { $0.stageTimes.add(result.timings) }
    } catch {
      outcome.failure = Failure(error, stage: .input)
    }
    return outcome
  }

  /// The output, claimed, when it can be told before reading the input: the manifest's, or
  /// `-o DIR` with `--format` or an input extension that names a format.
  private func predictedTarget(_ item: BatchItem) throws -> URL? {
    let url: URL
    if let path = item.output {
      url = URL(fileURLWithPath: path)
    } else {
      let ext = URL(fileURLWithPath: item.input).pathExtension
      guard let format = output.requestedFormat ?? ImageFileFormat(pathExtension: ext) else { return nil }
      url = try name(item, format: format)
    }
    try claimOutput(url)
    return url
  }

  /// `-o DIR`'s naming: DIR/<input name>.<format's extension>.
  private func name(_ item: BatchItem, format: ImageFileFormat) throws -> URL {
    guard let folder = settings.folder else {
      throw Failure(status: ExitStatus.usage, message: "This manifest line has no OUTPUT and no -o DIR was given.")
    }
    let base = URL(fileURLWithPath: item.input).deletingPathExtension().lastPathComponent
    return folder.appendingPathComponent(base + "." + format.fileExtension)
  }

  /// Creates `url`'s folder and claims `url` as this batch's (InputProtection.swift): fails when it
  /// is a file the batch reads or another input's output.
  private func claimOutput(_ url: URL) throws {
    let folder = url.deletingLastPathComponent().path
    try shared.withLock { shared in
      if !shared.createdFolders.contains(folder) {
        do {
          try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
          throw Failure(status: ExitStatus.output, message: "Cannot create the output folder \(folder): \(error.localizedDescription)")
        }
        shared.createdFolders.insert(folder)
      }
    }
    try settings.protection.claim(url)
  }
}

/// A file's turn to render: one of `--jobs` render slots (taken before it is made) and its
/// estimate in the memory budget (taken, waiting as needed, when made), given back by the first
/// `release`.
private final class RenderSlot: Sendable {
  private let slots: DispatchSemaphore
  private let budget: MemoryBudget
  private let bytes: Int
  private let held = Locked(true)

  init(slots: DispatchSemaphore, budget: MemoryBudget, bytes: Int) {
    self.slots = slots
    self.budget = budget
    self.bytes = bytes
    budget.acquire(bytes)
  }

  /// Gives the slot and the bytes back; later calls do nothing.
  func release() {
    guard held.withLock({ held in defer { held = false }; return held }) else { return }
    budget.release(bytes)
    slots.signal()
  }
}

/// `stat(2)` of `path`, nil when it does not exist.
func fileStatus(_ path: String) -> stat? {
  var status = stat()
  return stat(path, &status) == 0 ? status : nil
}
