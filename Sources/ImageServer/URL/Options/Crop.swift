// Crop.swift — crop/c: cut an area of the source before resizing. Sizes of at least 1 are pixels,
// smaller ones fractions of the source, 0 the whole side; the area is placed by its own gravity
// or else the gravity option's (`cropped(to:gravity:x:y:)`, `smartCropped(to:)` for sm).

import FilterGraph

/// The crop step.
struct CropStep: ImageStep {
  static let stage = Stage.crop
  var width: Double
  var height: Double
  var gravity: GravityChoice?

  func apply(to image: Image, context: StepContext) throws -> Image {
    let size = image.size
    func side(_ value: Double, _ full: Int) -> Int {
      value == 0 ? full : value < 1 ? max(1, Int((value * Double(full)).rounded())) : min(Int(value), full)
    }
    let box = Size(width: side(width, size.width), height: side(height, size.height))
    if box == size { return image }
    return (gravity ?? context.gravity).crop(image, to: box, dpr: 1)
  }
}

extension URLOption {
  static let crop = URLOption(
    names: ["crop", "c"], arguments: "%width:%height:%gravity", summary: "Cut an area of the source before resizing."
  ) { args, options in
    let width = try args.number(0, in: 0...65535, default: 0)
    let height = try args.number(1, in: 0...65535, default: 0)
    let gravity = args.has(2) ? try GravityChoice.parse(args, at: 2) : nil
    options.set(CropStep(width: width, height: height, gravity: gravity))
  }
}
