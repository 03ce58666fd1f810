// MetadataTests.swift — EXIF, XMP, IPTC and comments carried from sources to written files, read
// back with an independent scan of the files (TestSupport/FileStructure.swift). Fixtures made by
// scripts/metadata-fixtures.py (pixels and EXIF built without FilterGraph).
import Foundation
#if canImport(FoundationXML)
  import FoundationXML
#endif
import ImageCodecs
import PixelBufferModule
import TestSupport
import XCTest

@testable import FilterGraph

final class MetadataTests: XCTestCase {
  let renderer = Renderer(options: RendererOptions(threads: 2, tileSize: Size(width: 64, height: 32)))

  func photo(_ n: Int = 6) throws -> Image { try Image(contentsOf: Fixtures.url("metadata/orient-\(n).jpg")) }

  func encode(_ image: Image, _ format: ImageFileFormat, keep: MetadataKinds = .all) throws -> Data {
    var options = WriteOptions()
    options.keptMetadata = keep
    return try renderer.encode(image, format: format, options: options)
  }

  /// The mean absolute difference of two 8-bit RGB buffers of one size, in codes.
  func meanDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
    XCTAssertEqual(a.size, b.size)
    guard a.size == b.size else { return .infinity }
    var sum = 0.0
    for y in 0..<a.height { for x in 0..<a.width { for c in 0..<3 {
      sum += abs(Double(a.value(x: x, y: y, channel: c) - b.value(x: x, y: y, channel: c))) * 255
    } } }
    return sum / Double(a.width * a.height * 3)
  }

  func testEveryOrientationIsWrittenUprightWithOrientationOne() throws {
    let upright = try PNGDecoder.decode(Fixtures.data("metadata/upright.png"))
    for n in 1...8 {
      let image = try photo(n)
      XCTAssertEqual(image.metadata.exif?.orientation?.rawValue, n)
      for format in [ImageFileFormat.png, .jpeg] {
        let file = try encode(image, format)
        let pixels = format == .png ? try PNGDecoder.decode(file) : try JPEGDecoder.decode(file)
        XCTAssertLessThan(meanDifference(pixels, upright), 4, "orientation \(n) \(format)")
        let tiff = format == .png ? FileStructure.pngChunks(file).first { $0.type == "eXIf" }?.data : FileStructure.jpegEXIF(file)
        let ifd0 = try XCTUnwrap(tiff.flatMap(FileStructure.ifd0), "orientation \(n) \(format)")
        XCTAssertEqual(ifd0.entries[0x0112]?.value, 1, "orientation \(n) \(format)")
        XCTAssertEqual(ifd0.next, 0, "the IFD1 thumbnail is unlinked")
        let exifIFD = try XCTUnwrap(FileStructure.ifd(tiff!, at: ifd0.entries[0x8769]!.value))
        XCTAssertEqual(exifIFD.entries[0xA002]?.value, 48)
        XCTAssertEqual(exifIFD.entries[0xA003]?.value, 32)
        // The thumbnail (a JPEG: FF D8 FF) is gone from the block.
        XCTAssertFalse(tiff!.indices.dropLast(2).contains { tiff![$0] == 0xFF && tiff![$0 + 1] == 0xD8 && tiff![$0 + 2] == 0xFF })
      }
    }
  }

  func testPixelDimensionsFollowScaling() throws {
    let file = try encode(try photo(6).scaled(toFit: Size(width: 24, height: 24)), .jpeg)
    let tiff = try XCTUnwrap(FileStructure.jpegEXIF(file))
    let exifIFD = try XCTUnwrap(FileStructure.ifd(tiff, at: FileStructure.ifd0(tiff)!.entries[0x8769]!.value))
    XCTAssertEqual(exifIFD.entries[0xA002]?.value, 24)
    XCTAssertEqual(exifIFD.entries[0xA003]?.value, 16)
  }

  func testCameraAndCaptureTimeSurviveJPEGToPNGToJPEG() throws {
    let png = try encode(try photo(3).blurred(sigma: 0.5), .png)
    let pngImage = try Image(data: png)
    let jpeg = try encode(pngImage, .jpeg)
    let tiff = try XCTUnwrap(FileStructure.jpegEXIF(jpeg))
    let ifd0 = try XCTUnwrap(FileStructure.ifd0(tiff))
    XCTAssertEqual(ifd0.text(0x010F, in: tiff), "FilterGraph Test Camera")
    XCTAssertEqual(ifd0.text(0x0110, in: tiff), "Model 8")
    let exifIFD = try XCTUnwrap(FileStructure.ifd(tiff, at: ifd0.entries[0x8769]!.value))
    XCTAssertEqual(exifIFD.text(0x9003, in: tiff), "2021:06:15 10:20:30")
    // And through the Swift API.
    let again = try Image(data: jpeg)
    XCTAssertEqual(again.metadata.exif?.cameraMake, "FilterGraph Test Camera")
    XCTAssertEqual(again.metadata.exif?.cameraModel, "Model 8")
    XCTAssertEqual(again.metadata.exif?.captureTime, "2021:06:15 10:20:30")
    XCTAssertEqual(again.metadata.exif?.orientation, .up)
    XCTAssertEqual(again.metadata.exif?.pixelSize, Size(width: 48, height: 32))
    XCTAssertEqual(again.metadata.comment, "FilterGraph metadata fixture")
  }

  func testXMPBytesAreIdenticalAfterRoundTrips() throws {
    let xmp = try [UInt8](Fixtures.data("metadata/xmp.xml"))
    XCTAssertEqual(try photo().metadata.xmp.map { Array($0.utf8) }, xmp)
    let png = try encode(try photo(), .png)
    let itxt = try XCTUnwrap(FileStructure.pngChunks(png).first { $0.type == "iTXt" }?.data)
    XCTAssertEqual(Array(itxt.suffix(xmp.count)), xmp)
    XCTAssertTrue(itxt.starts(with: Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0]))
    let fromPNG = try Image(data: png)
    let jpeg = try encode(fromPNG, .jpeg)
    let app1 = try XCTUnwrap(FileStructure.jpegSegments(jpeg).first { $0.marker == 0xE1 && $0.payload.starts(with: Array("http://ns.adobe.com/xap/1.0/".utf8)) })
    XCTAssertEqual(Array(app1.payload.dropFirst(29)), xmp)
    let fromJPEG = try Image(data: jpeg)
    let webp = try encode(fromJPEG, .webp)
    XCTAssertEqual(FileStructure.webpChunks(webp).first { $0.type == "XMP " }?.data, xmp)
    let fromWebP = try Image(data: webp)
    XCTAssertEqual(fromWebP.metadata.xmp.map { Array($0.utf8) }, xmp)
    XCTAssertEqual(fromWebP.metadata.exif?.cameraModel, "Model 8")
    XCTAssertEqual(fromWebP.metadata.exif?.orientation, .up)
  }

  /// Extended XMP (XMP specification part 3): a main packet naming its extension by GUID and the
  /// extension split over `http://ns.adobe.com/xmp/extension/` APP1 segments (here 150 kB in three,
  /// stored out of order) is read whole and written back, through a filter, as segments that
  /// reassemble to the same bytes; the main packet's bytes are unchanged; stripping XMP drops both.
  func testExtendedXMPSurvivesAJPEGRoundTrip() throws {
    let guid = "0123456789ABCDEF0123456789ABCDEF"
    let main = Array(
      ("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
        + "<rdf:Description rdf:about=\"\" xmlns:xmpNote=\"http://ns.adobe.com/xmp/note/\" xmpNote:HasExtendedXMP=\"\(guid)\"/>"
        + "</rdf:RDF></x:xmpmeta>").utf8)
    var extended = Array("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF><rdf:Description><dc:description>".utf8)
    for i in 0..<15_000 { extended += Array(String(format: "%09d ", i).utf8) }
    extended += Array("</dc:description></rdf:Description></rdf:RDF></x:xmpmeta>".utf8)
    let signature = Array("http://ns.adobe.com/xmp/extension/".utf8) + [0]
    func u32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
    func segment(_ payload: [UInt8]) -> [UInt8] { [0xFF, 0xE1] + [UInt8((payload.count + 2) >> 8), UInt8(truncatingIfNeeded: payload.count + 2)] + payload }
    var pieces: [[UInt8]] = []
    for offset in stride(from: 0, to: extended.count, by: 60_000) {
      pieces.append(segment(signature + Array(guid.utf8) + u32(extended.count) + u32(offset) + extended[offset..<min(offset + 60_000, extended.count)]))
    }
    XCTAssertEqual(pieces.count, 3)
    let original = try [UInt8](Fixtures.data("metadata/orient-1.jpg"))
    var jpeg = Array(original.prefix(2)) + segment(Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + main)
    jpeg += pieces[2] + pieces[0] + pieces[1]
    jpeg += original.dropFirst(2)
    let image = try Image(data: Data(jpeg))
    XCTAssertEqual(image.metadata.xmp.map { Array($0.utf8) }, main)
    XCTAssertEqual(image.metadata.xmpExtension.map { Array($0.utf8) }, extended)

    let written = try encode(image.blurred(sigma: 1), .jpeg)
    let segments = FileStructure.jpegSegments(written).filter { $0.marker == 0xE1 }
    let mainOut = try XCTUnwrap(segments.first { $0.payload.starts(with: Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]) })
    XCTAssertEqual(Array(mainOut.payload.dropFirst(29)), main)
    var reassembled = [UInt8](repeating: 0, count: extended.count), covered = 0
    for s in segments where s.payload.starts(with: signature) {
      let p = Array(s.payload.dropFirst(signature.count))
      XCTAssertEqual(Array(p.prefix(32)), Array(guid.utf8))
      XCTAssertEqual(p[32..<36].reduce(0) { $0 << 8 | Int($1) }, extended.count)
      let offset = p[36..<40].reduce(0) { $0 << 8 | Int($1) }
      reassembled.replaceSubrange(offset..<offset + p.count - 40, with: p[40...])
      covered += p.count - 40
    }
    XCTAssertEqual(covered, extended.count)
    XCTAssertEqual(reassembled, extended)
    XCTAssertEqual(try Image(data: written).metadata.xmpExtension.map { Array($0.utf8) }, extended)

    let withoutXMP = try encode(image, .jpeg, keep: [.exif])
    XCTAssertFalse(FileStructure.jpegSegments(withoutXMP).contains { $0.payload.starts(with: signature) })
    // A piece missing: the extension is not read (the main packet still is).
    let broken = Array(original.prefix(2)) + segment(Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + main) + pieces[0] + pieces[2] + original.dropFirst(2)
    let partial = try Image(data: Data(broken))
    XCTAssertNil(partial.metadata.xmpExtension)
    XCTAssertEqual(partial.metadata.xmp.map { Array($0.utf8) }, main)
  }

  /// PNG, WebP, TIFF and HEIF outputs of a JPEG with extended XMP hold one packet: the main
  /// packet without `xmpNote:HasExtendedXMP` and with the extension's `rdf:Description` before
  /// its `</rdf:RDF>` (XMP part 3's merge), checked byte for byte and by Foundation's XML parser
  /// (well-formed, both packets' properties present, no HasExtendedXMP). The element form of the
  /// property is removed too; an extension declaring namespaces on its `rdf:RDF` is not merged.
  func testExtendedXMPIsMergedForFormatsWithoutASizeLimit() throws {
    let guid = "00112233445566778899AABBCCDDEEFF"
    let rdf = "xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\""
    let main =
      "<?xpacket begin=\"\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?><x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF \(rdf)>"
      + "<rdf:Description rdf:about=\"\" xmlns:xmpNote=\"http://ns.adobe.com/xmp/note/\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\""
      + " xmpNote:HasExtendedXMP=\"\(guid)\"><dc:format>image/jpeg</dc:format></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end=\"w\"?>"
    let history = (0..<12_000).map { String(format: "step %06d; ", $0) }.joined()
    let description =
      "<rdf:Description rdf:about=\"\" xmlns:photoshop=\"http://ns.adobe.com/photoshop/1.0/\"><photoshop:History>\(history)</photoshop:History></rdf:Description>"
    let extended = "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF \(rdf)>\(description)</rdf:RDF></x:xmpmeta>"
    let expected = main.replacingOccurrences(of: " xmpNote:HasExtendedXMP=\"\(guid)\"", with: "")
      .replacingOccurrences(of: "</rdf:RDF>", with: description + "</rdf:RDF>")

    let signature = Array("http://ns.adobe.com/xmp/extension/".utf8) + [0]
    func u32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }
    func segment(_ payload: [UInt8]) -> [UInt8] { [0xFF, 0xE1] + [UInt8((payload.count + 2) >> 8), UInt8(truncatingIfNeeded: payload.count + 2)] + payload }
    let bytes = Array(extended.utf8)
    var jpeg = try [UInt8](Fixtures.data("metadata/orient-1.jpg"))
    var inserted = segment(Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + Array(main.utf8))
    for offset in stride(from: 0, to: bytes.count, by: 60_000) {
      inserted += segment(signature + Array(guid.utf8) + u32(bytes.count) + u32(offset) + bytes[offset..<min(offset + 60_000, bytes.count)])
    }
    jpeg.insert(contentsOf: inserted, at: 2)
    let image = try Image(data: Data(jpeg))
    XCTAssertEqual(image.metadata.xmpExtension, extended)

    for format in [ImageFileFormat.png, .webp, .tiff, .avif, .heic] where format.codec?.canEncode ?? false {
      let written = try Image(data: try encode(image, format))
      XCTAssertEqual(written.metadata.xmp, expected, "\(format)")
      XCTAssertNil(written.metadata.xmpExtension, "\(format)")
    }
    let parsed = XMLElementNames()
    let parser = XMLParser(data: Data(expected.utf8))
    parser.delegate = parsed
    XCTAssertTrue(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
    XCTAssertTrue(parsed.names.contains("dc:format") && parsed.names.contains("photoshop:History"), "\(parsed.names)")
    XCTAssertFalse(parsed.attributes.contains("xmpNote:HasExtendedXMP"))
    XCTAssertEqual(parsed.names.filter { $0 == "rdf:Description" }.count, 2)

    // The element form, and an extension whose namespaces live on its rdf:RDF (not merged).
    let elementForm = main.replacingOccurrences(
      of: " xmpNote:HasExtendedXMP=\"\(guid)\">", with: "><xmpNote:HasExtendedXMP>\(guid)</xmpNote:HasExtendedXMP>")
    XCTAssertEqual(XMPMerge.merged(main: Data(elementForm.utf8), extended: Data(extended.utf8)), Data(expected.utf8))
    let outer = extended.replacingOccurrences(of: "<rdf:RDF \(rdf)>", with: "<rdf:RDF \(rdf) xmlns:photoshop=\"http://ns.adobe.com/photoshop/1.0/\">")
    XCTAssertNil(XMPMerge.merged(main: Data(main.utf8), extended: Data(outer.utf8)))
  }

  func testIPTCAndCommentInJPEG() throws {
    let jpeg = try encode(try photo(), .jpeg)
    let segments = FileStructure.jpegSegments(jpeg)
    let app13 = try XCTUnwrap(segments.first { $0.marker == 0xED }?.payload)
    let byline = Array("Test Author".utf8)
    XCTAssertTrue(app13.starts(with: Array("Photoshop 3.0\0".utf8) + Array("8BIM".utf8) + [4, 4]))
    XCTAssertNotNil(app13.indices.first { app13[$0...].starts(with: byline) })
    XCTAssertEqual(segments.first { $0.marker == 0xFE }?.payload, Array("FilterGraph metadata fixture".utf8))
    let iptc: [UInt8] = [0x1C, 2, 0, 0, 2, 0, 4, 0x1C, 2, 0x50, 0, 11] + byline
    XCTAssertEqual(try photo().metadata.iptc.map { [UInt8]($0) }, iptc)
    XCTAssertEqual(try Image(data: jpeg).metadata.iptc.map { [UInt8]($0) }, iptc)
  }

  func testStripWritesNoMetadata() throws {
    let jpeg = try encode(try photo(), .jpeg, keep: .none)
    XCTAssertEqual(FileStructure.jpegSegments(jpeg).map(\.marker).filter { ($0 >= 0xE1 && $0 <= 0xEF) || $0 == 0xFE }, [])
    let png = try encode(try photo(), .png, keep: .none)
    let types = FileStructure.pngChunks(png).map(\.type).filter { $0 != "IDAT" }
    XCTAssertEqual(types, ["IHDR", "sRGB", "IEND"])
    let webp = try encode(try photo(), .webp, keep: .none)
    XCTAssertEqual(FileStructure.webpChunks(webp).map(\.type).filter { $0 != "VP8 " && $0 != "VP8L" && $0 != "VP8X" && $0 != "ALPH" }, [])
    // The default keeps them (so the check above can fail).
    XCTAssertEqual(FileStructure.pngChunks(try encode(try photo(), .png)).map(\.type).filter { $0 != "IDAT" }, ["IHDR", "sRGB", "eXIf", "iTXt", "tEXt", "IEND"])
  }

  func testKeepList() throws {
    let jpeg = try encode(try photo(), .jpeg, keep: try MetadataKinds(argument: "exif,comment"))
    let markers = FileStructure.jpegSegments(jpeg).map(\.marker).filter { ($0 >= 0xE1 && $0 <= 0xEF) || $0 == 0xFE }
    XCTAssertEqual(markers, [0xE1, 0xFE])
    XCTAssertNotNil(FileStructure.jpegEXIF(jpeg))
    XCTAssertThrowsError(try MetadataKinds(argument: "exif,gps"))
    XCTAssertEqual(try MetadataKinds(argument: "XMP, icc").description, "xmp,icc")
  }

  func testICCNotKeptWritesSRGBWithoutProfile() throws {
    let adobe = try Image(contentsOf: Fixtures.url("colour/rocket-adobergb.jpg")).scaled(toFit: Size(width: 64, height: 64))
    var options = WriteOptions()
    options.profile = .displayP3
    let tagged = try renderer.encode(adobe, format: .jpeg, options: options)
    XCTAssertTrue(FileStructure.jpegSegments(tagged).contains { $0.marker == 0xE2 })
    options.keptMetadata = [.exif, .xmp]
    let untagged = try renderer.encode(adobe, format: .jpeg, options: options)
    XCTAssertFalse(FileStructure.jpegSegments(untagged).contains { $0.marker == 0xE2 })
    // The pixels are sRGB: the same as the default output.
    let srgb = try JPEGDecoder.decode(renderer.encode(adobe, format: .jpeg))
    XCTAssertLessThan(meanDifference(try JPEGDecoder.decode(untagged), srgb), 0.5)
  }

  func testMetadataComesFromTheBaseImage() throws {
    let logo = try Image(contentsOf: Fixtures.url("metadata/upright.png"))
    let base = try photo(1)
    let watermarked = logo.composited(over: base, gravity: .southEast)
    XCTAssertEqual(watermarked.metadata.exif?.cameraModel, "Model 8")
    XCTAssertEqual(FileStructure.jpegEXIF(try encode(watermarked, .jpeg)).flatMap(FileStructure.ifd0)?.text(0x0110, in: FileStructure.jpegEXIF(try encode(watermarked, .jpeg))!), "Model 8")
    XCTAssertNil(base.composited(over: logo).metadata.exif)
  }

  /// A GIF's XMP (its "XMP DataXMP" application extension, written by ExifTool) is the image's
  /// XMP, and PNG, JPEG and WebP outputs carry it byte for byte as ExifTool reads it; an animated
  /// GIF's goes into an animated WebP. `--strip` drops it.
  func testAGIFsXMPIsCarriedToOutputsThatHoldXMP() throws {
    let xmp = try [UInt8](Fixtures.data("gif/xmp.gif.xmp"))
    let gif = try Image(contentsOf: Fixtures.url("gif/xmp.gif")).inverted()
    XCTAssertEqual(gif.metadata.xmp.map { Array($0.utf8) }, xmp)
    let png = try encode(gif, .png)
    let itxt = try XCTUnwrap(FileStructure.pngChunks(png).first { $0.type == "iTXt" }?.data)
    XCTAssertEqual(Array(itxt), Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + xmp)
    let app1 = FileStructure.jpegSegments(try encode(gif, .jpeg)).first { $0.marker == 0xE1 }
    XCTAssertEqual(app1.map { Array($0.payload.dropFirst(29)) }, xmp)
    XCTAssertEqual(FileStructure.webpChunks(try encode(gif, .webp)).first { $0.type == "XMP " }?.data, xmp)
    XCTAssertNil(FileStructure.pngChunks(try encode(gif, .png, keep: .none)).first { $0.type == "iTXt" })

    let job = RenderJob(input: .file(Fixtures.url("gif/xmp-animated.gif")), destination: .memory, options: WriteOptions(format: .webp))
    let animated = try job.run(on: renderer)
    XCTAssertEqual(animated.frameCount, 2)
    let chunk = try XCTUnwrap(FileStructure.webpChunks(try XCTUnwrap(animated.data)).first { $0.type == "XMP " }?.data)
    XCTAssertTrue(String(decoding: chunk, as: UTF8.self).contains("An animated GIF"))
  }

  /// An animated GIF whose XMP packet (its application extension, as XMP part 3 lays it out) is
  /// over 1 MiB, written as an animated WebP: the packet is left out, and the job's warnings say
  /// so when the output keeps XMP, and not when it keeps none (`--strip`).
  func testAnAnimationsOverLimitXMPIsSaidWhereItWouldHaveBeenKept() throws {
    var gif = [UInt8](try Fixtures.data("gif/xmp-animated.gif"))
    let start = try XCTUnwrap(gif.firstRange(of: Array("XMP DataXMP".utf8))).upperBound
    let trailer = try XCTUnwrap(gif[start...].firstRange(of: [1, 0xFF, 0xFE, 0xFD])).lowerBound
    gif.replaceSubrange(start..<trailer, with: [UInt8](repeating: 0x20, count: MetadataLimits.maxBlockBytes + 1))
    for (kept, warns) in [(MetadataKinds.all, true), (.none, false), ([.exif, .icc], false)] {
      var options = WriteOptions(format: .webp)
      options.keptMetadata = kept
      let result = try RenderJob(input: .data(Data(gif)), destination: .memory, options: options).run(on: renderer)
      XCTAssertEqual(result.frameCount, 2)
      let said = result.warnings.contains { $0.contains("The GIF's XMP application extension is 1048577 bytes, over the 1 MiB limit") }
      XCTAssertEqual(said, warns, "\(kept): \(result.warnings)")
      XCTAssertNil(FileStructure.webpChunks(try XCTUnwrap(result.data)).first { $0.type == "XMP " })
    }
  }

  /// A strict load fails on a block its reader left out only where the output would have kept
  /// it: a PNG whose comment is over 1 MiB is refused, naming the chunk, when written with every
  /// kind kept, and written when comments are not kept.
  func testAStrictLoadFailsOnlyOnALeftOutBlockTheOutputWouldKeep() throws {
    var png = [UInt8](try PNGEncoder.encode(PixelBuffer(width: 4, height: 4, format: .rgb8)))
    png.insert(contentsOf: PNGBytes.chunk("tEXt", Array("Comment".utf8) + [0] + [UInt8](repeating: 0x61, count: MetadataLimits.maxBlockBytes + 1)), at: 33)
    let strict = try Image(data: Data(png), options: LoadOptions(strict: true))
    XCTAssertThrowsError(try encode(strict, .png)) { error in
      XCTAssertTrue("\(error)".contains("The PNG's 'Comment' text chunk holds more than 1048576 bytes"), "\(error)")
    }
    XCTAssertNoThrow(try encode(strict, .png, keep: [.exif, .xmp, .icc]))
    XCTAssertNoThrow(try encode(try Image(data: Data(png)), .png))
  }

  func testOversizedMetadataIsRefused() throws {
    // An XMP packet larger than a JPEG segment holds: refused when writing a JPEG.
    var packet = try [UInt8](Fixtures.data("metadata/xmp.xml"))
    packet += [UInt8](repeating: 0x20, count: 70_000)
    let png = try PNGStreamEncoder(size: Size(width: 4, height: 4), layout: .rgb, component: .uint8, metadata: ImageMetadata(xmp: Data(packet)))
    try png.write(rows: PixelBuffer(width: 4, height: 4, format: .rgb8))
    let pngData = try XCTUnwrap(png.finish())
    let image = try Image(data: pngData)
    XCTAssertEqual(image.metadata.xmp?.utf8.count, packet.count)
    XCTAssertThrowsError(try encode(image, .jpeg)) { error in
      XCTAssertTrue("\(error)".contains("XMP packet"), "\(error)")
    }
    XCTAssertNoThrow(try encode(image, .jpeg, keep: [.exif]))
  }
}

/// The element and attribute names an XML document holds, as Foundation's parser reports them.
final class XMLElementNames: NSObject, XMLParserDelegate {
  var names: [String] = []
  var attributes: Set<String> = []

  func parser(
    _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
    attributes attributeDict: [String: String] = [:]
  ) {
    names.append(elementName)
    attributes.formUnion(attributeDict.keys)
  }
}
