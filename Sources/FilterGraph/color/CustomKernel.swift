// CustomKernel.swift — per-pixel filters written as Swift closures (like Core Image's CIColorKernel).
//
// Definition: for every pixel with straight (not premultiplied) RGBA c in the chosen working space
// (encoded by default), the output is body(c), premultiplied again by the alpha body returns
// (clamped to 0…1). A fully transparent input pixel reaches body as (0, 0, 0, 0). The closure must
// be a pure function of its argument: tiles run in any order on several threads at once.
// Kernels are point operations, so they fuse with neighbouring per-pixel filters into one pass; two
// kernels never merge (closures cannot be composed into one without calling both), and two
// `applyingKernel` calls are never treated as the same node, even with the same name.

import Foundation
import Synchronization
import PixelBufferModule

/// A per-pixel filter given by a Swift closure on straight RGBA.
public struct KernelOperation: PointOperation {
  /// A label for `explain` output.
  public let name: String
  /// The encoding `body` sees.
  public let space: WorkingSpace
  /// The per-pixel function on straight RGBA.
  public let body: @Sendable (SIMD4<Float>) -> SIMD4<Float>
  /// Tells kernels apart in cache keys (closures cannot be compared).
  let serial: Int

  /// Creates a kernel operation.
  public init(name: String = "kernel", workingSpace: WorkingSpace = .encoded, _ body: @escaping @Sendable (SIMD4<Float>) -> SIMD4<Float>) {
    self.name = name
    self.space = workingSpace
    self.body = body
    self.serial = KernelSerials.next()
  }

  /// `kernel` (Swift API only: a recipe cannot carry Swift code).
  public static let table = OperationDescriptor(
    name: "kernel", category: .color, summary: "A per-pixel Swift closure on straight RGBA (Swift API only).",
    parameters: [], example: "")

  public var descriptor: OperationDescriptor { Self.table }
  public var arguments: Arguments {
    Arguments([("name", .choice(name)), ("id", .number(Double(serial))), ("space", .choice(space.rawValue))])
  }
  public var workingSpace: WorkingSpace? { space }

  public func apply(to pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
    let body = self.body
    for i in 0..<count {
      let p = pixels[i]
      let inv: Float = p.w > 0 ? 1 / p.w : 0
      let o = body(SIMD4(p.x * inv, p.y * inv, p.z * inv, p.w))
      let a = min(max(o.w, 0), 1)
      pixels[i] = SIMD4(o.x * a, o.y * a, o.z * a, a)
    }
  }
}

/// Hands out distinct kernel numbers.
private enum KernelSerials {
  static let counter = Atomic<Int>(0)
  static func next() -> Int { counter.add(1, ordering: .relaxed).newValue }
}

extension Image {
  /// The image with `body` applied to every pixel's straight RGBA in `workingSpace` (encoded by
  /// default). `body` must be pure and thread-safe; the result's alpha is clamped to 0…1.
  ///
  /// ```swift
  /// let swapped = photo.applyingKernel(name: "swap") { c in SIMD4(c.z, c.y, c.x, c.w) }
  /// ```
  public func applyingKernel(
    name: String = "kernel", workingSpace: WorkingSpace = .encoded,
    _ body: @escaping @Sendable (SIMD4<Float>) -> SIMD4<Float>
  ) -> Image {
    applying(KernelOperation(name: name, workingSpace: workingSpace, body))
  }
}
