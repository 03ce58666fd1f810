// Deadline.swift — runs work under a time limit: past it, the work's task is cancelled (a render
// stops after its current band, a fetch closes its connection) and the caller gets a 504.

/// `body`'s result, or `ServerError(504, message)` once `seconds` pass.
func withDeadline<T: Sendable>(seconds: Double, _ message: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
  try await withThrowingTaskGroup(of: T?.self) { group in
    group.addTask { try await body() }
    group.addTask {
      try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
      return nil
    }
    defer { group.cancelAll() }
    guard let first = try await group.next(), let value = first else { throw ServerError.timeout(message) }
    return value
  }
}
