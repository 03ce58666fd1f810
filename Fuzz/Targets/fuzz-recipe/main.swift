// fuzz-recipe — the recipe lexer, parser, checker and compiler on arbitrary text; graphs that
// compile are explained and, when small, rendered.
import FilterGraph
import Foundation

let renderer = Renderer(options: RendererOptions(threads: 1))
let input = Image(color: Color(red: 0.8, green: 0.4, blue: 0.1, alpha: 0.9), size: Size(width: 24, height: 16))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
  guard let recipe = try? Recipe.parse(text, file: "fuzz"), (try? recipe.check()) != nil else { return 0 }
  let context = FilterContext(baseDirectory: URL(fileURLWithPath: "/nonexistent"))
  guard let image = try? recipe.compile(input: input, context: context) else { return 0 }
  _ = try? renderer.explain(image)
  if image.size.width * image.size.height <= 1 << 16 { _ = try? renderer.render(image) }
  return 0
}
