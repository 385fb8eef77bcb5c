import Foundation
import GRDB
import Synchronization

extension SQLiteStore {
    /// Closes the store's connections: the off-queue reader's, then its own (waiting for a read or
    /// save in progress on it to end). A stream running on its own connection
    /// (``fetch(_:withToMany:chunks:)``) goes on to its end: then it closes its connection, and
    /// the last stream to end closes the store's (so the store's connection is the last one to
    /// the file, and the side files go as described below, once the streams are done). No stream
    /// starts after the close: one that had passed its open check as the store closed throws
    /// ``CoreStackError/storeClosed(_:)`` without opening a connection.
    ///
    /// When the last connection to a WAL-mode file closes cleanly, SQLite checkpoints the `-wal`
    /// into the file and deletes the `-wal` and `-shm` files. A read-only connection cannot do
    /// that, so for a store opened read-only the side files it created are removed here, when
    /// no other connection (of this or another process) still uses them. A store a writer still
    /// has open keeps its side files.
    ///
    /// Afterwards every read, fetch, fault or save through the store throws
    /// ``CoreStackError/storeClosed(_:)``. A read or save another thread has under way when the
    /// store closes either completes first (the close waits for it) or throws `storeClosed`; none
    /// reaches a closed connection. Closing twice does nothing. The store closes itself when
    /// it is freed; call `close()` when the program ends without freeing it (`exit`), or to let
    /// the file go before the store object goes.
    ///
    /// Remove the store from its coordinator first
    /// (``PersistentStoreCoordinator/remove(_:)``), so contexts get a clear error and the
    /// remote-change monitor stops watching the file:
    ///
    /// ```swift
    /// try coordinator.remove(store)
    /// store.close()
    /// // no Books.sqlite-wal or Books.sqlite-shm left beside Books.sqlite
    /// ```
    public func close() {
        guard !closedFlag.exchange(true, ordering: .acquiringAndReleasing) else { return }
        offQueueReader.close()
        // With streams running, the last to end closes the store's connection (see `streams`).
        let deferred = streams.withLock { streams in
            guard streams.running > 0 else { return false }
            streams.closeDeferred = true
            return true
        }
        if !deferred { closeConnection(finally: false) }
    }

    /// Closes the store's connection and counts it closed with ``SQLiteConnectionFiles``, once.
    ///
    /// GRDB cannot close a connection while one of its statements is not finalised (SQLite
    /// answers `SQLITE_BUSY` and leaves it open). Such a connection stays counted open and
    /// ``close()`` leaves it; the store's deinit calls this again with `finally` (the statement
    /// that held it is usually gone by then). If it fails once more, the connection is counted
    /// closed all the same: GRDB closes it as the store is freed, and SQLite frees it when its last
    /// statement is finalised. Counting only decides how this process's next read-only look opens
    /// (and when a snapshot copy is removed); the side files are SQLite's to remove.
    func closeConnection(finally: Bool) {
        guard connectionCounted.load(ordering: .acquiring) else { return }
        // The statements the store keeps are finalised first, on the connection's queue (a block
        // that reaches it later finds the store closed and prepares none again).
        dbQueue.inDatabase { _ in connectionStatements.removeAll() }
        let closed = (try? dbQueue.close()) != nil
        guard closed || finally else { return }
        if connectionCounted.exchange(false, ordering: .acquiringAndReleasing) { SQLiteConnectionFiles.closed(path) }
    }

    /// Whether ``close()`` was called (or the store is being freed).
    ///
    /// ```swift
    /// if !store.isClosed { try context.save() }
    /// ```
    public var isClosed: Bool {
        closedFlag.load(ordering: .acquiring)
    }

    /// Throws ``CoreStackError/storeClosed(_:)`` once the store is closed.
    @inline(__always)
    func checkOpen() throws {
        if closedFlag.load(ordering: .acquiring) { throw CoreStackError.storeClosed(path) }
    }
}
