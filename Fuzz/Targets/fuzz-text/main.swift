// fuzz-text — the `text` source's layout on arbitrary strings and font files: fontconfig's
// fallback, ICU's bidi levels and line breaks, HarfBuzz's shaping, FreeType's outlines and
// colour glyphs, as `text string=… font=FILE` uses them. Input: a selector byte, then the
// string (UTF-8, repaired where invalid), then after the first NUL byte the font file's bytes
// (none: a family through fontconfig, picked by bits 0–1). The selector picks the size (bits
// 0–3: 4…64 px), the alignment (bits 4–5), wrapping at 40 px (bit 6) and bold italic (bit 7).
// Texts of at most 256K pixels are rendered.
import FilterGraph
import Foundation

@_silgen_name("__lsan_disable") func leakCheckingOff()
@_silgen_name("__lsan_enable") func leakCheckingOn()

/// fontconfig (Debian 12's 2.14.1) leaks 288 bytes, once per process, parsing its configuration
/// files (under FcInit, which the first layout calls): that first layout is made with leak
/// checking off. (A suppression cannot name it: the unwinder stops inside fontconfig.)
let warmedUp: Void = {
  leakCheckingOff()
  _ = try? Image(text: "a", style: TextStyle(size: 8))
  leakCheckingOn()
}()

let renderer = Renderer(options: RendererOptions(threads: 1))
/// Where the font bytes go: the layout opens font files by path, as the filter does.
let fontPath = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-text-\(getpid()).ttf").path
let families = ["sans-serif", "serif", "DejaVu Sans", "Noto Sans Arabic"]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  _ = warmedUp
  guard count > 1 else { return 0 }
  let selector = Int(start[0])
  let bytes = UnsafeBufferPointer(start: start + 1, count: count - 1)
  let nul = bytes.firstIndex(of: 0)
  let string = String(decoding: bytes[..<(nul ?? bytes.endIndex)], as: UTF8.self)
  var font = families[selector & 3]
  if let nul, nul + 1 < bytes.endIndex {
    guard FileManager.default.createFile(atPath: fontPath, contents: Data(bytes[(nul + 1)...])) else { return 0 }
    font = fontPath
  }
  let style = TextStyle(
    font: font, size: Double(4 + (selector & 15) * 4), color: .white, width: selector & 64 != 0 ? 40 : nil,
    alignment: TextAlignment.allCases[(selector >> 4) & 3], weight: selector & 128 != 0 ? .bold : .regular,
    italic: selector & 128 != 0)
  guard let image = try? Image(text: string, style: style) else { return 0 }
  if image.size.width * image.size.height <= 1 << 18 { _ = try? renderer.render(image) }
  return 0
}
