// XMPMerge.swift — a JPEG's main and extended XMP packets made one packet again, for formats
// whose XMP block has no 64 kB limit (PNG iTXt, WebP XMP chunk, TIFF tag 700, HEIF mime item).
//
// Definition (XMP specification part 3, 1.1.3.1: "the content of the extended XMP is merged
// into the main XMP" when a reader holds both): the result is the main packet with its
// `xmpNote:HasExtendedXMP` property removed (attribute or element form) and, before its closing
// `</rdf:RDF>`, every `rdf:Description` of the extended packet — the extended packet's text
// between its `<rdf:RDF …>` start tag and its `</rdf:RDF>` end tag, byte for byte. XMP allows a
// resource's properties to be spread over several `rdf:Description` elements (part 1, 7.4), so
// the merged packet describes the union of both packets' properties, each one's namespace
// declarations on its own element as the extension wrote them.
//
// This is a text splice, not an XML rewrite: it assumes the usual `rdf:` prefix and needs the
// markers above to be found. When they are not (no `</rdf:RDF>` in the main packet, no `rdf:RDF`
// element in the extension, text that is not UTF-8), or when the extension declares namespaces
// on its `x:xmpmeta`/`rdf:RDF` start tags that the spliced elements would lose, there is no
// merge: the caller writes the main packet alone.
import Foundation

/// Merges extended XMP into its main packet.
package enum XMPMerge {
  /// The main packet `main` with the extended packet `extended` merged into it (see the file
  /// header), or nil when the two cannot be merged safely.
  package static func merged(main: Data, extended: Data) -> Data? {
    guard var text = String(validating: [UInt8](main), as: UTF8.self),
      let extension_ = String(validating: [UInt8](extended), as: UTF8.self),
      let body = descriptions(of: extension_)
    else { return nil }
    text = removingHasExtendedXMP(text)
    guard let close = text.range(of: "</rdf:RDF>", options: .backwards) else { return nil }
    text.insert(contentsOf: body, at: close.lowerBound)
    return Data(text.utf8)
  }

  /// The text between the `<rdf:RDF …>` start tag and the `</rdf:RDF>` end tag of `packet`, or
  /// nil when they are missing or when `packet` declares namespaces (other than `x` and `rdf`)
  /// on its `x:xmpmeta` or `rdf:RDF` start tags.
  private static func descriptions(of packet: String) -> String? {
    guard let open = packet.range(of: "<rdf:RDF"),
      let openEnd = packet[open.upperBound...].firstIndex(of: ">"),
      let close = packet.range(of: "</rdf:RDF>", options: .backwards),
      openEnd < close.lowerBound
    else { return nil }
    var starts = [String(packet[open.lowerBound...openEnd])]
    if let meta = packet.range(of: "<x:xmpmeta"), meta.lowerBound < open.lowerBound,
      let metaEnd = packet[meta.upperBound...].firstIndex(of: ">")
    {
      starts.append(String(packet[meta.lowerBound...metaEnd]))
    }
    for start in starts {
      var rest = Substring(start)
      while let declaration = rest.range(of: "xmlns:") {
        let prefix = rest[declaration.upperBound...].prefix { $0 != "=" && !$0.isWhitespace }
        if prefix != "x" && prefix != "rdf" { return nil }
        rest = rest[declaration.upperBound...]
      }
    }
    return String(packet[packet.index(after: openEnd)..<close.lowerBound])
  }

  /// `packet` without its `HasExtendedXMP` property: an attribute `p:HasExtendedXMP="…"` (and the
  /// white space before it) or an element `<p:HasExtendedXMP>…</p:HasExtendedXMP>`.
  private static func removingHasExtendedXMP(_ packet: String) -> String {
    guard let name = packet.range(of: ":HasExtendedXMP") else { return packet }
    var start = name.lowerBound
    while start > packet.startIndex, case let c = packet[packet.index(before: start)], !c.isWhitespace, c != "<" {
      start = packet.index(before: start)
    }
    let qualified = packet[start..<name.upperBound]
    if start > packet.startIndex, packet[packet.index(before: start)] == "<" {
      // Element form.
      guard let end = packet.range(of: "</\(qualified)>", range: name.upperBound..<packet.endIndex) else { return packet }
      return String(packet[..<packet.index(before: start)] + packet[end.upperBound...])
    }
    // Attribute form: name = quoted value.
    var i = name.upperBound
    while i < packet.endIndex, packet[i].isWhitespace || packet[i] == "=" { i = packet.index(after: i) }
    guard i < packet.endIndex, packet[i] == "\"" || packet[i] == "'",
      let closing = packet[packet.index(after: i)...].firstIndex(of: packet[i])
    else { return packet }
    while start > packet.startIndex, packet[packet.index(before: start)].isWhitespace { start = packet.index(before: start) }
    return String(packet[..<start] + packet[packet.index(after: closing)...])
  }
}
