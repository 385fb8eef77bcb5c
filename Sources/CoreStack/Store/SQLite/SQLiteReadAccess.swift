/// How a store file is opened when it is only read, chosen from the files beside it so that
/// reading never changes the store or its folder, never removes a side file another process may
/// use, and works in folders that cannot be written.
///
/// SQLite keeps a WAL-mode store's `-wal` (the commits not yet copied into the file) and `-shm`
/// (the index of the `-wal` that every connection of every process shares) beside it, and only
/// SQLite may remove them: the connection that closes last removes both while it holds the
/// file's exclusive lock, so no other process can be opening them at that moment. CoreStack never
/// deletes, truncates or renames them itself.
///
/// ```swift
/// let store = try SQLiteStore(url: url, model: model, readOnly: true)
/// print(store.readAccess.summary)   // "read-only, immutable (the folder cannot be written)"
/// ```
public enum SQLiteReadAccess: Sendable, Hashable {
    /// A read-write connection (a store not opened read-only).
    case readWrite
    /// SQLite's read-only connection: the store's `-shm` (or a rollback `-journal`) is there, so
    /// another process may have it open; SQLite shares its WAL index with them and the side files
    /// stay as they are.
    case readOnly
    /// A connection that refuses every write (`PRAGMA query_only`), opened read-write so that
    /// SQLite removes the `-wal` and `-shm` it makes when the last connection of any process
    /// closes: used when the store had no side files and its folder can be written, so a
    /// read-only look leaves the folder as it was found.
    case queryOnly
    /// SQLite's `immutable` mode: the folder (or the file) cannot be written and there is no
    /// `-wal` with content, so SQLite reads the file alone, creating nothing beside it.
    case immutable
    /// A private copy of the store and its `-wal` in a temporary folder (removed when the last
    /// connection closes): the store has a `-wal` holding commits but no `-shm`, so SQLite would
    /// have to create one beside it (or cannot, in a folder that cannot be written).
    case snapshot(copy: String)

    /// One line for a status bar or `stackscope info`.
    ///
    /// ```swift
    /// print(SQLiteReadAccess.immutable.summary)   // "read-only, immutable (the folder cannot be written)"
    /// ```
    public var summary: String {
        switch self {
        case .readWrite: "read-write"
        case .readOnly: "read-only (SQLite's read-only connection, beside the store's own -wal and -shm)"
        case .queryOnly: "read-only (no side files were there; SQLite removes the ones it makes)"
        case .immutable: "read-only, immutable (the folder cannot be written; nothing is created beside the store)"
        case .snapshot: "read-only snapshot (the store has a -wal but no -shm: a private copy of both is read, removed at close)"
        }
    }

    /// Whether the store is read through a connection that cannot write.
    public var isReadOnly: Bool { self != .readWrite }
}
