import Foundation
import Synchronization

/// Cancels a fetch that runs off its context's queue (a fetched-results controller's
/// ``PreparedFetch``): the SQLite store stops its query at the next step (a progress handler on
/// its connection, so even a sort that has not returned a row yet stops), and the fetch throws
/// `CancellationError`.
///
/// ```swift
/// let fetch = try controller.prepareFetch()
/// DispatchQueue.global().async { let result = Result { try fetch.run() } … }
/// fetch.cancel() // the user pressed Esc
/// ```
public final class FetchCancellation: Sendable {
    private let flag = Atomic<Bool>(false)
    /// Called at each progress step of the query (tests use it to cancel mid-query).
    let onProgress: (@Sendable (FetchCancellation) -> Void)?

    /// A flag that is not cancelled yet.
    ///
    /// ```swift
    /// let cancellation = FetchCancellation()
    /// ```
    public init() {
        onProgress = nil
    }

    init(onProgress: @escaping @Sendable (FetchCancellation) -> Void) {
        self.onProgress = onProgress
    }

    /// Cancels the fetch; safe from any thread, at any time (after the query has ended it changes nothing).
    ///
    /// ```swift
    /// cancellation.cancel()
    /// ```
    public func cancel() {
        flag.store(true, ordering: .relaxed)
    }

    /// Whether ``cancel()`` was called.
    ///
    /// ```swift
    /// if cancellation.isCancelled { return }
    /// ```
    public var isCancelled: Bool { flag.load(ordering: .relaxed) }

    /// Throws `CancellationError` when cancelled.
    func check() throws {
        if isCancelled { throw CancellationError() }
    }

    /// One step of a running query: whether to stop it.
    func progressed() -> Bool {
        onProgress?(self)
        return isCancelled
    }
}
