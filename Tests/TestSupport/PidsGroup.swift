// PidsGroup.swift — a pids cgroup that caps how many tasks (threads included) a child process may
// have, for tests of what a process does when the system refuses it a thread. Needs root and a
// pids controller: cgroup v1's /sys/fs/cgroup/pids, or cgroup v2 with pids enabled.

import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A pids cgroup of its own, removed when released (after its processes have ended).
public final class PidsGroup {
  /// The group's folder.
  public let path: String

  /// A new group that allows `limit` tasks; nil where no pids controller can be written to.
  public init?(limit: Int) {
    let name = "fgrun-test-\(getpid())-\(UUID().uuidString.prefix(8))"
    let v2 = "/sys/fs/cgroup/cgroup.subtree_control"
    let parent: String
    if FileManager.default.fileExists(atPath: "/sys/fs/cgroup/pids/cgroup.procs") {
      parent = "/sys/fs/cgroup/pids"
    } else if (try? String(contentsOfFile: v2, encoding: .utf8))?.split(separator: " ").contains(where: { $0.hasPrefix("pids") }) == true {
      parent = "/sys/fs/cgroup"
    } else {
      return nil
    }
    path = parent + "/" + name
    guard mkdir(path, 0o755) == 0 else { return nil }
    guard (try? Data("\(limit)".utf8).write(to: URL(fileURLWithPath: path + "/pids.max"))) != nil else {
      rmdir(path)
      return nil
    }
  }

  deinit { rmdir(path) }

  /// Starts `executable` with `arguments` in `folder`, inside the group: a shell moves itself into
  /// the group and then becomes the program, so the program's first task is the group's first.
  public func start(_ executable: String, _ arguments: [String], in folder: URL) throws -> ChildProcess {
    try ChildProcess("/bin/sh", ["-c", "echo $$ > \"$0/cgroup.procs\" && exec \"$@\"", path, executable] + arguments, in: folder)
  }

  /// Runs `executable` in the group to its end, or kills it (SIGKILL) after `seconds`.
  public func run(_ executable: String, _ arguments: [String], in folder: URL, killAfter seconds: Double) throws -> ChildProcess.Outcome {
    let child = try start(executable, arguments, in: folder)
    let pid = child.pid
    let deadline = Date(timeIntervalSinceNow: seconds)
    while Date() < deadline {
      var info = siginfo_t()
      if waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0, info._sifields._sigchld.si_pid == pid { return try child.wait() }
      usleep(20_000)
    }
    child.kill(SIGKILL)
    return try child.wait()
  }
}
