import Foundation

/// Hands events to any number of `AsyncStream`s; a stream leaves when its consumer stops.
/// Thread-safe: streams end (and unregister) from any thread.
/// `@unchecked Sendable`: `continuations` and `nextID` are read and written only under `lock`.
final class EventBroadcaster<Event: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuations: [Int: AsyncStream<Event>.Continuation] = [:]
    private var nextID = 0

    /// Whether any stream is listening (to skip building events nobody reads).
    var hasListeners: Bool {
        lock.lock()
        defer { lock.unlock() }
        return !continuations.isEmpty
    }

    /// A new stream of the events sent from now on (buffered without limit).
    func stream() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream()
        lock.lock()
        nextID += 1
        let id = nextID
        continuations[id] = continuation
        lock.unlock()
        continuation.onTermination = { [weak self] _ in self?.remove(id) }
        return stream
    }

    func send(_ event: Event) {
        lock.lock()
        let targets = Array(continuations.values)
        lock.unlock()
        for c in targets { c.yield(event) }
    }

    /// Ends every stream.
    func finish() {
        lock.lock()
        let targets = Array(continuations.values)
        continuations.removeAll()
        lock.unlock()
        for c in targets { c.finish() }
    }

    private func remove(_ id: Int) {
        lock.lock()
        continuations[id] = nil
        lock.unlock()
    }
}
