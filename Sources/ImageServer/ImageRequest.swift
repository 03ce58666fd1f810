// ImageRequest.swift — one image request from URL to bytes:
//
//   signature (403) → URL grammar and options (400) → source reference (403/404, nothing read)
//   → format choice → ETag; If-None-Match → 304 (nothing fetched, nothing rendered)
//   → a source slot (429; one per render in flight and one more, so waiting requests hold no
//   source bytes) → fetch (413/502/504) → header and graph (413/422/400) → admission (429)
//   → render → 200,
//   with a Render-Warning header per warning the render gave
//
// The whole request runs under `requestTimeout` (504); past it, or when the client goes away,
// the render's task is cancelled and stops at its next tile.

import Crypto
import FilterGraph
import Foundation
import HTTPTypes
import Hummingbird

extension ImageServer {
  /// Answers one image request.
  func respond(to request: Request) async throws -> Response {
    let rawPath = request.uri.path
    let (path, options) = try checkedURL(rawPath)
    let reference = try countingSourceErrors { try sourceReference(path.source) }
    let choice = try formatChoice(path, options, accept: request.headers[.accept])
    let etag = entityTag(source: reference.identity, path: path, choice: choice)
    var headers = cacheHeaders(etag: etag, lastModified: reference.lastModified, variesWithAccept: choice.variesWithAccept)
    if let match = request.headers[.ifNoneMatch], Self.matches(match, etag: etag) {
      metrics.notModifiedResponse()
      return Response(status: .notModified, headers: headers)
    }
    let clock = ContinuousClock(), arrived = clock.now
    try await sourceSlots.acquire(0)
    var waited = clock.now - arrived
    let bytes: SourceBytes, result: RenderResult
    do {
      bytes = try await fetch(reference)
      metrics.sourceBytes(bytes.data.count)
      let job = try prepareRender(bytes.data, options: options, format: choice)
      let estimate = job.estimatedMemory
      let prepared = clock.now
      try await admission.acquire(estimate, waitingAtMost: configuration.admissionWait - waited / .seconds(1))
      waited += clock.now - prepared
      metrics.queueWait(waited)
      do {
        result = try await metrics.render { try await render(job) }
        await admission.release(estimate)
      } catch {
        await admission.release(estimate)
        throw error
      }
      await sourceSlots.release(0)
    } catch {
      await sourceSlots.release(0)
      throw error
    }
    headers[.contentType] = FormatChoice.mediaType(result.format)
    if reference.lastModified == nil, let modified = bytes.lastModified { headers[.lastModified] = HTTPDate.format(modified) }
    for warning in result.warnings { headers.append(HTTPField(name: .renderWarning, value: Self.headerValue(warning))) }
    if !result.warnings.isEmpty { logger.warning("render warnings", metadata: ["path": "\(rawPath.prefix(200))", "warnings": "\(result.warnings)"]) }
    let output = result.data ?? Data()
    return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: output)))
  }

  /// The signature checked (403), then the URL split and its options read (400).
  func checkedURL(_ rawPath: String) throws -> (ProcessingPath, ProcessingOptions) {
    if !configuration.allowsUnsigned {
      let (signature, signedPart) = ProcessingPath.signature(of: rawPath)
      guard signer.isValid(signature: signature, path: signedPart) else {
        throw ServerError.forbidden("The URL's signature is missing or wrong.")
      }
    }
    let path = try ProcessingPath(rawPath)
    return (path, try ProcessingOptions(path.options))
  }

  /// The output format the URL names or `accept` negotiates (400 for one not written).
  func formatChoice(_ path: ProcessingPath, _ options: ProcessingOptions, accept: String?) throws -> FormatChoice {
    try FormatChoice.decide(named: options.format ?? path.fileExtension, accept: accept, offered: configuration.negotiatedFormats)
  }

  /// The graph the request path `rawPath` asks for, applied to `image` in place of its source,
  /// after the checks a request gets before its source is read: signature (403), grammar and
  /// options (400), output format (400). The source the URL names is neither checked nor read,
  /// and nothing is rendered: the URL's whole effect on the graph, for the fuzzer
  /// (Fuzz/Targets/fuzz-server-url).
  ///
  /// - Throws: `ServerError` as the request would answer it.
  public func plan(path rawPath: String, accept: String? = nil, on image: Image) throws -> Image {
    let (path, options) = try checkedURL(rawPath)
    _ = try formatChoice(path, options, accept: accept)
    return try options.apply(to: image, resources: resources)
  }

  /// Where the source is, checked (nothing read).
  private func sourceReference(_ source: String) throws -> SourceReference {
    if source.hasPrefix("local://") {
      guard let local else { throw ServerError.forbidden("local:// sources are not enabled on this server (--root).") }
      return try local.reference(String(source.dropFirst("local://".count)))
    }
    if source.hasPrefix("http://") || source.hasPrefix("https://") {
      guard let remote else { throw ServerError.forbidden("http(s) sources are not enabled on this server (--allow-source).") }
      return try remote.reference(source)
    }
    throw ServerError.badURL("The source '\(source.prefix(100))' is neither local:///PATH nor an http(s) URL.")
  }

  /// The source's bytes.
  private func fetch(_ reference: SourceReference) async throws -> SourceBytes {
    do {
      switch reference.location {
      case .file(let url):
        guard let local else { throw ServerError.forbidden("local:// sources are not enabled.") }
        return try local.read(url)
      case .remote(let url):
        guard let remote else { throw ServerError.forbidden("http(s) sources are not enabled.") }
        return try await remote.fetch(url)
      }
    } catch let error as ServerError {
      metrics.sourceError(String(error.status))
      throw error
    }
  }

  /// `body`, counting the source errors it throws by status.
  private func countingSourceErrors<T>(_ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as ServerError {
      metrics.sourceError(String(error.status))
      throw error
    }
  }

  /// A strong ETag: a digest of the server version, the source's identity, the options and
  /// source as written, and the format choice.
  func entityTag(source identity: String, path: ProcessingPath, choice: FormatChoice) -> String {
    let options = path.options.map { $0.joined(separator: ":") }.joined(separator: "/")
    let text = [configuration.version, identity, options, choice.key].joined(separator: "\n")
    let digest = SHA256.hash(data: Array(text.utf8))
    return "\"" + digest.prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
  }

  /// ETag, Cache-Control, Last-Modified and Vary, for 200 and 304 alike.
  private func cacheHeaders(etag: String, lastModified: Date?, variesWithAccept: Bool) -> HTTPFields {
    var headers: HTTPFields = [.eTag: etag, .cacheControl: "public, max-age=\(configuration.cacheMaxAge)"]
    if let lastModified { headers[.lastModified] = HTTPDate.format(lastModified) }
    if variesWithAccept { headers[.vary] = "Accept" }
    return headers
  }

  /// True when an If-None-Match header lists `etag` (or is `*`).
  static func matches(_ header: String, etag: String) -> Bool {
    header.split(separator: ",").contains { tag in
      let t = tag.trimmingCharacters(in: .whitespaces)
      return t == "*" || t == etag || t == "W/" + etag
    }
  }
}

extension HTTPField.Name {
  /// One per warning a render gave (a decoder recovered from damaged bytes, a colour problem was
  /// worked around): the image may look fine and still be wrong.
  static let renderWarning = HTTPField.Name("Render-Warning")!
}

extension ImageServer {
  /// `text` as a header value: printable ASCII only (anything else becomes `?`), at most 300 characters.
  static func headerValue(_ text: String) -> String {
    String(String(text.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" }).prefix(300))
  }
}
