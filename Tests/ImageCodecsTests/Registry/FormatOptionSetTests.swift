// FormatOptionSetTests.swift — every codec's option table is its typed options struct, defaults included.

import ImageCodecs
import PixelBufferModule
import XCTest

final class FormatOptionSetTests: XCTestCase {
  /// For every registered codec: the table fgrun, recipes and the docs read is its options
  /// struct's, the table's defaults decode to the struct's `init()`, and every value a row accepts
  /// decodes to a field that reads back as that value.
  func testEveryCodecsTableIsItsOptionsStruct() throws {
    for codec in CodecRegistry.codecs { try check(codec) }
  }

  private func check<Codec: ImageCodec>(_ codec: Codec.Type) throws {
    typealias Options = Codec.EncodeOptions
    let name = codec.displayName
    XCTAssertEqual(codec.encodeOptions, Options.table, "\(name)'s encodeOptions is not its EncodeOptions' table")
    XCTAssertEqual(try Options(FormatOptionValues()), Options(), "\(name): the table's defaults are not init()'s")
    for field in Options.fields {
      let option = field.option
      XCTAssertEqual(field.value(Options()), option.defaultValue, "\(name) \(option.name): default")
      if option.defaultValue == nil {
        XCTAssertTrue(option.help.contains("default"), "\(name) \(option.name) has no default and its help does not say what happens")
      }
      for value in Self.samples(of: option.kind) {
        let decoded = try Options(FormatOptionValues([option.name: value]))
        XCTAssertEqual(field.value(decoded), value, "\(name) \(option.name)=\(value) does not read back")
      }
    }
  }

  /// Values of each kind: the ends of a range, every word, both booleans.
  private static func samples(of kind: FormatOptionKind) -> [FormatOptionValue] {
    switch kind {
    case .integer(let range): return [.integer(range.lowerBound), .integer(range.upperBound)]
    case .number(let range): return [.number(range.lowerBound), .number(range.upperBound)]
    case .boolean: return [.boolean(false), .boolean(true)]
    case .choice(let words): return words.map { .choice($0) }
    }
  }

  /// The Swift initialisers' default arguments are the tables' defaults: a library caller and
  /// fgrun get the same file (JPEG's optimize-coding is off and its chroma automatic in both).
  func testSwiftDefaultArgumentsAreTheTablesDefaults() throws {
    let jpeg = JPEGEncodeOptions(quality: JPEGEncodeOptions.defaultQuality)
    XCTAssertEqual(jpeg, JPEGEncodeOptions())
    XCTAssertEqual(try JPEGEncodeOptions(FormatOptionValues()), jpeg)
    XCTAssertFalse(jpeg.optimizesHuffmanCoding)
    XCTAssertEqual(jpeg.chromaSubsampling, .automatic)
    XCTAssertEqual(jpeg.quality, 90)
    XCTAssertEqual(JPEGCodec.encodeOptions.first { $0.name == "quality" }?.kind, .integer(1...100))

    XCTAssertEqual(try WebPEncodeSettings(FormatOptionValues()), WebPEncodeSettings(quality: 80))
    XCTAssertEqual(try WebPEncodeSettings(FormatOptionValues()), WebPEncodeSettings(effort: 4))

    XCTAssertEqual(try PNGCodec.EncodeOptions(FormatOptionValues()).png, PNGEncodeOptions(compressionLevel: 6))
    XCTAssertEqual(try PNGCodec.EncodeOptions(FormatOptionValues()).png, .default)

    XCTAssertEqual(try TIFFCodec.EncodeOptions(FormatOptionValues()).settings, TIFFEncodeSettings(compression: .lzw))

    let heif = try HEIFEncodeOptions(FormatOptionValues())
    let settings = HEIFEncodeSettings(compression: .av1)
    XCTAssertEqual([heif.quality, heif.chroma], [settings.quality, settings.chroma])
    XCTAssertEqual(heif.isLossless, settings.isLossless)
    XCTAssertEqual(heif.effort, settings.effort)
  }

  /// Values reach the typed fields; out-of-range values are refused with the option's name and
  /// what it accepts.
  func testValuesAreTypedAndChecked() throws {
    let jpeg = try JPEGEncodeOptions(["quality": 75, "chroma": "444", "encoder": "small", "optimize-coding": true])
    XCTAssertEqual(jpeg.quality, 75)
    XCTAssertEqual(jpeg.chromaSubsampling, .s444)
    XCTAssertEqual(jpeg.encoder, .small)
    XCTAssertTrue(jpeg.optimizesHuffmanCoding)
    XCTAssertThrowsError(try JPEGEncodeOptions(["quality": 101])) {
      XCTAssertEqual("\($0)", "The format option quality must be integer 1…100, not '101'.")
    }
    let tiff = try TIFFCodec.EncodeOptions(["predictor": "none", "bit-depth": "float", "compression": "deflate"])
    XCTAssertFalse(tiff.settings.usesPredictor)
    XCTAssertEqual(tiff.bitDepth, .float32)
    XCTAssertEqual(tiff.settings.compression, .deflate)
    XCTAssertNil(try PNGCodec.EncodeOptions([:]).bitDepth, "no bit-depth: the image's own")
    XCTAssertEqual(try HEIFEncodeOptions(["chroma": "444", "bit-depth": "10"]).chroma, 444)
    // A number option: text as typed, an integer taken as a number, out of range refused.
    let amount = try XCTUnwrap(GIFCodec.encodeOptions.first { $0.name == "dither-amount" })
    XCTAssertEqual(try GIFEncodeOptions(FormatOptionValues(["dither-amount": try amount.parse("0.25")])).ditherAmount, 0.25)
    XCTAssertEqual(try GIFEncodeOptions(["dither-amount": 0]).ditherAmount, 0)
    XCTAssertEqual(GIFEncodeOptions().ditherAmount, 1)
    for text in ["1.5", "-0.1", "nan", "half"] {
      XCTAssertThrowsError(try amount.parse(text)) {
        XCTAssertEqual("\($0)", "The format option dither-amount must be number 0…1, not '\(text)'.")
      }
    }
  }
}
