import Dispatch

/// A task executor that runs its jobs on a Dispatch queue instead of Swift concurrency's
/// cooperative pool.
///
/// The completion-handler APIs that wrap async work (``CoreDataStack/resetStore(callbackQueue:completion:)``)
/// run it here: callers of such APIs often block threads of their own, and the cooperative pool
/// has only as many threads as the machine has cores, so work queued on it can wait for as long
/// as somebody else's blocking call lasts.
///
/// ```swift
/// let executor = DispatchTaskExecutor(label: "reset")
/// Task(executorPreference: executor) { try await stack.resetStore() }
/// ```
final class DispatchTaskExecutor: TaskExecutor, @unchecked Sendable {
    /// `@unchecked Sendable`: `queue` is immutable and Dispatch queues are thread-safe.
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
    }
}
