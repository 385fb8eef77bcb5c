import Foundation

/// Keeps two migrations of one store from running at once, in this process or any other: each
/// holds an `flock` on the store file for its whole run (an `flock` is not one of SQLite's POSIX
/// locks, so it neither blocks nor is released by SQLite's own locking), and a second migration
/// waits for the first, then finds the store already migrated or migrates it itself. Without it,
/// the second one's clean-up of "leftovers" removed the first one's temporary files.
///
/// ```swift
/// let lock = try SQLiteMigrationLock(storeAt: url)
/// defer { lock.release() }
/// ```
final class SQLiteMigrationLock {
    private var fd: Int32

    /// Takes the lock on the store file at `url` (already resolved through links), waiting up to
    /// `timeout` seconds for another migration to end. A file that cannot be opened takes no lock
    /// (the migration then fails on its own terms).
    /// - Throws: ``CoreStackError/storeInUse(path:action:)`` when another migration still runs.
    init(storeAt url: URL, timeout: TimeInterval = 60) throws {
        fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        let deadline = Date().addingTimeInterval(timeout)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, Date() < deadline else {
                close(fd)
                fd = -1
                throw CoreStackError.storeInUse(path: url.path, action: "migrate the store: another migration of it is still running")
            }
            usleep(20_000)
        }
    }

    /// Releases the lock (closing the descriptor; call once the migration's own connections to
    /// the store are closed, since closing any descriptor of a file drops this process's POSIX
    /// locks on it).
    func release() {
        guard fd >= 0 else { return }
        _ = flock(fd, LOCK_UN)
        close(fd)
        fd = -1
    }

    deinit { release() }
}
