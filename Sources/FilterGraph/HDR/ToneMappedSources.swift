// ToneMappedSources.swift — the HDR (PQ/HLG) sources of an image, which their decoder tone-maps to SDR
// sRGB (`HDRToneMapping`: ITU-R BT.2446 method A, gamut-mapped to BT.709). Such a source carries a
// gain map through the graph (GainMapBranch) like an Ultra HDR one; where that map cannot be made
// (the source's bytes are not held), a write says the output is SDR: `--hdr keep` warns, `--hdr sdr`
// is silent.
import Foundation
import ImageCodecs

extension Image {
  /// The name and transfer of every source below this image that is decoded by tone mapping, each
  /// once, in the order a depth-first walk meets them (a loop: graphs may be very deep).
  public func toneMappedHDRSources() -> [(name: String, transfer: HDRTransfer)] {
    var found: [(name: String, transfer: HDRTransfer)] = []
    var seen: Set<ObjectIdentifier> = []
    var pending = [node]
    while let next = pending.popLast() {
      guard seen.insert(ObjectIdentifier(next)).inserted else { continue }
      if let source = next.operation as? EncodedSourceOperation, let transfer = source.source.header.hdrTransfer {
        found.append((source.source.name, transfer))
      }
      pending += next.inputs
    }
    return found
  }
}

extension Renderer {
  /// Says, through the warning handler, that the HDR sources of `image` are written tone-mapped to SDR.
  func warnToneMapped(_ image: Image) {
    for (name, transfer) in image.toneMappedHDRSources() {
      warningHandler?(
        "\(name) is HDR (\(transfer.name)): it is written as SDR, tone-mapped by ITU-R BT.2446 method A and gamut-mapped to BT.709 (--hdr sdr says this is intended)")
    }
  }
}
