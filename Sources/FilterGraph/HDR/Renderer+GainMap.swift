// Renderer+GainMap.swift — writing an image whose source carries a gain map (`WriteOptions.hdr`).
//
// `.keep` (the default): a JPEG output whose gain map follows the graph (`GainMapBranch`) is
// written as an Ultra HDR JPEG — the base rendered and encoded as usual, the map rendered through
// its branch and encoded as an 8-bit JPEG (quality 90, 4:4:4 for a colour map), both joined with
// the unchanged metadata (`UltraHDRFile`). Both are encoded in memory (the MPF index at the start
// of the file needs the base's length) and the file is written atomically. Where the map cannot
// follow (a filter that ends the branch) or the format cannot carry it, the SDR base is written
// and the renderer's warning handler says so. `.sdr`: the base alone, without a warning.
import Foundation
import ImageCodecs
import PixelBufferModule

/// What a write does with a source's gain map.
public enum HDROutput: String, CaseIterable, Hashable, Sendable {
  /// Write the map again where the format carries it (JPEG: Ultra HDR); warn where it cannot.
  case keep
  /// Write the SDR base alone, knowingly.
  case sdr
}

extension Renderer {
  /// The Ultra HDR file of `image` when it should be written as one (`.keep`, a JPEG output, a gain
  /// map that follows the graph), or nil when the plain write applies; warnings for a map that is
  /// lost go to the warning handler.
  func ultraHDRBytes(_ image: Image, format: ImageFileFormat, options: WriteOptions) throws -> Data? {
    guard options.hdr == .keep else { return nil }
    let (branch, problem) = image.gainMapBranch()
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
    let base = try encode(image, format: .jpeg, options: baseOptions)
    var mapOptions = WriteOptions(format: .jpeg, options: ["quality": 90, "chroma": "444"])
    mapOptions.keptMetadata = []
    let map = try encode(branch.map, format: .jpeg, options: mapOptions)
    return try UltraHDRFile.assemble(primary: base, map: map, metadata: branch.metadata)
  }
}
