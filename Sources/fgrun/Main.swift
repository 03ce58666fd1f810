// Main.swift — `fgrun`: run plain-text FilterGraph recipes on image files.
//
// One file per subcommand: Run.swift (the default: one file, stdin/stdout, or a batch),
// Explain.swift, Filters.swift, Formats.swift, Info.swift, Serve.swift (the image server). Shared pieces: Options.swift (engine and output options),
// FormatFlags.swift (the codecs' options as flags), Failure.swift (exit codes and error reporting), Batch.swift (progress and summary).

import ArgumentParser

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

  /// Parses the arguments (a boolean format flag may be followed by true or false) and runs the
  /// subcommand, with SIGPIPE and SIGXFSZ turned into errors.
  static func main() {
    ProcessSignals.install()
    main(FormatFlags.normalizingBooleans(Array(CommandLine.arguments.dropFirst())))
  }
}
