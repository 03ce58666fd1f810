// Renderer+GainMap.swift — writing an image whose source carries a gain map (`WriteOptions.hdr`).
//
// `.keep` (the default): a JPEG output whose gain map follows the graph (`GainMapBranch`) is
// written as an Ultra HDR JPEG — the base rendered and encoded as usual, the map rendered through
// its branch and encoded as an 8-bit JPEG (quality 90, 4:4:4 for a colour map), both joined with
// the unchanged metadata (`UltraHDRFile`). Both are encoded in memory (the MPF index at the start
// of the file needs the base's length), at the same time on the one worker pool, and the file is
// written atomically. Where the map cannot
// follow (a filter that ends the branch) or the format cannot carry it, the SDR base is written
// and the renderer's warning handler says so. `.sdr`: the base alone, without a warning. `.hdr`:
// the base and the map rendered whole, combined by `GainMapRendition` at the map's full headroom,
// and written as a float TIFF in linear light or as a PQ AVIF/HEIC/PNG (Renderer+HDRSignal.swift);
// other formats are refused.
import Foundation
import ImageCodecs
import Locking
import PixelBufferModule

/// What a write does with a source's gain map.
public enum HDROutput: String, CaseIterable, Hashable, Sendable {
  /// Write the map again where the format carries it (JPEG: Ultra HDR); warn where it cannot.
  case keep
  /// Write the SDR base alone, knowingly.
  case sdr
  /// Write the HDR rendition itself: base × map at the map's full headroom, as a 32-bit float
  /// TIFF (linear light, 1 = SDR white, sRGB primaries) or a 12-bit PQ AVIF/HEIC or 16-bit PQ PNG
  /// (BT.2020, SDR white at 203 cd/m², with mastering display and content light levels).
  case hdr
}

extension Renderer {
  /// The Ultra HDR file of `image` when it should be written as one (`.keep`, a JPEG output, a gain
  /// map that follows the graph), or nil when the plain write applies; warnings for a map that is
  /// lost go to the warning handler.
  func ultraHDRBytes(_ image: Image, format: ImageFileFormat, options: WriteOptions) throws -> Data? {
    if options.hdr == .hdr { return try hdrRenditionBytes(image, format: format, options: options) }
    guard options.hdr == .keep else { return nil }
    let (branch, problem) = image.gainMapBranch()
    if branch == nil && problem == nil { warnToneMapped(image) }
    if let problem {
      warningHandler?("the gain map (HDR) is not written: \(problem); the output is SDR only (--hdr sdr says this is intended)")
      return nil
    }
    guard let branch else { return nil }
    guard format == .jpeg else {
      warningHandler?(
        "the gain map (HDR) is not written: \(format.rawValue) output cannot carry it; the output is SDR only (write JPEG to keep it, or --hdr sdr)")
      return nil
    }
    var baseOptions = options
    baseOptions.format = .jpeg
    baseOptions.hdr = .sdr
    var mapOptions = WriteOptions(format: .jpeg, options: ["quality": 90, "chroma": "444"])
    mapOptions.keptMetadata = []
    mapOptions.hdr = .sdr
    // The base's plan first: it computes the analyses (trim's window), which the map's then finds
    // kept. The map is then handed to a driver thread while this one renders the base: the base's
    // decode is serial, so the map's decode, resample and encode run on the workers beside it
    // instead of after it. This thread may itself be a driver (an async write) and every driver
    // may be writing an Ultra HDR file, so a map no driver has started is rendered here after the
    // base (`HandedWork`), never waited for in the queue.
    let basePlan = try outputPlan(image, format: .jpeg, options: baseOptions)
    let mapImage = branch.map
    let map = HandedWork { [mapOptions] in try self.encode(mapImage, format: .jpeg, options: mapOptions) }
    drivers.pool.submit { map.run() }
    let primary: Data?
    do {
      primary = try encode(basePlan, handle: nil)
    } catch {
      map.abandon()
      throw error
    }
    guard let primary else { throw CodecError(.io, "The Ultra HDR base image was not encoded in memory.") }
    return try UltraHDRFile.assemble(primary: primary, map: map.result(), metadata: branch.metadata)
  }
}

extension Renderer {
  /// The float TIFF, PQ AVIF/HEIC or PQ PNG of `image`'s HDR rendition (`HDROutput.hdr`).
  ///
  /// - Throws: `.invalidArgument` when the output is not TIFF, AVIF, HEIC or PNG or the image has no gain map that
  ///   follows its graph (the reason is named).
  func hdrRenditionBytes(_ image: Image, format: ImageFileFormat, options: WriteOptions) throws -> Data {
    guard [.tiff, .avif, .heic, .png].contains(format) else {
      throw CodecError(
        .invalidArgument, "--hdr hdr writes a float TIFF (tif) or a PQ AVIF/HEIC/PNG; \(format.rawValue) output of the HDR rendition is not available.")
    }
    let (branch, problem) = image.gainMapBranch()
    guard let branch else {
      let toneMapped = image.toneMappedHDRSources().map { "\($0.name) is \($0.transfer.name), which is tone-mapped to SDR when read" }
      let reason = problem ?? toneMapped.first ?? "no source of the image has one"
      throw CodecError(.invalidArgument, "--hdr hdr needs a gain map (an Ultra HDR JPEG source): \(reason).")
    }
    let base = try render(image, format: .rgb8)
    let map = try render(branch.map, format: branch.map.info.layout == .gray ? .gray8 : .rgb8)
    if format == .tiff && options.hdrTransfer != .pq {
      throw CodecError(.invalidArgument, "--hdr-transfer \(options.hdrTransfer.rawValue) is for AVIF, HEIC or PNG; a float TIFF holds linear light.")
    }
    let hdr = try GainMapRendition.render(base: base, map: map, metadata: branch.metadata)
    if format != .tiff {
      return try hdrSignalBytes(hdr, headroom: branch.metadata.hdrCapacityMax, format: format, options: options)
    }
    var tiffOptions = options
    tiffOptions.hdr = .sdr
    tiffOptions.profile = .keep
    tiffOptions.formatOptions["bit-depth"] = "float"
    return try encode(Image(buffer: hdr), format: .tiff, options: tiffOptions)
  }
}
