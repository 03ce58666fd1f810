// MallocInfo.swift — glibc's allocator's own totals, from the report `malloc_info` prints.

import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The totals glibc's `malloc_info` reports over every arena (so allocations on other threads
/// count too). Found at run time (Swift's Glibc module leaves out malloc.h); nil where it is
/// missing.
public struct MallocInfo {
  private let report: String

  public init?() {
    guard let symbol = dlsym(nil, "malloc_info") else { return nil }
    typealias Function = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
    var text: UnsafeMutablePointer<CChar>?
    var length = 0
    guard let stream = open_memstream(&text, &length) else { return nil }
    _ = unsafeBitCast(symbol, to: Function.self)(0, stream)
    fclose(stream)
    defer { free(text) }
    guard let text else { return nil }
    report = String(cString: text)
  }

  /// The size of the report's `<element type="type" … size=…>` total: the last such line, as the
  /// totals come after every arena's own lines. 0 when there is none.
  public func total(_ element: String, _ type: String) -> Int {
    guard let range = report.range(of: "<\(element) type=\"\(type)\"", options: .backwards) else { return 0 }
    let rest = report[range.upperBound...]
    guard let size = rest.range(of: "size=\"") else { return 0 }
    return Int(rest[size.upperBound...].prefix { $0.isNumber }) ?? 0
  }

  /// What the allocator holds from the system: its arenas' current size and the blocks it mapped
  /// directly.
  public var systemBytes: Int { total("system", "current") + total("total", "mmap") }

  /// The bytes handed out and not taken back: `systemBytes` less the arenas' free chunks.
  public var bytesInUse: Int { systemBytes - total("total", "fast") - total("total", "rest") }
}
