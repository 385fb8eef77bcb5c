import Foundation
import GRDB
import Synchronization

/// A second, read-only connection to a WAL-mode store file, opened on first use, for the long
/// reads that run off a context's queue (a fetched-results controller's ``PreparedFetch``): in WAL
/// mode it reads while the store's own connection goes on serving faults, fetches and saves, so a
/// query of a million rows does not hold up the main queue's reads.
///
/// Not WAL (a rollback-journal file, where a long reader would block writers) or not openable
/// (a read-only folder without the `-shm`): ``read(_:)`` returns nil and the caller uses the
/// store's connection.
///
/// ```swift
/// let reader = SQLiteOffQueueReader(path: path)
/// let count = try reader.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM ZBOOK") }   // nil: use the main connection
/// reader.close()
/// ```
final class SQLiteOffQueueReader: Sendable {
    private enum State {
        case unopened
        case open(DatabaseQueue)
        /// Tried and not usable (not WAL, or the open failed), or closed.
        case unavailable
    }

    private let path: String
    // Only this lock touches `state`; the DatabaseQueue serialises its own use.
    private let state = LockedValue<State>(.unopened)
    /// Set by ``close()`` before it closes the connection; read on the connection's queue (not
    /// under the lock, which `close()` holds while it waits for that queue).
    private let closed = Atomic<Bool>(false)
    #if DEBUG
    /// Tests only (debug builds): called by ``read(_:)`` between taking the connection and
    /// reaching its queue, to close the reader in between.
    let afterConnectionHook = LockedValue<(@Sendable () -> Void)?>(nil)
    #endif

    /// A reader of the store file at `path` (nothing is opened yet).
    init(path: String) {
        self.path = path
    }

    /// Runs `body` on the read-only connection (opening it the first time); nil when there is no
    /// usable one, or when ``close()`` closed it before `body` reached it.
    ///
    /// `close()` sets the closed flag and then closes the connection on the connection's own
    /// serial queue, so a read that took the connection before the close and reaches its queue
    /// after finds the flag set there, and returns nil instead of using the closed connection.
    func read<T>(_ body: (Database) throws -> T) throws -> T? {
        guard let queue = connection() else { return nil }
        #if DEBUG
        if let hook = afterConnectionHook.withLock({ $0 }) { hook() }
        #endif
        return try SQLiteStore.wrap(path) {
            try queue.inDatabase { db -> T? in
                guard !closed.load(ordering: .acquiring) else { return nil }
                return try body(db)
            }
        }
    }

    private func connection() -> DatabaseQueue? {
        state.withLock { state in
            switch state {
            case let .open(queue): return queue
            case .unavailable: return nil
            case .unopened:
                var config = SQLiteStore.secondConnectionConfiguration(label: "CoreStack.SQLiteStore.offQueueReader")
                guard let target = try? SQLiteConnectionFiles.opened(path, readOnly: true) else {
                    state = .unavailable
                    return nil
                }
                target.configure(&config)
                guard let queue = try? DatabaseQueue(path: target.connectionPath, configuration: config),
                    (try? queue.inDatabase({ db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }))??.lowercased() == "wal"
                else {
                    // Not opened (or not WAL): uncounted again.
                    SQLiteConnectionFiles.closed(path)
                    state = .unavailable
                    return nil
                }
                state = .open(queue)
                return queue
            }
        }
    }

    /// Closes the connection (the store's deinit does, before closing its own).
    func close() {
        closed.store(true, ordering: .releasing)
        state.withLock { state in
            if case let .open(queue) = state {
                try? queue.close()
                SQLiteConnectionFiles.closed(path)
            }
            state = .unavailable
        }
    }
}
