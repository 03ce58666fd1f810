// Serve.swift — `fgrun serve`: an imgproxy-compatible image server (the ImageServer library;
// docs/Server.md). Every flag can also be given as an FGRUN_* environment variable (12-factor):
// `--max-age 60` or FGRUN_MAX_AGE=60; list flags take a comma-separated variable. Flags win.

import ArgumentParser
import Foundation
import Locking
import ImageCodecs
import ImageServer
import Logging

/// Runs the image server until SIGTERM or SIGINT.
struct Serve: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Serves imgproxy-style image URLs over HTTP (see docs/Server.md).",
    discussion: """
      URLs: /SIGNATURE/OPTIONS/plain/SOURCE@EXT or /SIGNATURE/OPTIONS/BASE64_SOURCE.EXT, for example
        /SIG/rs:fit:800:600/q:80/plain/local:///photos/cat.jpg@webp
      Signatures are imgproxy's: URL-safe Base64 of HMAC-SHA256(key, salt + path).
      Routes: /health, /ready, /metrics (Prometheus). SIGTERM drains requests in flight.
      Every option also reads FGRUN_<NAME> (FGRUN_BIND, FGRUN_ROOT, FGRUN_KEY, FGRUN_SALT…).

      Example:
        fgrun serve --root ~/photos --key 943b421c9eb07c83 --salt 520f986b998545b4 --bind 127.0.0.1:8080
      """)

  @Option(help: ArgumentHelp("The address and port to listen on (FGRUN_BIND).", valueName: "address:port"))
  var bind: String?

  @Option(help: ArgumentHelp("The folder local:/// sources are read from (FGRUN_ROOT).", valueName: "dir"))
  var root: String?

  @Option(help: ArgumentHelp("A signing key in hex; repeat with --salt for rotation (FGRUN_KEY).", valueName: "hex"))
  var key: [String] = []

  @Option(help: ArgumentHelp("The salt in hex paired with the --key of the same position (FGRUN_SALT).", valueName: "hex"))
  var salt: [String] = []

  @Flag(help: "Serve URLs whatever their signature (FGRUN_ALLOW_UNSIGNED=1). Never on a public address.")
  var allowUnsigned = false

  @Option(help: ArgumentHelp("The folder of recipes `recipe:NAME` may name (FGRUN_RECIPES).", valueName: "dir"))
  var recipes: String?

  @Option(help: ArgumentHelp("The image the `watermark` option places (FGRUN_WATERMARK).", valueName: "file"))
  var watermark: String?

  @Option(help: ArgumentHelp("Allow http(s) sources starting with this prefix; repeatable (FGRUN_ALLOW_SOURCE).", valueName: "prefix"))
  var allowSource: [String] = []

  @Option(help: ArgumentHelp("Allow remote sources in this private or loopback network; repeatable (FGRUN_ALLOW_NETWORK).", valueName: "cidr"))
  var allowNetwork: [String] = []

  @Option(help: ArgumentHelp("The largest source file in MiB (FGRUN_MAX_SOURCE_MB; default 64).", valueName: "mib"))
  var maxSourceMb: Int?

  @Option(help: ArgumentHelp("The largest source in megapixels, from its header (FGRUN_MAX_SOURCE_MP; default 100).", valueName: "mp"))
  var maxSourceMp: Double?

  @Option(help: ArgumentHelp("The largest output in megapixels (FGRUN_MAX_OUTPUT_MP; default 50).", valueName: "mp"))
  var maxOutputMp: Double?

  @Option(help: ArgumentHelp("Seconds a request may take (FGRUN_TIMEOUT; default 30).", valueName: "s"))
  var timeout: Double?

  @Option(help: ArgumentHelp("Seconds fetching a remote source may take (FGRUN_FETCH_TIMEOUT; default 10).", valueName: "s"))
  var fetchTimeout: Double?

  @Option(help: ArgumentHelp("Redirects followed for a remote source (FGRUN_MAX_REDIRECTS; default 5).", valueName: "n"))
  var maxRedirects: Int?

  @Option(help: ArgumentHelp("MiB the renders in flight may hold, by the Renderer's estimates (FGRUN_MEMORY; default 1024).", valueName: "mib"))
  var memory: Int?

  @Option(help: ArgumentHelp("Renders in flight at once (FGRUN_MAX_RENDERS; default: one per core).", valueName: "n"))
  var maxRenders: Int?

  @Option(help: ArgumentHelp("Seconds a request waits for a source slot and memory before 429 (FGRUN_QUEUE_WAIT; default 10).", valueName: "s"))
  var queueWait: Double?

  @Option(help: ArgumentHelp("Requests that may wait at once; more get 429 at once (FGRUN_MAX_QUEUED; default 64).", valueName: "n"))
  var maxQueued: Int?

  @Option(help: ArgumentHelp("Seconds a connection may go without a complete request head, or idle, before it is closed (FGRUN_IDLE_TIMEOUT; default 10).", valueName: "s"))
  var idleTimeout: Double?

  @Option(help: ArgumentHelp("Connections open at once; more get 503 (FGRUN_MAX_CONNECTIONS; default: the descriptor limit less 1024).", valueName: "n"))
  var maxConnections: Int?

  @Option(help: ArgumentHelp("Formats chosen from Accept when the URL names none, best first (FGRUN_ACCEPT_FORMATS; default webp).", valueName: "list"))
  var acceptFormats: String?

  @Option(help: ArgumentHelp("Cache-Control max-age in seconds (FGRUN_MAX_AGE; default 31536000).", valueName: "s"))
  var maxAge: Int?

  @Flag(help: "Keep all metadata by default (FGRUN_KEEP_METADATA=1); otherwise only the colour profile, as imgproxy.")
  var keepMetadata = false

  @Option(help: ArgumentHelp("Renderer threads (FGRUN_THREADS; default: one per core).", valueName: "n"))
  var threads: Int?

  @Option(help: ArgumentHelp("Seconds requests in flight get after SIGTERM (FGRUN_SHUTDOWN_GRACE; default 25).", valueName: "s"))
  var shutdownGrace: Double?

  func run() throws {
    var asked = try makeConfiguration(environment: ProcessInfo.processInfo.environment)
    fixMallocMapThreshold()
    // Threads are counted before NIO or libdispatch starts any (ServerThreads.swift): a server
    // the system gives too few says so and exits 71, instead of dying or never answering.
    let threads: ServerThreads
    do {
      threads = try ServerThreads.fitted(rendererThreads: asked.threads)
    } catch {
      FileHandle.standardError.write(Data("fgrun serve: \(error)\n".utf8))
      throw ExitCode(ExitStatus.system)
    }
    threads.apply()
    asked.threads = threads.rendererThreads
    let configuration = asked
    var logger = Logger(label: "fgrun.serve")
    logger.logLevel = .info
    if let shortfall = threads.shortfall { logger.warning("\(shortfall)") }
    let server: ImageServer
    do {
      server = try ImageServer(configuration: configuration, logger: logger)
    } catch {
      FileHandle.standardError.write(Data("fgrun serve: \(error)\n".utf8))
      throw ExitCode(64)
    }
    // How the server's task ended, handed to this blocked thread.
    let outcome = Monitor<Result<Void, Error>?>(nil)
    let log = logger
    Task {
      do {
        try await server.run { port in log.info("listening", metadata: ["address": "\(configuration.host):\(port)"]) }
        outcome.update { $0 = .success(()) }
      } catch {
        outcome.update { $0 = .failure(error) }
      }
    }
    if case .failure(let error) = outcome.withLock(waitingUntil: { $0 != nil }, { $0! }) {
      FileHandle.standardError.write(Data("fgrun serve: \(error)\n".utf8))
      throw ExitCode(70)
    }
  }

  /// The configuration from the flags, then FGRUN_* variables, then defaults.
  func makeConfiguration(environment: [String: String]) throws -> ServerConfiguration {
    func env(_ name: String) -> String? { environment["FGRUN_" + name].flatMap { $0.isEmpty ? nil : $0 } }
    func list(_ given: [String], _ name: String) -> [String] {
      given.isEmpty ? (env(name)?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } ?? []) : given
    }
    func number<T: LosslessStringConvertible>(_ given: T?, _ name: String) throws -> T? {
      if let given { return given }
      guard let text = env(name) else { return nil }
      guard let value = T(text) else { throw ValidationError("FGRUN_\(name) must be a number, not '\(text)'.") }
      return value
    }
    func flag(_ given: Bool, _ name: String) -> Bool { given || ["1", "true", "yes"].contains(env(name)?.lowercased() ?? "") }

    var c = ServerConfiguration()
    let address = bind ?? env("BIND") ?? "127.0.0.1:8080"
    guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]), (0...65535).contains(port) else {
      throw ValidationError("--bind must be ADDRESS:PORT, not '\(address)'.")
    }
    c.host = String(address[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
    c.port = port
    c.root = (root ?? env("ROOT")).map { URL(fileURLWithPath: $0) }
    let keys = list(key, "KEY"), salts = list(salt, "SALT")
    guard keys.count == salts.count else { throw ValidationError("Give one --salt for each --key (\(keys.count) keys, \(salts.count) salts).") }
    c.signingKeys = try zip(keys, salts).map { k, s in
      guard let pair = SigningKey(hexKey: k, hexSalt: s) else { throw ValidationError("--key and --salt must be hex (an even number of 0-9a-f digits).") }
      return pair
    }
    c.allowsUnsigned = flag(allowUnsigned, "ALLOW_UNSIGNED")
    c.recipesDirectory = (recipes ?? env("RECIPES")).map { URL(fileURLWithPath: $0) }
    c.watermarkFile = (watermark ?? env("WATERMARK")).map { URL(fileURLWithPath: $0) }
    c.allowedSourcePrefixes = list(allowSource, "ALLOW_SOURCE")
    c.allowedPrivateNetworks = try list(allowNetwork, "ALLOW_NETWORK").map {
      guard let network = IPNetwork($0) else { throw ValidationError("--allow-network must be an address or CIDR, not '\($0)'.") }
      return network
    }
    if let v: Int = try number(maxSourceMb, "MAX_SOURCE_MB") { c.maxSourceBytes = try positive(v, "max-source-mb") << 20 }
    if let v: Double = try number(maxSourceMp, "MAX_SOURCE_MP") { c.maxSourcePixels = Int(try positive(v, "max-source-mp") * 1e6) }
    if let v: Double = try number(maxOutputMp, "MAX_OUTPUT_MP") { c.maxOutputPixels = Int(try positive(v, "max-output-mp") * 1e6) }
    if let v: Double = try number(timeout, "TIMEOUT") { c.requestTimeout = try positive(v, "timeout") }
    if let v: Double = try number(fetchTimeout, "FETCH_TIMEOUT") { c.fetchTimeout = try positive(v, "fetch-timeout") }
    if let v: Int = try number(maxRedirects, "MAX_REDIRECTS") { c.maxRedirects = max(0, v) }
    if let v: Int = try number(memory, "MEMORY") { c.memoryBudget = try positive(v, "memory") << 20 }
    if let v: Int = try number(maxRenders, "MAX_RENDERS") { c.maxRenders = try positive(v, "max-renders") }
    if let v: Double = try number(queueWait, "QUEUE_WAIT") { c.admissionWait = max(0, v) }
    if let v: Int = try number(maxQueued, "MAX_QUEUED") { c.maxQueued = max(0, v) }
    if let v: Double = try number(idleTimeout, "IDLE_TIMEOUT") { c.idleTimeout = try positive(v, "idle-timeout") }
    if let v: Int = try number(maxConnections, "MAX_CONNECTIONS") { c.maxConnections = try positive(v, "max-connections") }
    if let text = acceptFormats ?? env("ACCEPT_FORMATS") {
      c.negotiatedFormats = try text.split(separator: ",").map {
        guard let format = ImageFileFormat(pathExtension: String($0).trimmingCharacters(in: .whitespaces)) else {
          throw ValidationError("--accept-formats: '\($0)' is not a format (`fgrun formats`).")
        }
        return format
      }
    }
    if let v: Int = try number(maxAge, "MAX_AGE") { c.cacheMaxAge = max(0, v) }
    c.keptMetadata = flag(keepMetadata, "KEEP_METADATA") ? .all : .colorProfileOnly
    if let v: Int = try number(threads, "THREADS") { c.threads = try positive(v, "threads") }
    if let v: Double = try number(shutdownGrace, "SHUTDOWN_GRACE") { c.shutdownGrace = max(0, v) }
    c.version = FGRun.version
    return c
  }

  private func positive<T: Numeric & Comparable>(_ value: T, _ name: String) throws -> T {
    guard value > 0 else { throw ValidationError("--\(name) must be more than 0.") }
    return value
  }
}

