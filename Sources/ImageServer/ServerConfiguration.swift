// ServerConfiguration.swift — everything `fgrun serve` is told at start: where it listens, what it
// may read, who may sign, and the limits that keep one request from hurting the others.

import Foundation
import ImageCodecs

/// The settings of an image server (flags and `FGRUN_*` variables of `fgrun serve`).
public struct ServerConfiguration: Sendable {
  /// The address to listen on (`127.0.0.1`, `0.0.0.0`, `::1`).
  public var host = "127.0.0.1"
  /// The port; 0 picks a free one (tests), which `ImageServer.port` then tells.
  public var port = 8080
  /// The folder `local:///` sources are read from; nil refuses them.
  public var root: URL?
  /// Key/salt pairs a signature may be made with (several at once for rotation).
  public var signingKeys: [SigningKey] = []
  /// Serve URLs without a valid signature (only when no key is given, or asked explicitly).
  public var allowsUnsigned = false
  /// The folder of recipes `recipe:NAME` may name (NAME.txt); nil refuses the option.
  public var recipesDirectory: URL?
  /// The image `watermark` places; nil refuses the option.
  public var watermarkFile: URL?
  /// URL prefixes `http(s)://` sources must start with; empty refuses every remote source.
  public var allowedSourcePrefixes: [String] = []
  /// Networks remote sources may resolve to although they are loopback, link-local or private.
  public var allowedPrivateNetworks: [IPNetwork] = []
  /// The largest source accepted, in bytes.
  public var maxSourceBytes = 64 << 20
  /// The largest source accepted, in pixels, checked from its header before any decode.
  public var maxSourcePixels = 100_000_000
  /// The largest output, in pixels, checked from the graph before any render.
  public var maxOutputPixels = 50_000_000
  /// How long a whole request may take, in seconds (504 past it).
  public var requestTimeout: Double = 30
  /// How long fetching a remote source may take, in seconds (504 past it).
  public var fetchTimeout: Double = 10
  /// Redirects followed for a remote source.
  public var maxRedirects = 5
  /// The memory renders in flight may hold together, in bytes (the Renderer's estimates).
  public var memoryBudget = 1 << 30
  /// The most renders in flight at once; more wait in the admission queue.
  public var maxRenders = ProcessInfo.processInfo.activeProcessorCount
  /// How long a request waits for a source slot and room in the budget before it is answered
  /// 429, in seconds.
  public var admissionWait: Double = 10
  /// Requests that may wait for room at once; more are answered 429 at once.
  public var maxQueued = 64
  /// Formats offered to clients whose `Accept` names them, best first, when the URL names none.
  public var negotiatedFormats: [ImageFileFormat] = [.webp]
  /// `Cache-Control: max-age` of images, in seconds.
  public var cacheMaxAge = 31_536_000
  /// The metadata outputs keep unless `strip_metadata:0` asks for all (imgproxy strips by default).
  public var keptMetadata: MetadataKindsSetting = .colorProfileOnly
  /// Renderer worker threads.
  public var threads = ProcessInfo.processInfo.activeProcessorCount
  /// Seconds a connection may go without sending a complete request head, or stay idle between
  /// requests, before it is closed (clients sending their headers slowly hold nothing longer).
  public var idleTimeout: Double = 10
  /// Connections open at once; past it a client gets 503 and is closed. By default all but 1,024 of
  /// the process's descriptor limit (the rest for sources, fetches and logs), at least 64.
  public var maxConnections = max(64, ServerConfiguration.descriptorLimit - 1024)
  /// The largest request body a client may declare (every route reads none); more gets 413 at once.
  public var maxRequestBodyBytes = 64 << 10
  /// Seconds in-flight requests get to finish after SIGTERM.
  public var shutdownGrace: Double = 25
  /// Part of every ETag: a new release re-renders everything.
  public var version = "0.1.0"

  /// Creates the default configuration.
  public init() {}

  /// The settings as `name: value` lines for the start-up log, without secrets (keys and salts
  /// are counted, never shown).
  public var summary: [(String, String)] {
    [
      ("bind", "\(host):\(port)"),
      ("root", root?.path ?? "(none: local:/// refused)"),
      ("signing", signingKeys.isEmpty ? "off" : "\(signingKeys.count) key/salt pair(s)"),
      ("allow-unsigned", String(allowsUnsigned)),
      ("recipes", recipesDirectory?.path ?? "(none)"),
      ("watermark", watermarkFile?.path ?? "(none)"),
      ("allow-source", allowedSourcePrefixes.isEmpty ? "(none: http(s) refused)" : allowedSourcePrefixes.joined(separator: " ")),
      ("allow-network", allowedPrivateNetworks.isEmpty ? "(none)" : allowedPrivateNetworks.map(\.description).joined(separator: " ")),
      ("max-source-bytes", String(maxSourceBytes)),
      ("max-source-pixels", String(maxSourcePixels)),
      ("max-output-pixels", String(maxOutputPixels)),
      ("timeout", "\(requestTimeout) s (fetch \(fetchTimeout) s, \(maxRedirects) redirects)"),
      ("memory", "\(memoryBudget >> 20) MiB, \(maxRenders) renders, wait \(admissionWait) s, queue \(maxQueued)"),
      ("accept-formats", negotiatedFormats.map(\.rawValue).joined(separator: ",")),
      ("connections", "\(maxConnections) at most, idle timeout \(idleTimeout) s, request bodies \(maxRequestBodyBytes) bytes at most"),
      ("max-age", String(cacheMaxAge)),
      ("threads", String(threads)),
    ]
  }
}

extension ServerConfiguration {
  /// The process's soft limit on open descriptors (RLIMIT_NOFILE); Int.max when unlimited.
  static var descriptorLimit: Int {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
    return limit.rlim_cur > UInt64(Int.max) ? Int.max : Int(limit.rlim_cur)  // RLIM_INFINITY is UInt64.max
  }
}

/// Which metadata outputs keep by default.
public enum MetadataKindsSetting: String, Sendable, CaseIterable {
  /// Only the ICC profile (colours stay right; EXIF, XMP, IPTC and comments go).
  case colorProfileOnly = "icc"
  /// Everything the source had.
  case all
}

/// One key/salt pair of imgproxy's signing scheme.
public struct SigningKey: Sendable, Equatable {
  /// The HMAC key.
  public var key: [UInt8]
  /// Bytes hashed before the path.
  public var salt: [UInt8]

  /// Creates a pair from bytes.
  public init(key: [UInt8], salt: [UInt8]) {
    self.key = key
    self.salt = salt
  }

  /// Creates a pair from hex text, as `--key`/`--salt` and imgproxy's variables give them; nil
  /// when either is not hex of whole bytes or the key is empty.
  public init?(hexKey: String, hexSalt: String) {
    guard let key = Self.bytes(hex: hexKey), !key.isEmpty, let salt = Self.bytes(hex: hexSalt) else { return nil }
    self.init(key: key, salt: salt)
  }

  /// The bytes of hex text (two digits a byte), or nil.
  static func bytes(hex: String) -> [UInt8]? {
    let digits = Array(hex.utf8)
    guard digits.count % 2 == 0 else { return nil }
    var out: [UInt8] = []
    out.reserveCapacity(digits.count / 2)
    var i = 0
    while i < digits.count {
      guard let high = nibble(digits[i]), let low = nibble(digits[i + 1]) else { return nil }
      out.append(high << 4 | low)
      i += 2
    }
    return out
  }

  private static func nibble(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
    default: return nil
    }
  }
}
