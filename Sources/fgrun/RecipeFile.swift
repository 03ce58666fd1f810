// RecipeFile.swift — a recipe file's text, read through its descriptor within a size limit.
//
// Read with read(2) rather than as a mapped or stat-sized file, so a named pipe or `<(…)` works
// like a file; refused past `maxBytes` (4 MiB: a recipe holds at most 10,000 statements and a
// `text` at most 1 MiB), since parsing costs memory many times the text (a 200 MB comment once
// took 3.45 GB).

import Foundation
import ImageCodecs

#if canImport(Glibc)
  import Glibc
#endif

enum RecipeFile {
  /// The most bytes a recipe file may hold.
  static let maxBytes = 4 << 20

  /// The UTF-8 text of the recipe file at `url` (`shown` as the user typed it).
  ///
  /// - Throws: `Failure` (exit 64) when it is missing, unreadable, too long or not UTF-8.
  static func text(of url: URL, shown: String) throws -> String {
    let fd = open(url.path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
      let reason = errno == ENOENT ? "does not exist" : "cannot be opened: \(String(cString: strerror(errno)))"
      throw Failure(status: ExitStatus.usage, message: "The recipe file \(shown) \(reason).")
    }
    defer { close(fd) }
    let data: Data
    do {
      data = try InputBytes.read(descriptor: fd, name: "the recipe file \(shown)", limit: maxBytes)
    } catch let error as CodecError where error.kind == .tooLarge {
      throw Failure(
        status: ExitStatus.usage,
        message: "The recipe file \(shown) is longer than \(maxBytes) bytes (4 MiB), the most a recipe may be; split the work into several recipes.")
    } catch let error as CodecError {
      throw Failure(status: ExitStatus.usage, message: error.message)
    }
    guard let text = String(data: data, encoding: .utf8) else {
      throw Failure(status: ExitStatus.usage, message: "The recipe file \(shown) cannot be read as UTF-8 text.")
    }
    return text
  }
}
