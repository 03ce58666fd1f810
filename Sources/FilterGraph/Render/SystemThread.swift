// SystemThread.swift — threads started with pthread_create, which says when the system refuses
// one (a pids cgroup, RLIMIT_NPROC, an address-space limit too small for the stack).
//
// Foundation's `Thread.start` fails silently, and libdispatch retries a refused thread forever
// (the caller sleeps in `_dispatch_temporary_resource_shortage`), so work that must progress is
// never left waiting for either: whoever starts a thread here learns at once whether it runs, and
// does the work itself, with fewer threads, or says why it cannot.

import Foundation
import Locking

#if canImport(Glibc)
  import Glibc
#endif

/// Starting threads that may be refused, and counting how many the system would allow.
public enum SystemThread {
  /// The stack of every thread started here: room for a decoder's frames, as the main thread has.
  public static let stackBytes = 8 << 20

  /// Starts a detached thread named `name` that runs `body`; false (and `body` never runs) when
  /// the system refuses it.
  @discardableResult
  public static func start(named name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
    create(detached: true, Start(name: name, body: body)) != nil
  }

  /// How many more threads this process could start now, counted up to `limit`: that many are
  /// started with the same stack, held until the count is known, ended and waited for until the
  /// kernel has released them (they no longer count against a pids limit when this returns).
  /// Other processes in the same cgroup may take the room afterwards; the count is a snapshot.
  public static func headroom(upTo limit: Int) -> Int {
    let released = Monitor(false)
    let before = taskCount()
    var threads: [pthread_t] = []
    while threads.count < limit,
      let thread = create(detached: false, Start(name: "FilterGraph probe") { released.withLock(waitingUntil: { $0 }) { _ in } })
    {
      threads.append(thread)
    }
    released.update { $0 = true }
    for thread in threads { pthread_join(thread, nil) }
    // A joined thread is gone from user space a moment before the kernel releases its task (and
    // its pids charge); the task leaves /proc/self/task only once released. Wait for that, briefly.
    if let before {
      for _ in 0..<200 where (taskCount() ?? 0) > before { usleep(500) }
    }
    return threads.count
  }

  /// The threads of this process, from /proc/self/task; nil where that is not readable.
  private static func taskCount() -> Int? {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task"))?.count
  }

  /// What a new thread runs: its name and body.
  private final class Start {
    let name: String
    let body: @Sendable () -> Void
    init(name: String, body: @escaping @Sendable () -> Void) {
      self.name = name
      self.body = body
    }
  }

  /// pthread_create with `stackBytes` of stack; the thread, or nil when the system refused it.
  private static func create(detached: Bool, _ start: Start) -> pthread_t? {
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setstacksize(&attributes, stackBytes)
    pthread_attr_setdetachstate(&attributes, Int32(detached ? PTHREAD_CREATE_DETACHED : PTHREAD_CREATE_JOINABLE))
    let context = Unmanaged.passRetained(start)
    var thread = pthread_t()
    let status = pthread_create(&thread, &attributes, { context in
      let start = Unmanaged<Start>.fromOpaque(context!).takeRetainedValue()
      Thread.current.name = start.name
      start.body()
      return nil
    }, context.toOpaque())
    guard status == 0 else {
      context.release()
      return nil
    }
    return thread
  }
}
