import Foundation

/// A value behind a lock: ``withLock(_:)`` is the only way in.
///
/// CoreStack uses it instead of the standard library's `Synchronization.Mutex`, whose lock (a
/// futex, through atomics in the uninstrumented standard library) ThreadSanitizer cannot see: it
/// reports every access through a `Mutex` from two threads as a race. `NSLock` is a pthread
/// mutex, which ThreadSanitizer understands, so CI's TSan run checks what is really shared.
///
/// ```swift
/// let counts = LockedValue<[String: Int]>([:])
/// counts.withLock { $0["a", default: 0] += 1 }
/// ```
final class LockedValue<Value>: @unchecked Sendable {
    // `value` is read and written only inside `lock`.
    private let lock = NSLock()
    private var value: Value

    /// A lock around `value`.
    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock; `body` must not call back into this value.
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
