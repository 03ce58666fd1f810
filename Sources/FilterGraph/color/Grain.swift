// Grain.swift — film grain: noise of a given strength and size, the same for a seed wherever and
// however the image is cut into tiles.
//
// Definition. Lattice points (i, j) (integers) carry values
//
//   G(i, j) = u₁ + u₂ − 1 ∈ (−1, 1)      (triangular: mean 0, standard deviation 1/√6),
//
// where u₁, u₂ ∈ [0, 1) are the top 24 bits of two rounds of SplitMix64 over (seed, i, j). With
// s = size, pixel (x, y) (its centre at (x + ½, y + ½)) reads the lattice at u = (x + ½)/s − ½,
// v = (y + ½)/s − ½ and interpolates bilinearly: with i = ⌊u⌋, j = ⌊v⌋, fx = u − i, fy = v − j,
//
//   n(x, y) = (1−fy)·((1−fx)·G(i, j) + fx·G(i+1, j)) + fy·((1−fx)·G(i, j+1) + fx·G(i+1, j+1)),
//
// so size 1 is independent noise per pixel and larger sizes give softer, coarser grain. Then
//
//   r' = r + amount·n·a,  g' = g + amount·n·a,  b' = b + amount·n·a,  a' = a
//
// on premultiplied sRGB-encoded values (the same n on the three channels: luminance grain, as
// film's; premultiplied by alpha so transparent pixels stay transparent). Values are not clipped
// here (the store clips). n depends only on the seed and the pixel's position in the image, so
// the result is the same whatever the tile size or the number of workers: a
// `PositionalPointOperation`, fused with the per-pixel filters around it.

import PixelBufferModule

/// Film grain; see the definition at the top of Grain.swift.
public struct GrainOperation: PositionalPointOperation {
  /// `grain amount=0.05 size=1 seed=0`.
  public struct Parameters: FilterParameters {
    /// Strength: the largest change, as a fraction of full scale.
    @Param("amount", range: 0...1, percent: .fraction, help: "Largest change, as a fraction of full scale (0.05 = 5 %).")
    public var amount = 0.05
    /// Grain size in pixels (the lattice spacing).
    @Param("size", range: 1...100, help: "Grain size in pixels (1: every pixel its own).")
    public var size = 1.0
    /// The seed: each gives its own grain.
    @Param("seed", range: 0...2_147_483_647, help: "Each seed gives its own grain; the same seed the same.")
    public var seed = 0

    /// The defaults.
    public init() {}
  }

  /// The parameters, in their ranges.
  public let parameters: Parameters

  /// Creates the operation.
  public init(_ parameters: Parameters) { self.parameters = parameters }

  public static let table = OperationDescriptor(
    name: "grain", category: .color,
    summary: "Adds film grain of a strength and size, the same for a seed however the image is tiled.",
    parameters: Parameters.table, example: "grain amount=0.06 size=1.5 seed=7")

  public var descriptor: OperationDescriptor { Self.table }
  public var arguments: Arguments { parameters.arguments }
  public var workingSpace: WorkingSpace? { .encoded }

  /// G(i, j) of the definition.
  static func lattice(_ seed: Int, _ i: Int, _ j: Int) -> Float {
    func mix(_ v: UInt64) -> UInt64 {
      var z = v &+ 0x9E37_79B9_7F4A_7C15
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    let first = mix(UInt64(truncatingIfNeeded: seed) ^ mix(UInt64(bitPattern: Int64(i)) ^ mix(UInt64(bitPattern: Int64(j)))))
    let second = mix(first)
    let scale: Float = 1.0 / 16_777_216
    return Float(first >> 40) * scale + Float(second >> 40) * scale - 1
  }

  /// n(x, y) of the definition.
  static func noise(_ seed: Int, size: Double, x: Int, y: Int) -> Float {
    if size == 1 { return lattice(seed, x, y) }
    let u = (Double(x) + 0.5) / size - 0.5, v = (Double(y) + 0.5) / size - 0.5
    let i = Int(u.rounded(.down)), j = Int(v.rounded(.down))
    let fx = Float(u - Double(i)), fy = Float(v - Double(j))
    let top = (1 - fx) * lattice(seed, i, j) + fx * lattice(seed, i + 1, j)
    let bottom = (1 - fx) * lattice(seed, i, j + 1) + fx * lattice(seed, i + 1, j + 1)
    return (1 - fy) * top + fy * bottom
  }

  public func apply(to pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int, at position: PixelRowPosition) {
    let (strength, size, seed) = (Float(parameters.amount), parameters.size, parameters.seed)
    for k in 0..<count {
      let p = pixels[k]
      let d = strength * Self.noise(seed, size: size, x: position.x + k, y: position.y) * p.w
      pixels[k] = SIMD4(p.x + d, p.y + d, p.z + d, p.w)
    }
  }
}

extension Image {
  /// The image with film grain (see `GrainOperation`): noise of strength `amount` (0…1 of full
  /// scale) and size `size` pixels, fixed by `seed` and by each pixel's position, so the result
  /// is the same however it is rendered. Arguments are clamped into their ranges.
  ///
  /// ```swift
  /// let filmic = photo.grained(amount: 0.06, size: 1.5, seed: 7)
  /// ```
  public func grained(amount: Double = 0.05, size: Double = 1, seed: Int = 0) -> Image {
    var parameters = GrainOperation.Parameters()
    (parameters.amount, parameters.size, parameters.seed) = (amount, size, seed)
    return applying(GrainOperation(parameters))
  }
}

extension ColorFilters {
  /// `grain amount=0.05 size=1 seed=0`.
  public static let grain = FilterDefinition(GrainOperation.table, reading: GrainOperation.Parameters.self) { inputs, p, _ in
    inputs[0].grained(amount: p.amount, size: p.size, seed: p.seed)
  }
}
