// GainMapXMP.swift — gain-map metadata in XMP, namespace `http://ns.adobe.com/hdr-gain-map/1.0/`
// (Adobe's gain map specification 1.0; the prefix is whatever the packet binds to that URI,
// usually `hdrgm`). Each field is an attribute of an rdf:Description (`hdrgm:Gamma="1"`) or an
// element, whose value is its text or, per channel, an rdf:Seq of three rdf:li. Fields: Version
// (required, "1.0"), BaseRenditionIsHDR (True/False), GainMapMin, GainMapMax, Gamma, OffsetSDR,
// OffsetHDR (1 or 3 values), HDRCapacityMin, HDRCapacityMax; absent ones take the defaults.
// Ultra HDR's primary image carries only Version (and a Container:Directory naming the gain-map
// item); the gain-map image carries the values.
import Foundation

/// Reads and writes `hdrgm:` gain-map metadata.
public enum GainMapXMP {
  /// The namespace URI.
  public static let namespace = "http://ns.adobe.com/hdr-gain-map/1.0/"

  /// The `hdrgm:Version` the packet declares, or nil when it has no gain-map namespace or version.
  public static func version(_ xmp: Data) -> String? {
    guard let prefix = prefix(in: String(decoding: xmp, as: UTF8.self)) else { return nil }
    return values(prefix + ":Version", in: String(decoding: xmp, as: UTF8.self))?.first
  }

  /// The gain-map metadata in an XMP packet, or nil when it declares none (no `Version`).
  ///
  /// - Throws: `.corrupt` when a field is not a number (or not True/False), has other than 1 or 3
  ///   values, or the values describe no gain map (`GainMapMetadata.problem`); `.unsupported` for
  ///   a version other than 1.x.
  public static func metadata(_ xmp: Data) throws -> GainMapMetadata? {
    let text = String(decoding: xmp, as: UTF8.self)
    guard let p = prefix(in: text), let version = values(p + ":Version", in: text)?.first else { return nil }
    guard version.hasPrefix("1.") else {
      throw CodecError(.unsupported, "The XMP gain-map metadata is version \(version); version 1.0 is read.")
    }
    var m = GainMapMetadata()
    func numbers(_ name: String, _ current: [Double]) throws -> [Double] {
      guard let raw = values(p + ":" + name, in: text) else { return current }
      let parsed = raw.map { Double($0.trimmingCharacters(in: .whitespaces)) }
      guard parsed.count == 1 || parsed.count == 3, let numbers = parsed as? [Double] else {
        throw CodecError(.corrupt, "The XMP gain-map field \(name) is \(raw.joined(separator: ", ")), not 1 or 3 numbers.")
      }
      return numbers.count == 1 ? Array(repeating: numbers[0], count: 3) : numbers
    }
    m.gainMapMin = try numbers("GainMapMin", m.gainMapMin)
    m.gainMapMax = try numbers("GainMapMax", m.gainMapMax)
    m.gamma = try numbers("Gamma", m.gamma)
    m.offsetSDR = try numbers("OffsetSDR", m.offsetSDR)
    m.offsetHDR = try numbers("OffsetHDR", m.offsetHDR)
    m.hdrCapacityMin = try numbers("HDRCapacityMin", [m.hdrCapacityMin])[0]
    m.hdrCapacityMax = try numbers("HDRCapacityMax", [m.hdrCapacityMax])[0]
    if let flag = values(p + ":BaseRenditionIsHDR", in: text)?.first {
      switch flag.lowercased() {
      case "true": m.baseRenditionIsHDR = true
      case "false": m.baseRenditionIsHDR = false
      default: throw CodecError(.corrupt, "The XMP gain-map field BaseRenditionIsHDR is \(flag), not True or False.")
      }
    }
    if let problem = m.problem { throw CodecError(.corrupt, "The XMP gain-map metadata is invalid: \(problem)") }
    return m
  }

  /// The `Item:Length` of the Container:Directory item whose `Item:Semantic` is `GainMap` in a
  /// primary image's packet, or nil.
  public static func gainMapItemLength(_ xmp: Data) -> Int? {
    let text = String(decoding: xmp, as: UTF8.self)
    guard let semantic = text.range(of: "Semantic=\"GainMap\"") else { return nil }
    let item = text[semantic.upperBound...].prefix(while: { $0 != ">" })
    let before = text[..<semantic.lowerBound].suffix(from: text[..<semantic.lowerBound].lastIndex(of: "<") ?? text.startIndex)
    for part in [before, item] {
      if let r = part.range(of: "Length=\"") { return Int(part[r.upperBound...].prefix(while: { $0 != "\"" })) }
    }
    return nil
  }

  /// The packet a gain-map image carries: its metadata as `hdrgm:` attributes (per-channel values
  /// as rdf:Seq elements), decimals with 17 significant digits so they read back exactly.
  public static func gainMapPacket(_ m: GainMapMetadata) -> Data {
    func number(_ v: Double) -> String { String(format: "%.17g", v) }
    var attributes = "hdrgm:Version=\"1.0\""
    var elements = ""
    for (name, values) in [("GainMapMin", m.gainMapMin), ("GainMapMax", m.gainMapMax), ("Gamma", m.gamma), ("OffsetSDR", m.offsetSDR), ("OffsetHDR", m.offsetHDR)] {
      if values.allSatisfy({ $0 == values[0] }) {
        attributes += " hdrgm:\(name)=\"\(number(values[0]))\""
      } else {
        elements += "<hdrgm:\(name)><rdf:Seq>" + values.map { "<rdf:li>\(number($0))</rdf:li>" }.joined() + "</rdf:Seq></hdrgm:\(name)>"
      }
    }
    attributes += " hdrgm:HDRCapacityMin=\"\(number(m.hdrCapacityMin))\" hdrgm:HDRCapacityMax=\"\(number(m.hdrCapacityMax))\""
    attributes += " hdrgm:BaseRenditionIsHDR=\"\(m.baseRenditionIsHDR ? "True" : "False")\""
    return packet("xmlns:hdrgm=\"\(namespace)\" \(attributes)", body: elements)
  }

  /// The packet an Ultra HDR primary image carries: `hdrgm:Version` and the Container:Directory
  /// naming the primary and the gain-map item of `gainMapLength` bytes — as a description spliced
  /// into the image's own packet `merging` (before its `</rdf:RDF>`, after removing any
  /// description that declares the gain-map namespace), or as a packet of its own.
  public static func primaryPacket(gainMapLength: Int, merging own: Data? = nil) -> Data {
    let item = "xmlns:Container=\"http://ns.google.com/photos/1.0/container/\" xmlns:Item=\"http://ns.google.com/photos/1.0/container/item/\""
    let directory =
      "<Container:Directory><rdf:Seq>"
      + "<rdf:li rdf:parseType=\"Resource\"><Container:Item Item:Semantic=\"Primary\" Item:Mime=\"image/jpeg\"/></rdf:li>"
      + "<rdf:li rdf:parseType=\"Resource\"><Container:Item Item:Semantic=\"GainMap\" Item:Mime=\"image/jpeg\" Item:Length=\"\(gainMapLength)\"/></rdf:li>"
      + "</rdf:Seq></Container:Directory>"
    let attributes = "\(item) xmlns:hdrgm=\"\(namespace)\" hdrgm:Version=\"1.0\""
    if let own, var text = String(validating: [UInt8](own), as: UTF8.self) {
      text = removingGainMapDescriptions(text)
      if let close = text.range(of: "</rdf:RDF>", options: .backwards) {
        text.insert(contentsOf: "<rdf:Description rdf:about=\"\" \(attributes)>\(directory)</rdf:Description>", at: close.lowerBound)
        return Data(text.utf8)
      }
    }
    return packet(attributes, body: directory)
  }

  /// `text` without what declares its file a gain-map container: every `…:Version` attribute of
  /// the gain-map prefix and every `Container:Directory` element (the rest of the descriptions —
  /// other properties, namespace declarations — stays as it was).
  public static func removingGainMapDescriptions(_ text: String) -> String {
    var text = text
    if let p = prefix(in: text) {
      while let r = text.range(of: p + ":Version") {
        var start = r.lowerBound
        while start > text.startIndex, text[text.index(before: start)].isWhitespace { start = text.index(before: start) }
        let rest = text[r.upperBound...].drop(while: { $0 == " " || $0 == "=" })
        guard let quote = rest.first, quote == "\"" || quote == "'", let close = rest.dropFirst().firstIndex(of: quote) else { break }
        text.removeSubrange(start...close)
      }
    }
    while let open = text.range(of: "<Container:Directory"), let close = text.range(of: "</Container:Directory>", range: open.upperBound..<text.endIndex) {
      text.removeSubrange(open.lowerBound..<close.upperBound)
    }
    return text
  }

  private static func packet(_ attributes: String, body: String) -> Data {
    Data(
      ("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
        + "<rdf:Description rdf:about=\"\" \(attributes)>\(body)</rdf:Description></rdf:RDF></x:xmpmeta>").utf8)
  }

  /// The prefix bound to the gain-map namespace (`xmlns:PREFIX="…hdr-gain-map/1.0/"`).
  static func prefix(in text: String) -> String? {
    for quote in ["\"", "'"] {
      guard let r = text.range(of: "=" + quote + namespace + quote) else { continue }
      let head = text[..<r.lowerBound]
      guard let colon = head.lastIndex(of: ":"), head[..<colon].hasSuffix("xmlns") else { continue }
      let name = head[head.index(after: colon)...]
      if !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) { return String(name) }
    }
    return nil
  }

  /// The values of the field `qualified` (`prefix:Name`): an attribute's value, an element's text,
  /// or the items of the rdf:Seq inside the element; nil when absent.
  static func values(_ qualified: String, in text: String) -> [String]? {
    var search = text.startIndex
    while let r = text.range(of: qualified, range: search..<text.endIndex) {
      search = r.upperBound
      // The name must stand alone: preceded by a space, '<' or a quote, and followed by '=' or '>'.
      guard r.lowerBound > text.startIndex, " \t\r\n<".contains(text[text.index(before: r.lowerBound)]) else { continue }
      var rest = text[r.upperBound...].drop(while: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
      if rest.first == "=" {
        rest = rest.dropFirst().drop(while: { $0 == " " })
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        return [String(rest.dropFirst().prefix(while: { $0 != quote }))]
      }
      guard rest.first == ">", let end = text.range(of: "</" + qualified, range: r.upperBound..<text.endIndex) else { continue }
      let inner = text[text.index(after: rest.startIndex)..<end.lowerBound]
      guard inner.contains("<") else { return [inner.trimmingCharacters(in: .whitespacesAndNewlines)] }
      var items: [String] = []
      var at = inner.startIndex
      while let open = inner.range(of: "<rdf:li", range: at..<inner.endIndex), let gt = inner[open.upperBound...].firstIndex(of: ">"),
        let close = inner.range(of: "</rdf:li>", range: gt..<inner.endIndex)
      {
        items.append(inner[inner.index(after: gt)..<close.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines))
        at = close.upperBound
      }
      return items
    }
    return nil
  }
}
