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
/// SQLiteSideFiles.closed(path)   // the last connection out removes what the first found missing
/// ```
enum SQLiteSideFiles {
    /// Per path: the connections open, and whether the `-wal` and `-shm` existed when the first
    /// of them opened. The removal of side files runs under it too.
    private static let open = LockedValue<[String: (count: Int, hadWAL: Bool, hadSHM: Bool)]>([:])

    /// Counts a connection to the file at `path` as open (call before opening it); the first one
    /// records which side files were there already.
    static func opened(_ path: String) {
        open.withLock { open in
            if let entry = open[path] {
                open[path] = (entry.count + 1, entry.hadWAL, entry.hadSHM)
            } else {
                let fm = FileManager.default
                open[path] = (1, fm.fileExists(atPath: path + "-wal"), fm.fileExists(atPath: path + "-shm"))
            }
        }
    }

    /// Counts a connection as closed (call once it is closed: an open connection still uses its
    /// `-shm`; a store's connection that GRDB could not close is counted closed when the store is
    /// freed, see `SQLiteStore.closeConnection(finally:)`, and an opening that failed counts its
    /// connection closed before it throws). When it was the last one, removes the side files that were not there when the
    /// first opened, whichever connection (store, stream, off-queue reader) closes last, and only
    /// when nothing else uses them: the `-wal` only when empty, the `-shm` only when no connection
    /// of any process holds a lock on it.
    static func closed(_ path: String) {
        open.withLock { open in
            guard let entry = open[path] else { return }
            guard entry.count <= 1 else {
                open[path] = (entry.count - 1, entry.hadWAL, entry.hadSHM)
                return
            }
            open[path] = nil
            guard !entry.hadWAL || !entry.hadSHM else { return }
            let fm = FileManager.default
            let wal = path + "-wal", shm = path + "-shm"
            guard !lockedByAnyConnection(shm) else { return }
            if !entry.hadWAL, let size = (try? fm.attributesOfItem(atPath: wal))?[.size] as? NSNumber, size.intValue == 0 {
                try? fm.removeItem(atPath: wal)
            }
            // With no connection left, the -shm holds nothing a later connection needs: SQLite
            // rebuilds the WAL index from the -wal when it opens the file again.
            if !entry.hadSHM { try? fm.removeItem(atPath: shm) }
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
