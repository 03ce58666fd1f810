// fuzz-server-url — the image server's URL on arbitrary bytes: the signature check, the
// imgproxy-style grammar, every option's arguments, the format choice and the graph the options
// build, on a small synthetic image in place of the source (nothing is fetched). The first byte
// picks signed (bit 0 clear: HMAC checked with a fixed key) or unsigned URLs; the rest is the
// path, then an optional Accept header after a line feed. Graphs of at most 64K pixels are
// rendered.
import FilterGraph
import Foundation
import ImageServer

/// Builds a server (nothing is opened until `run`) that does or does not check signatures.
func server(signed: Bool) -> ImageServer {
  var configuration = ServerConfiguration()
  configuration.threads = 1
  if signed {
    configuration.signingKeys = [SigningKey(hexKey: "736563726574", hexSalt: "68656C6C6F")!]
  } else {
    configuration.allowsUnsigned = true
  }
  return try! ImageServer(configuration: configuration)
}

let signedServer = server(signed: true)
let unsignedServer = server(signed: false)
let renderer = Renderer(options: RendererOptions(threads: 1))
let source = Image(color: Color(red: 0.8, green: 0.4, blue: 0.1, alpha: 0.9), size: Size(width: 24, height: 16))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  guard count > 1 else { return 0 }
  let text = String(decoding: UnsafeBufferPointer(start: start + 1, count: count - 1), as: UTF8.self)
  let lines = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
  let path = String(lines[0]), accept = lines.count > 1 ? String(lines[1]) : nil
  let server = start[0] & 1 == 0 ? signedServer : unsignedServer
  guard let image = try? server.plan(path: path, accept: accept, on: source) else { return 0 }
  if image.size.width * image.size.height <= 1 << 16 { _ = try? renderer.render(image) }
  return 0
}
