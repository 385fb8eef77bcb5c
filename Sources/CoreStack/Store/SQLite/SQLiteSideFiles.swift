import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `-wal` and `-shm` files SQLite creates next to a WAL-mode store even for a read-only
/// connection, and when they can be removed again so reading a store leaves its folder as found.
///
/// They may be removed only when no connection uses them: none of this process (counted here for
/// every connection CoreStack opens to the file) and none of another process (SQLite keeps a shared
/// lock on the `-shm` file's "dead man switch" bytes while a connection is open; `F_GETLK` sees it).
///
/// ```swift
/// SQLiteSideFiles.opened(path)
/// // … read …
/// SQLiteSideFiles.closed(path, hadWAL: false, hadSHM: false)   // removes what the read created
/// ```
enum SQLiteSideFiles {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var openCount: [String: Int] = [:]

    /// Counts a connection to the file at `path` as open.
    static func opened(_ path: String) {
        lock.withLock { openCount[path, default: 0] += 1 }
    }

    /// Counts a connection as closed, then removes the side files it created (`hadWAL`/`hadSHM`:
    /// whether they existed before it opened) when nothing else uses them: the `-wal` only when
    /// empty, the `-shm` only when no `-wal` with content needs it or no connection is left.
    static func closed(_ path: String, hadWAL: Bool, hadSHM: Bool) {
        lock.withLock {
            let left = (openCount[path] ?? 1) - 1
            openCount[path] = left > 0 ? left : nil
            guard left <= 0, !hadWAL || !hadSHM else { return }
            let fm = FileManager.default
            let wal = path + "-wal", shm = path + "-shm"
            guard !lockedByAnotherProcess(shm) else { return }
            if !hadWAL, let size = (try? fm.attributesOfItem(atPath: wal))?[.size] as? NSNumber, size.intValue == 0 {
                try? fm.removeItem(atPath: wal)
            }
            // With no connection left, the -shm holds nothing a later connection needs: SQLite
            // rebuilds the WAL index from the -wal when it opens the file again.
            if !hadSHM { try? fm.removeItem(atPath: shm) }
        }
    }

    /// Whether another process holds a lock on the `-shm` file's lock bytes (an open connection).
    /// Called only when this process has no connection to the file: closing the descriptor
    /// opened here drops this process's POSIX locks on the file, of which there are then none.
    private static func lockedByAnotherProcess(_ shm: String) -> Bool {
        let fd = open(shm, O_RDONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var probe = flock()
        probe.l_type = Int16(F_WRLCK)
        probe.l_whence = Int16(SEEK_SET)
        // The eight WAL locks and the dead-man-switch byte (unix VFS: offsets 120 to 128).
        probe.l_start = 120
        probe.l_len = 9
        guard fcntl(fd, F_GETLK, &probe) == 0 else { return true }
        return probe.l_type != Int16(F_UNLCK)
    }
}
