// ServerThreads.swift — how many threads `fgrun serve` starts, decided before it starts any.
//
// The server's threads come from three places: SwiftNIO's event loops (they accept connections,
// read requests and run the request timers), libdispatch (Swift concurrency's cooperative pool,
// where the request handlers run, one thread per core at most, and the queue that watches for
// SIGTERM), and the renderer (its workers and its drivers). When the system refuses a thread (a
// pids cgroup, RLIMIT_NPROC, an address-space limit too small for a stack), NIO stops the process
// (a failed precondition: SIGILL, no message) and libdispatch retries forever, so the server
// died or never answered. Here the room is counted first (`SystemThread.headroom`); when it is
// short, libdispatch's share is kept free, NIO gets one event loop and the renderer what is
// left, or the server refuses to start and says why.

import FilterGraph
import Foundation
import NIOCore

/// The threads the server starts, fitted to the room the system gives.
public struct ServerThreads: Sendable {
  /// NIO event loops: nil for NIO's own default (one per core).
  public let eventLoops: Int?
  /// Renderer worker threads (the drivers are as many).
  public let rendererThreads: Int
  /// A sentence for the log when the room was short and the server runs with fewer threads.
  public let shortfall: String?

  /// libdispatch's threads at most: the cooperative pool's (one per active core) and one for its
  /// other queues (the signal watch, timers).
  static func dispatchThreads(cores: Int) -> Int { cores + 1 }

  /// The threads the server starts given `rendererThreads` asked for, on a system that lets the
  /// process start `headroom(n)` more threads (counted up to `n`).
  ///
  /// - Throws: `ThreadShortage` when not even one event loop, libdispatch's share, one renderer
  ///   worker and one driver fit.
  public static func fitted(
    rendererThreads asked: Int, loops: Int = System.coreCount, cores: Int = ProcessInfo.processInfo.activeProcessorCount,
    headroom: (Int) -> Int = SystemThread.headroom(upTo:)
  ) throws -> ServerThreads {
    let dispatch = dispatchThreads(cores: cores)
    let wanted = loops + dispatch + 2 * asked
    let room = headroom(wanted)
    if room >= wanted { return ServerThreads(eventLoops: nil, rendererThreads: asked, shortfall: nil) }
    let least = 1 + dispatch + 2
    guard room >= least else {
      throw ThreadShortage(
        message: "The system lets this process start only \(room) more thread\(room == 1 ? "" : "s") (a pids cgroup, a limit on processes or on memory), "
          + "and the server needs at least \(least): 1 network event loop, \(dispatch) for request handling and signals, 1 renderer worker and 1 render driver. Raise the limit.")
    }
    let renderer = min(asked, (room - 1 - dispatch) / 2)
    return ServerThreads(
      eventLoops: 1, rendererThreads: renderer,
      shortfall: "The system lets this process start only \(room) more threads of the \(wanted) asked for; serving with 1 network event loop and \(renderer) renderer thread\(renderer == 1 ? "" : "s").")
  }

  /// The system gives too few threads to serve at all.
  public struct ThreadShortage: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
  }

  /// Makes NIO's shared event loop group `eventLoops` loops, when set. Call before anything uses
  /// NIO's singletons (the server, an HTTP client), once.
  public func apply() {
    if let eventLoops { NIOSingletons.groupLoopCountSuggestion = eventLoops }
  }
}
