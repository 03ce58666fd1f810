// InputProtection.swift — no output of a run replaces a file the run reads, or another output.
//
// Every file the run reads is recorded by identity (device and inode, FileIdentity.swift) before
// anything is written: the inputs (a manifest's, all of them, read in a first pass), the recipe
// file, the files the recipe reads (`load`, a watermark, a font file), the manifest, and a regular
// file given as standard input. An output, the `--report` file and a regular file behind standard
// output are refused (exit 73) when they are one of those files, whatever path reaches them:
// symbolic links to the file or to a folder on the way, `..`, hard links, bind mounts. Two outputs
// are one file when their folders have one identity and their names are equal; the first to claim
// the name keeps it. A manifest on standard input is copied to a temporary file first (Manifest.swift)
// and protected as a file is; one given as the path of a pipe can be read only once, so its inputs
// are protected as its lines arrive.

import FilterGraph
import Foundation
import ImageCodecs
import Locking

#if canImport(Glibc)
  import Glibc
#endif

/// The files a run reads and the outputs it has claimed.
final class InputProtection: Sendable {
  /// An output's place: its folder's identity (or path, while the folder does not exist) and name.
  private struct Place: Hashable {
    var folder: FileIdentity?
    var folderPath: String?
    var name: String
  }

  /// What each file read is, for messages ("the recipe", "an input"…).
  private let reads = Locked<[FileIdentity: String]>([:])
  private let outputs = Locked<[Place: String]>([:])

  /// Records the file at `path` as read by the run, described as `role`; a path that names no
  /// file is ignored (it cannot be replaced, and it is not read).
  func protect(_ path: String, as role: String) {
    guard let identity = FileIdentity(path: path) else { return }
    reads.withLock { if $0[identity] == nil { $0[identity] = "\(role) \(path)" } }
  }

  /// Records the recipe file and every file the recipe reads.
  func protect(recipe source: RecipeSource, path: String?, loadOptions: LoadOptions) {
    if let path { protect(path, as: "the recipe") }
    let files = (try? source.recipe.referencedFiles(context: source.context(loadOptions: loadOptions))) ?? []
    for url in files { protect(url.path, as: "the recipe's file") }
  }

  /// Records standard input when it is a regular file (`fgrun R - OUT < FILE`).
  func protectStandardInput() {
    var status = stat()
    guard fstat(STDIN_FILENO, &status) == 0, status.st_mode & S_IFMT == S_IFREG, let identity = FileIdentity(descriptor: STDIN_FILENO)
    else { return }
    reads.withLock { if $0[identity] == nil { $0[identity] = "standard input" } }
  }

  /// Records every input of `manifest` (a first pass over it; its lines are not kept), and the
  /// manifest itself (standard input, when it is a regular file). A pipe given by its path is not
  /// read here: it can be read once only, and its writer may wait for the batch's progress; the
  /// batch protects each of its inputs as it reads the line.
  func protect(manifest: Manifest) throws {
    if manifest.path == "-" { protectStandardInput() } else { protect(manifest.path, as: "the manifest") }
    guard manifest.isRereadable else { return }
    for item in try manifest.lines() { protect(item.input, as: "the input") }
  }

  /// Claims `url` as an output of the run (`role`: "an output", "the report").
  ///
  /// - Throws: `Failure` (exit 73) when `url` is a file the run reads, or another output already
  ///   claimed it.
  func claim(_ url: URL, as role: String = "the output") throws {
    let shown = url.relativePath
    if let identity = FileIdentity(path: url.path), let read = reads.withLock({ $0[identity] }) {
      throw Failure(status: ExitStatus.output, message: "Refusing to write \(role) \(shown) over \(read), which this run reads; choose another name.")
    }
    let folder = url.deletingLastPathComponent()
    let folderIdentity = FileIdentity(path: folder.path)
    let place = Place(
      folder: folderIdentity, folderPath: folderIdentity == nil ? folder.standardizedFileURL.path : nil, name: url.lastPathComponent)
    try outputs.withLock { outputs in
      if let earlier = outputs[place] {
        throw Failure(
          status: ExitStatus.output, message: "Refusing to write \(role) \(shown): it is the same file as \(earlier) of this run; rename one of them.")
      }
      outputs[place] = "\(role) \(shown)"
    }
  }

  /// Refuses standard output when it is a regular file the run reads (`fgrun R IN - >> IN`).
  func claimStandardOutput() throws {
    guard let identity = FileIdentity(descriptor: STDOUT_FILENO), let read = reads.withLock({ $0[identity] }) else { return }
    throw Failure(status: ExitStatus.output, message: "Refusing to write standard output: it is \(read), which this run reads.")
  }

  /// Protects a one-file run's input and claims its output (`-`: standard input and output).
  func claimSingleRun(input: String, output: String) throws {
    if input == "-" { protectStandardInput() } else { protect(input, as: "the input") }
    if output == "-" { try claimStandardOutput() } else { try claim(URL(fileURLWithPath: output)) }
  }
}
