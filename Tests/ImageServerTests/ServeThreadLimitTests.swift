// ServeThreadLimitTests.swift — `fgrun serve` when the system refuses threads: in a pids cgroup
// too small to serve it refuses to start with a message and exit 71; with room for a few threads
// it answers on fewer; it never hangs and never dies of a signal.

import Foundation
import Glibc
import TestSupport
import XCTest

final class ServeThreadLimitTests: XCTestCase {
  /// The server in pids cgroups of 2, 4, 6, 8 and 16 tasks (the main thread counts as one), each
  /// with a real listener on loopback: within 30 s it either exits 71 saying how many threads it
  /// got and needs, or answers /health and a 200 PNG for an image URL from a real HTTP client and
  /// ends 0 on SIGTERM. 2 and 4 cannot serve on this machine's cores; 16 must. Skipped where no
  /// pids cgroup can be made (not root, no pids controller).
  func testTooFewThreadsIsAClearRefusalAndEnoughIsAnAnswer() async throws {
    let binary = try XCTUnwrap(ServeCommandTests.binary, "run `swift build --build-tests` first (or set FGRUN)")
    let folder = try ServedFolder()
    var outcomes: [Int: String] = [:]
    for limit in [2, 4, 6, 8, 16] {
      guard let group = PidsGroup(limit: limit) else { throw XCTSkip("no pids cgroup to limit threads with (needs root and a pids controller)") }
      let port = freeLoopbackPort()
      let child = try group.start(
        binary, ["serve", "--bind", "127.0.0.1:\(port)", "--root", folder.root.path, "--allow-unsigned", "--threads", "2"], in: folder.root)
      var reaped = false
      defer { if !reaped { child.kill(SIGKILL); _ = try? child.wait() } }
      var answered = false
      for _ in 0..<300 {
        if Self.hasEnded(child) { break }
        if (try? await HTTPResult.get("http://127.0.0.1:\(port)/health", timeout: 2).status) == 200 {
          answered = true
          break
        }
        try await Task.sleep(nanoseconds: 100_000_000)
      }
      if answered {
        let image = try await HTTPResult.get("http://127.0.0.1:\(port)/_/w:40/plain/local:///photo.jpg@png", timeout: 30)
        XCTAssertEqual(image.status, 200, "pids.max \(limit): \(image.text)")
        XCTAssertEqual(image.headers["content-type"], "image/png", "pids.max \(limit)")
        child.kill(SIGTERM)
      }
      for _ in 0..<300 where !Self.hasEnded(child) { try await Task.sleep(nanoseconds: 100_000_000) }
      XCTAssertTrue(Self.hasEnded(child), "pids.max \(limit): the server neither answered nor ended within 30 s")
      child.kill(SIGKILL)
      let outcome = try child.wait()
      reaped = true
      XCTAssertLessThan(outcome.status, 128, "pids.max \(limit): died of a signal: \(outcome.stderr)")
      if answered {
        XCTAssertEqual(outcome.status, 0, "pids.max \(limit): \(outcome.stderr)")
        outcomes[limit] = "answered"
      } else {
        XCTAssertEqual(outcome.status, 71, "pids.max \(limit): \(outcome.stderr)")
        XCTAssertTrue(outcome.stderr.contains("fgrun serve: The system lets this process start only"), "pids.max \(limit): \(outcome.stderr)")
        XCTAssertTrue(outcome.stderr.contains("and the server needs at least"), "pids.max \(limit): \(outcome.stderr)")
        outcomes[limit] = "refused"
      }
    }
    XCTAssertEqual(outcomes[2], "refused")
    XCTAssertEqual(outcomes[4], "refused")
    XCTAssertEqual(outcomes[16], "answered")
  }

  /// True once `child` has exited (it stays to be reaped).
  private static func hasEnded(_ child: ChildProcess) -> Bool {
    var info = siginfo_t()
    return waitid(P_PID, id_t(child.pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info._sifields._sigchld.si_pid == child.pid
  }
}
