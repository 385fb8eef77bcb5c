import Foundation
import GRDB
import GRDBSQLite

/// Chooses how each connection CoreStack opens to a store file is made, and counts the
/// connections of this process per file, so that every connection of one read-only look (the
/// store's, a stream's, the off-queue reader's, an inspection's) is made the same way.
///
/// It never deletes, truncates or renames a `-wal` or `-shm`: their life cycle is SQLite's
/// (``SQLiteReadAccess``). Only a snapshot copy, in a folder of its own that no other process
/// knows, is removed here when the last connection to it closes.
///
/// ```swift
/// let target = try SQLiteConnectionFiles.opened(path, readOnly: true)
/// var config = Configuration()
/// target.configure(&config)
/// let queue = try DatabaseQueue(path: target.connectionPath, configuration: config)
/// // … read …
/// try queue.close()
/// SQLiteConnectionFiles.closed(path)
/// ```
enum SQLiteConnectionFiles {
    /// Where and how one connection opens.
    struct Target: Sendable, Equatable {
        /// How the file is read (or written).
        let access: SQLiteReadAccess
        /// What SQLite opens: the store's path, a `file:` URI (immutable) or the snapshot copy.
        let connectionPath: String

        /// Sets `config` up for this target (`readonly`, and `query_only` where it applies).
        func configure(_ config: inout Configuration) {
            switch access {
            case .readWrite:
                config.readonly = false
            case .readOnly, .immutable:
                config.readonly = true
            case .queryOnly, .snapshot:
                config.readonly = false
                config.prepareDatabase { db in try db.execute(sql: "PRAGMA query_only = 1") }
            }
        }
    }

    /// Per store path: this process's connections and how its read-only ones open.
    private static let open = LockedValue<[String: (count: Int, target: Target)]>([:])

    /// Counts a connection to the store at `path` as open (call before opening it) and says how
    /// to open it. A read-only connection opens as the first read-only connection of this process
    /// to the file did while any of them is open; the first one decides from the files beside the
    /// store (see ``SQLiteReadAccess``). A snapshot copy is made here.
    /// `beforeWriting`: a read-only look a read-write connection follows at once (the inspection
    /// before a store opens for writing): where a read-only look would make a snapshot copy, it
    /// opens as SQLite's read-only connection instead (the writer needs the `-shm` anyway).
    /// - Throws: ``CoreStackError/sqlite(path:message:)`` when a snapshot copy cannot be made.
    static func opened(_ path: String, readOnly: Bool, beforeWriting: Bool = false) throws -> Target {
        try open.withLock { open in
            let entry = open[path]
            let target: Target
            if !readOnly {
                target = Target(access: .readWrite, connectionPath: path)
            } else if let entry, entry.target.access != .readWrite {
                target = entry.target
            } else {
                // Beside a read-write connection of this process no snapshot is made (the writer
                // keeps the side files in use; a copy would be removed with nothing counting it).
                target = try decide(path, beforeWriting: beforeWriting || entry != nil)
            }
            // A look before writing does not decide how later read-only looks open.
            let kept = entry?.target ?? (beforeWriting ? Target(access: .readWrite, connectionPath: path) : target)
            open[path] = (count: (entry?.count ?? 0) + 1, target: kept)
            return target
        }
    }

    /// Counts a connection to the store at `path` as closed (call once it is closed). When it was
    /// the last one of a snapshot look, removes the snapshot's folder.
    static func closed(_ path: String) {
        open.withLock { open in
            guard let entry = open[path] else { return }
            guard entry.count <= 1 else {
                open[path] = (entry.count - 1, entry.target)
                return
            }
            open[path] = nil
            if case let .snapshot(copy) = entry.target.access {
                try? FileManager.default.removeItem(atPath: (copy as NSString).deletingLastPathComponent)
            }
        }
    }

    /// The first read-only connection's choice, from the files beside the store.
    private static func decide(_ path: String, beforeWriting: Bool) throws -> Target {
        let fm = FileManager.default
        let folder = (path as NSString).deletingLastPathComponent
        let walSize = ((try? fm.attributesOfItem(atPath: path + "-wal"))?[.size] as? NSNumber)?.intValue
        let writable = access(folder.isEmpty ? "." : folder, W_OK) == 0 && access(path, W_OK) == 0
        let shm = fm.fileExists(atPath: path + "-shm")
        // Side files in use, or left by a process that crashed: SQLite's read-only connection shares
        // them with whoever uses them, and leaves them as they are. A -shm that cannot be written
        // (a read-only folder or file system) cannot serve as the WAL index: the store is read
        // without it, from a snapshot of the store and its -wal, or immutable when the -wal is empty.
        if fm.fileExists(atPath: path + "-journal") || (shm && writable && access(path + "-shm", W_OK) == 0) {
            return Target(access: .readOnly, connectionPath: path)
        }
        if let walSize, walSize > 0 {
            return beforeWriting ? Target(access: .readOnly, connectionPath: path) : try snapshot(path)
        }
        if writable && !shm {
            return Target(access: .queryOnly, connectionPath: path)
        }
        if sqlite3_compileoption_used("USE_URI") != 0 {
            return Target(access: .immutable, connectionPath: "file:" + uriEscaped(path) + "?immutable=1")
        }
        return Target(access: .readOnly, connectionPath: path)
    }

    /// Copies the store and its `-wal` into a new private temporary folder.
    private static func snapshot(_ path: String) throws -> Target {
        let fm = FileManager.default
        let folder = fm.temporaryDirectory.appendingPathComponent("corestack-snapshot-\(UUID().uuidString)", isDirectory: true)
        let copy = folder.appendingPathComponent((path as NSString).lastPathComponent).path
        do {
            try fm.createDirectory(at: folder, withIntermediateDirectories: true)
            try fm.copyItem(atPath: path, toPath: copy)
            try fm.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
        } catch {
            try? fm.removeItem(at: folder)
            throw CoreStackError.sqlite(
                path: path,
                message: "the store has a -wal with commits not yet in the file and no -shm; reading it needs a private copy, "
                    + "which could not be made in \(fm.temporaryDirectory.path): \(error.localizedDescription)")
        }
        return Target(access: .snapshot(copy: copy), connectionPath: copy)
    }

    /// `path` with the characters a `file:` URI gives a meaning to escaped (`%`, `?`, `#`, and
    /// anything outside printable ASCII).
    static func uriEscaped(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"), 0...0x20, 0x7F...0xFF:
                out += String(format: "%%%02X", byte)
            default:
                out.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return out
    }
}
