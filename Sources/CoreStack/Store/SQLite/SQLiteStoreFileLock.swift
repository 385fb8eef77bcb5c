import Foundation

/// SQLite's own EXCLUSIVE lock on a store file, held while CoreStack moves, replaces or deletes
/// the store's files, so that no process (CoreStack's or any other SQLite user's) has the store
/// open while they change: an open connection holds a SHARED lock on the file (in WAL mode, for
/// as long as it is open), which makes the lock fail, and a connection opening meanwhile waits
/// for the lock (its busy timeout) or fails with "database is locked".
///
/// The lock is taken on the bytes SQLite locks (PENDING, RESERVED and the SHARED range, from
/// `os_unix.c`) with `fcntl`, not through an SQLite connection, so it works on a damaged file
/// too. POSIX locks belong to the process: SQLite connections of this process do not see it, and
/// their own unlocking would release it, so `body` must not use SQLite on the same file.
///
/// ```swift
/// try SQLiteStoreFileLock.withExclusiveLock(on: url, toDo: "move the store aside") {
///     try FileManager.default.moveItem(at: url, to: aside)
/// }
/// ```
public enum SQLiteStoreFileLock {
    /// The first byte of SQLite's lock bytes (PENDING_BYTE, 1 GiB: past the data of any file
    /// smaller than that; SQLite never stores data on this page).
    static let pendingByte: off_t = 0x4000_0000
    static let reservedByte: off_t = pendingByte + 1
    static let sharedFirst: off_t = pendingByte + 2
    static let sharedSize: off_t = 510

    /// Runs `body` holding SQLite's EXCLUSIVE lock on the store file at `url` (through a symbolic
    /// link, its target). Waits up to `timeout` seconds for other connections to let go. A missing
    /// file runs `body` at once (nobody can have it open); a file that cannot be opened for
    /// writing too (`body` then fails on its own terms).
    /// - Throws: ``CoreStackError/storeInUse(path:action:)`` (naming `action`) when another process
    ///   keeps the store open; whatever `body` throws.
    public static func withExclusiveLock<T>(
        on url: URL, toDo action: String, timeout: TimeInterval = 2, _ body: () throws -> T
    ) throws -> T {
        let path = SQLiteStore.resolvedFileURL(url).path
        // Closing this descriptor drops every POSIX lock this process holds on the file, those of
        // a connection of this process still open on it too: such a connection is on a store
        // whose files are being deleted or moved aside, which its owner asked for.
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return try body() }
        defer { close(fd) }
        let deadline = Date().addingTimeInterval(timeout)
        while !lockExclusive(fd) {
            guard Date() < deadline else { throw CoreStackError.storeInUse(path: path, action: action) }
            usleep(10_000)
        }
        defer { unlock(fd) }
        return try body()
    }

    /// PENDING first (no new SHARED lock can start), then RESERVED, then the whole SHARED range;
    /// all or nothing.
    private static func lockExclusive(_ fd: Int32) -> Bool {
        guard setLock(fd, F_WRLCK, pendingByte, 1) else { return false }
        guard setLock(fd, F_WRLCK, reservedByte, 1), setLock(fd, F_WRLCK, sharedFirst, sharedSize) else {
            unlock(fd)
            return false
        }
        return true
    }

    private static func unlock(_ fd: Int32) {
        _ = setLock(fd, F_UNLCK, pendingByte, sharedFirst + sharedSize - pendingByte)
    }

    private static func setLock(_ fd: Int32, _ type: Int32, _ start: off_t, _ length: off_t) -> Bool {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = start
        lock.l_len = length
        return fcntl(fd, F_SETLK, &lock) == 0
    }
}
