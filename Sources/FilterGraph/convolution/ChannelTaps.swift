// ChannelTaps.swift — `SeparableFilter.symmetricTaps` on one float channel, vectorised.
//
// Definition: d[x] = k₀·c[x] + Σᵢ kᵢ·(aᵢ[x] + bᵢ[x]) with (aᵢ, bᵢ) = pair(i) and c = pair(0).0,
// each d[x] computed by the very operations, in the very order, of `symmetricTaps` (so the same
// floats), for eight x at a time through unaligned SIMD8 loads and stores: the one-channel loops
// over unsafe pointers are not vectorised by the compiler (the shadow's alpha blur ran scalar).

extension SeparableFilter {
  /// `symmetricTaps` on one channel (the shadow's alpha): the same sums, eight values at a time
  /// (lane by lane the same operations in the same order, so the same floats), then the last
  /// `count` mod 8 one at a time.
  @inline(__always)
  static func symmetricChannelTaps(
    into d: UnsafeMutablePointer<Float>, count: Int, weights k: UnsafeBufferPointer<Float>,
    pair: (Int) -> (UnsafePointer<Float>, UnsafePointer<Float>)
  ) {
    typealias Eight = SIMD8<Float>
    func at(_ p: UnsafePointer<Float>, _ x: Int) -> Eight { UnsafeRawPointer(p + x).loadUnaligned(as: Eight.self) }
    let out = UnsafeMutableRawPointer(d)
    let whole = count & ~7
    func sum(_ x: Int) -> Eight { at(UnsafePointer(d), x) }
    func set(_ x: Int, _ v: Eight) { out.storeBytes(of: v, toByteOffset: 4 * x, as: Eight.self) }
    let c = pair(0).0
    let k0 = k[0]
    var i = 1
    if k.count > 1 {
      let (a, b) = pair(1)
      let k1 = k[1]
      for x in stride(from: 0, to: whole, by: 8) { set(x, k0 * at(c, x) + k1 * (at(a, x) + at(b, x))) }
      i = 2
    } else {
      for x in stride(from: 0, to: whole, by: 8) { set(x, k0 * at(c, x)) }
    }
    while i + 1 < k.count {
      let (a1, b1) = pair(i), (a2, b2) = pair(i + 1)
      let ki = k[i], kj = k[i + 1]
      for x in stride(from: 0, to: whole, by: 8) {
        set(x, (sum(x) + ki * (at(a1, x) + at(b1, x))) + kj * (at(a2, x) + at(b2, x)))
      }
      i += 2
    }
    if i < k.count {
      let (a, b) = pair(i)
      let ki = k[i]
      for x in stride(from: 0, to: whole, by: 8) { set(x, sum(x) + ki * (at(a, x) + at(b, x))) }
    }
    guard whole < count else { return }
    symmetricTaps(into: d + whole, count: count - whole, weights: k) { i -> (UnsafePointer<Float>, UnsafePointer<Float>) in
      let (a, b) = pair(i)
      return (a + whole, b + whole)
    }
  }
}
