// ChildProcess.swift — runs a program as a child process for end-to-end tests: standard streams
// to files, an optional working folder, and a way to kill it part-way.
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A program started with `posix_spawn` (no Foundation.Process: no pipes to drain, no child
/// monitoring thread), whose standard input, output and error are files.
public final class ChildProcess {
  /// What a finished process did.
  public struct Outcome {
    /// The exit code, or 128 + the signal that killed it (as shells report it).
    public var status: Int32
    /// Everything it wrote to standard output.
    public var stdout: Data
    /// Everything it wrote to standard error.
    public var stderr: String
    /// Standard output as text.
    public var text: String { String(decoding: stdout, as: UTF8.self) }
  }

  /// The process id.
  public let pid: pid_t
  private let io: URL

  /// Starts `executable` with `arguments` in `folder` (through coreutils' `env -C`, as glibc's
  /// `posix_spawn_file_actions_addchdir_np` is not visible to Swift). `stdin` is fed from a file.
  public init(_ executable: String, _ arguments: [String], in folder: URL, stdin: Data? = nil) throws {
    io = FileManager.default.temporaryDirectory.appendingPathComponent("child-io-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: io, withIntermediateDirectories: true)
    try (stdin ?? Data()).write(to: io.appendingPathComponent("stdin"))
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, io.appendingPathComponent("stdin").path, O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, io.appendingPathComponent("stdout").path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, io.appendingPathComponent("stderr").path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    let argv: [UnsafeMutablePointer<CChar>?] = (["env", "-C", folder.path, executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, "/usr/bin/env", &actions, nil, argv, environ)
    guard spawned == 0 else {
      try? FileManager.default.removeItem(at: io)
      throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL)
    }
    self.pid = pid
  }

  deinit { try? FileManager.default.removeItem(at: io) }

  /// Sends `signal` to the process.
  public func kill(_ signal: Int32) { _ = Glibc.kill(pid, signal) }

  /// Waits for the process to end and returns what it did.
  public func wait() throws -> Outcome {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    return Outcome(
      status: code, stdout: try Data(contentsOf: io.appendingPathComponent("stdout")),
      stderr: String(decoding: try Data(contentsOf: io.appendingPathComponent("stderr")), as: UTF8.self))
  }

  /// Runs `executable` to its end.
  public static func run(_ executable: String, _ arguments: [String], in folder: URL, stdin: Data? = nil) throws -> Outcome {
    try ChildProcess(executable, arguments, in: folder, stdin: stdin).wait()
  }
}
