// ProfileConversion.swift — `convert profile=PATH intent=…`: the image is to be written in an ICC
// profile.
//
// Definition: the working pixels are unchanged (linear light, sRGB primaries, extended range);
// the image's colour space becomes `.icc(profile)`. When it is written (with the default
// `--profile srgb`, or `keep`), every stored pixel is
//
//   out = clip(lcms2(linear sRGB → profile, intent, black-point compensation)(working pixel))
//
// rounded to the file's 8 or 16 bits, and the profile is embedded (`OutputColor.plan`,
// `TileConversion.storeConverting`), as `convert to=p3` makes an image stay Display P3. A gray
// profile makes the output gray (luminance of linear light, as `convert to=gray`, then the
// profile's curve). An explicit `--profile p3` or `--profile PATH` still wins, as it does over
// `convert to=p3`. `Renderer.render` (pixels in memory) gives sRGB values.
//
// The profile is read and checked when the recipe is built: a missing file, bytes lcms2 cannot
// read, or a CMYK (or other non-RGB, non-gray) profile is an error there, with the recipe's line
// and column.

import Foundation
import ImageCodecs
import PixelBufferModule

extension RenderingIntent: ParameterChoice {}

/// Tags an image to be written through an ICC profile with an intent; see the file's definition.
public struct ProfileConversionOperation: PointOperation {
  /// The profile's bytes.
  public let profile: Data
  /// Its description, for `explain`.
  public let profileName: String
  /// How colours outside the profile's gamut are mapped.
  public let intent: RenderingIntent
  /// Black-point compensation.
  public let blackPointCompensation: Bool
  /// The file the profile was read from, as the recipe named it (or its description).
  private let label: String

  /// The conversion to the RGB or gray profile in `data`, named `label` in `explain` output.
  ///
  /// - Throws: `CodecError(.invalidArgument)` when lcms2 cannot read `data`, `.unsupported` when it
  ///   is not an RGB or gray profile.
  public init(profile data: Data, intent: RenderingIntent = .relative, blackPointCompensation: Bool = false, label: String? = nil) throws {
    let opened: ICCProfile
    do { opened = try ICCProfile(data) } catch {
      throw CodecError(.invalidArgument, "The ICC profile \(label.map { "'\($0)' " } ?? "")cannot be used: \(error).")
    }
    guard opened.model == .rgb || opened.model == .gray else {
      throw CodecError(
        .unsupported,
        "The ICC profile \(label.map { "'\($0)' " } ?? "")is \(opened.model.rawValue.uppercased()); images can be converted only to RGB and gray profiles.")
    }
    profile = data
    profileName = opened.name
    self.intent = intent
    self.blackPointCompensation = blackPointCompensation
    self.label = label ?? opened.name
  }

  public var descriptor: OperationDescriptor { ColorConversionOperation.table }
  /// `profile=LABEL intent=… bpc=…` of `convert`'s parameters.
  public var arguments: Arguments {
    let rows = ColorConversionOperation.Parameters()
    return Arguments([
      (rows.$profile.name, .path(label)), rows.$intent.argument(intent), rows.$bpc.argument(blackPointCompensation),
    ])
  }
  /// Only the tag changes.
  public var workingSpace: WorkingSpace? { nil }

  public func outputInfo(inputs: [ImageInfo]) -> ImageInfo {
    var info = inputs[0]
    info.colorSpace = .icc(profile)
    info.metadata.iccProfile = profile
    return info
  }

  public func apply(to pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {}

  /// The profile conversion `image` is to be written through: the nearest `convert profile=`
  /// along its chain (each node's first input) whose profile the image still carries, or nil.
  static func requested(in image: Image) -> ProfileConversionOperation? {
    guard case .icc(let data) = image.info.colorSpace else { return nil }
    var node: ImageNode? = image.node
    while let current = node, current.info.colorSpace == .icc(data) {
      if let request = current.operation as? ProfileConversionOperation { return request }
      node = current.inputs.first
    }
    return nil
  }
}

extension Image {
  /// The image to be written in the RGB or gray ICC profile `data` with `intent` (and black-point
  /// compensation when `blackPointCompensation`): the file stores the profile's numbers and
  /// embeds it. See `ProfileConversionOperation` for the definition.
  ///
  /// ```swift
  /// let print = try photo.converted(toProfile: Data(contentsOf: profileURL), intent: .perceptual)
  /// try renderer.write(print, to: outputURL)
  /// ```
  ///
  /// - Throws: `CodecError` when lcms2 cannot read the profile or it is not RGB or gray.
  public func converted(toProfile data: Data, intent: RenderingIntent = .relative, blackPointCompensation: Bool = false) throws -> Image {
    applying(try ProfileConversionOperation(profile: data, intent: intent, blackPointCompensation: blackPointCompensation))
  }
}
