// CodecRegistry.swift — the list of every codec, and lookups by content, name and extension.

/// Every file format FilterGraph reads or writes.
///
/// Adding a format: a folder `Sources/ImageCodecs/<Format>/` with a type conforming to
/// `ImageCodec`, and one line in `codecs` below.
public enum CodecRegistry {
  /// The codecs, in the order `fgrun formats` and docs/Formats.md list them (and sniffing tries them).
  public static let codecs: [any ImageCodec.Type] = [
    JPEGCodec.self,
    PNGCodec.self,
    WebPCodec.self,
    GIFCodec.self,
    TIFFCodec.self,
    AVIFCodec.self,
    HEICCodec.self,
  ]

  /// How many leading bytes `sniff` needs at most.
  public static let sniffLength = 32

  /// The codec whose magic bytes start `bytes`, or nil.
  public static func sniff<C: Collection>(_ bytes: C) -> (any ImageCodec.Type)? where C.Element == UInt8 {
    let head = Array(bytes.prefix(sniffLength))
    return codecs.first { $0.sniff(head) }
  }

  /// The codec of `format`, or nil for a name no codec has.
  public static func codec(for format: ImageFileFormat) -> (any ImageCodec.Type)? {
    codecs.first { $0.format == format }
  }

  /// The codec a file name extension (`jpg`, `.PNG`…) names, or nil.
  public static func codec(forExtension pathExtension: String) -> (any ImageCodec.Type)? {
    var ext = pathExtension.lowercased()
    if ext.hasPrefix(".") { ext.removeFirst() }
    return codecs.first { $0.fileExtensions.contains(ext) }
  }

  /// The codec named by a format name or an extension (`jpeg`, `jpg`, `webp`…), for `--format`.
  public static func codec(named name: String) -> (any ImageCodec.Type)? {
    codec(for: ImageFileFormat(rawValue: name.lowercased())) ?? codec(forExtension: name)
  }

  /// The extensions every writable format answers to, for messages: `.jpg, .png, .webp…`.
  public static var writableExtensions: String {
    codecs.filter { $0.canEncode }.flatMap { $0.fileExtensions.prefix(2) }.map { "." + $0 }.joined(separator: ", ")
  }

  /// Every encode option of every codec, first declaration of each name (fgrun's flags).
  public static var allEncodeOptions: [FormatOption] { uniqueOptions(codecs.flatMap { $0.encodeOptions }) }
  /// Every decode option of every codec, first declaration of each name; `page` always (every
  /// file has page 0).
  public static var allDecodeOptions: [FormatOption] { uniqueOptions([FormatOption.page] + codecs.flatMap { $0.decodeOptions }) }

  private static func uniqueOptions(_ options: [FormatOption]) -> [FormatOption] {
    var seen: Set<String> = []
    return options.filter { seen.insert($0.name).inserted }
  }
}
