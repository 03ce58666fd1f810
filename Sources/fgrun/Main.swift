// Main.swift — `fgrun`: run plain-text FilterGraph recipes on image files.
//
// One file per subcommand: Run.swift (the default: one file, stdin/stdout, or a batch),
// Explain.swift, Filters.swift, Formats.swift, Info.swift, Serve.swift (the image server). Shared pieces: Options.swift (engine and output options),
// FormatFlags.swift (the codecs' options as flags), Failure.swift (exit codes and error reporting), Batch.swift (progress and summary).

import ArgumentParser
import Foundation

/// The `fgrun` command.
@main
struct FGRun: ParsableCommand {
  /// The version `--version` prints.
  static let version = "0.1.0"

  static let configuration = CommandConfiguration(
    commandName: "fgrun",
    abstract: "Runs FilterGraph recipes on image files (JPEG, PNG and the others `fgrun formats` lists).",
    discussion: """
      A recipe is a text file with one filter a line (see docs/Recipes.md), for example:

        scale fit=800x800
        tint color=#FF8000 amount=0.3
        blur sigma=2

      Examples:
        fgrun thumbnail.txt photo.jpg thumb.png
        fgrun -e 'scale 0.5; blur sigma=2' photo.jpg - > small.jpg
        fgrun thumbnail.txt photos/*.jpg -o thumbs --format png
        fgrun explain thumbnail.txt photo.jpg
        fgrun filters blur
        fgrun info --stats photo.jpg
        fgrun montage photos/*.jpg -o sheet.jpg --columns 6 --cell 300x300

      Exit status:
        0   success
        1   some files of a batch failed (the others were written)
        64  usage or recipe error (bad option, unknown filter, bad value…)
        65  input error (missing, corrupt, unsupported or too large input, or refused by --fail-on)
        70  internal error (a bug: please report it)
        73  output error (cannot write, disk full, refusing to overwrite an input)
        130 a batch interrupted by Ctrl-C (rerun with --resume to finish)

      An input file is never overwritten; an existing output is replaced only once the new file is complete, so a failed run leaves no half-written file.
      """,
    version: "fgrun \(FGRun.version) (FilterGraph)",
    subcommands: [Run.self, Explain.self, Filters.self, Formats.self, Info.self, Montage.self, Serve.self],
    defaultSubcommand: Run.self)

  /// Parses the arguments (the codecs' option flags rewritten as `--format-option NAME=VALUE`,
  /// FormatFlags.swift) and runs the subcommand, with SIGPIPE and SIGXFSZ turned into errors.
  static func main() {
    ProcessSignals.install()
    shareOneMallocArenaUnderAnAddressSpaceLimit()
    let arguments = Array(CommandLine.arguments.dropFirst())
    do {
      var command = try parseAsRoot(FormatFlags.rewritten(arguments))
      try command.run()
    } catch {
      exit(withError: error, suggesting: arguments)
    }
  }

  /// Exits as ArgumentParser would for `error`, with a did-you-mean for an unknown option that is
  /// a mistyped format flag (the parser knows those flags only as `--format-option`), and the
  /// flag as the user wrote it where a command without format options refused one.
  private static func exit(withError error: Error, suggesting arguments: [String]) -> Never {
    var message = fullMessage(for: error)
    let code = exitCode(for: error)
    if let range = message.range(of: #"Unknown option '(--[^']+)'"#, options: .regularExpression) {
      let unknown = String(message[range].dropFirst("Unknown option '".count).dropLast())
      if unknown == "--format-option", let flag = arguments.first(where: { FormatFlags.option(named: $0.prefix { $0 != "=" }) != nil }) {
        message.replaceSubrange(range, with: "Unknown option '\(flag.prefix { $0 != "=" })': this command takes no format options")
      } else if !message.contains("Did you mean"), let suggestion = FormatFlags.suggestion(for: unknown) {
        message.replaceSubrange(range, with: "Unknown option '\(unknown)'. Did you mean '\(suggestion)'?")
      }
    }
    // fgrun's own errors (`Failure`) print their message already, ending in a newline.
    if !message.isEmpty && !message.hasSuffix("\n") { message += "\n" }
    if code == .success {
      FileHandle.standardOutput.write(Data(message.utf8))
    } else {
      FileHandle.standardError.write(Data(message.utf8))
    }
    Foundation.exit(code.rawValue)
  }
}
