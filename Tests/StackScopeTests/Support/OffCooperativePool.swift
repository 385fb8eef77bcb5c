import Foundation

/// Runs `body` on a thread of its own and waits for it without holding one of Swift
/// concurrency's cooperative threads.
///
/// The cooperative pool has as many threads as the machine has cores (two on the dev and CI
/// machines), and Swift Testing runs synchronous tests on it. A test that blocks for long (a
/// child process streaming 100 MB, a harness polling the screen for a minute) holds one of
/// them; two such tests at once leave none for the async work of the code under test
/// (`CoreDataStack.resetStore(callbackQueue:completion:)` runs on it), which then waits for
/// them to end. Long blocking tests, and tests waiting for such async work, run their body here.
///
/// ```swift
/// @Test func large() async throws {
///     try await offCooperativePool { try streamOneHundredMegabytes() }
/// }
/// ```
func offCooperativePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}
