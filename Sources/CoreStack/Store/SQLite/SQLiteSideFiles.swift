import Foundation

/// The `-wal` and `-shm` files SQLite creates next to a WAL-mode store even for a read-only
/// connection, and when they can be removed again so reading a store leaves its folder as found.
///
/// They may be removed only when no connection uses them: none CoreStack opened in this process
/// (counted here) and no other connection at all (SQLite keeps a lock on the `-shm` file while a
/// connection is open; `/proc/locks` lists it).
///
/// ```swift
/// SQLiteSideFiles.opened(path)
/// // … read …
/// SQLiteSideFiles.closed(path, hadWAL: false, hadSHM: false)   // removes what the read created
/// ```
enum SQLiteSideFiles {
    /// Open connections per path; the removal of side files runs under it too.
    private static let openCount = LockedValue<[String: Int]>([:])

    /// Counts a connection to the file at `path` as open.
    static func opened(_ path: String) {
        openCount.withLock { $0[path, default: 0] += 1 }
    }

    /// Counts a connection as closed, then removes the side files it created (`hadWAL`/`hadSHM`:
    /// whether they existed before it opened) when nothing else uses them: the `-wal` only when
    /// empty, the `-shm` only when no `-wal` with content needs it or no connection is left.
    static func closed(_ path: String, hadWAL: Bool, hadSHM: Bool) {
        openCount.withLock { openCount in
            let left = (openCount[path] ?? 1) - 1
            openCount[path] = left > 0 ? left : nil
            guard left <= 0, !hadWAL || !hadSHM else { return }
            let fm = FileManager.default
            let wal = path + "-wal", shm = path + "-shm"
            guard !lockedByAnyConnection(shm) else { return }
            if !hadWAL, let size = (try? fm.attributesOfItem(atPath: wal))?[.size] as? NSNumber, size.intValue == 0 {
                try? fm.removeItem(atPath: wal)
            }
            // With no connection left, the -shm holds nothing a later connection needs: SQLite
            // rebuilds the WAL index from the -wal when it opens the file again.
            if !hadSHM { try? fm.removeItem(atPath: shm) }
        }
    }

    /// Whether any connection, of this process or another, holds a lock on the `-shm` file (SQLite
    /// keeps a shared lock on its "dead man switch" byte while a connection is open). Read from
    /// `/proc/locks`, which lists every lock with its file's inode, so nothing is opened here:
    /// opening and closing a descriptor of the file would drop this process's POSIX locks on it.
    /// Where `/proc/locks` cannot be read, the answer is yes (the files stay).
    private static func lockedByAnyConnection(_ shm: String) -> Bool {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: shm) else { return false }
        guard let inode = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value,
            let table = try? String(contentsOfFile: "/proc/locks", encoding: .utf8)
        else { return true }
        // "1: POSIX  ADVISORY  READ 1234 08:01:5678 128 128": the inode ends the sixth field.
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let location = fields.first(where: { $0.filter { $0 == ":" }.count == 2 }),
                let last = location.split(separator: ":").last, let number = UInt64(last)
            else { continue }
            if number == inode { return true }
        }
        return false
    }
}
