import Foundation
import GRDB

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

    /// A reader of the store file at `path` (nothing is opened yet).
    init(path: String) {
        self.path = path
    }

    /// Runs `body` on the read-only connection (opening it the first time); nil when there is no
    /// usable one.
    func read<T>(_ body: (Database) throws -> T) throws -> T? {
        guard let queue = connection() else { return nil }
        return try SQLiteStore.wrap(path) { try queue.inDatabase(body) }
    }

    private func connection() -> DatabaseQueue? {
        state.withLock { state in
            switch state {
            case let .open(queue): return queue
            case .unavailable: return nil
            case .unopened:
                let config = SQLiteStore.secondConnectionConfiguration(label: "CoreStack.SQLiteStore.offQueueReader")
                SQLiteSideFiles.opened(path)
                guard let queue = try? DatabaseQueue(path: path, configuration: config),
                    (try? queue.inDatabase({ db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }))??.lowercased() == "wal"
                else {
                    // Not opened (or not WAL): uncounted again; the last connection out cleans up.
                    SQLiteSideFiles.closed(path)
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
        state.withLock { state in
            if case let .open(queue) = state {
                try? queue.close()
                SQLiteSideFiles.closed(path)
            }
            state = .unavailable
        }
    }
}
