import Foundation

/// Damages SQLite files the way disks, crashes and other programs do, for tests: SQL run by the
/// `sqlite3` tool (values of the wrong type in Core Data's own tables) and pages overwritten.
enum StoreDamage {
    struct ToolFailed: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `sql` on the file with the `sqlite3` tool and returns what it printed.
    @discardableResult
    static func sqlite3(_ url: URL, _ sql: String) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        p.arguments = [url.path, sql]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let printed = out.fileHandleForReading.readDataToEndOfFile()
        let complaint = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw ToolFailed(description: "sqlite3 \(sql): " + String(decoding: complaint, as: UTF8.self))
        }
        return String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Folds the file's WAL into it and switches it out of WAL mode, so the file alone is the store.
    static func foldWAL(_ url: URL) throws {
        try sqlite3(url, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE;")
    }

    /// Overwrites the root page of `table` with bytes no b-tree page has (the file stays the same
    /// length, page 1 and the schema stay intact): SQLite finds the damage only when it reads the table.
    static func overwriteRootPage(of table: String, in url: URL) throws {
        try foldWAL(url)
        let pageSize = Int(try sqlite3(url, "PRAGMA page_size;")) ?? 4096
        guard let root = Int(try sqlite3(url, "SELECT rootpage FROM sqlite_master WHERE name = '\(table)';")), root > 1 else {
            throw ToolFailed(description: "no root page for \(table)")
        }
        var bytes = [UInt8](try Data(contentsOf: url))
        let start = (root - 1) * pageSize
        guard start + pageSize <= bytes.count else { throw ToolFailed(description: "page \(root) is past the end") }
        for i in start..<(start + pageSize) { bytes[i] = UInt8(truncatingIfNeeded: i &* 131 &+ 17) }
        try Data(bytes).write(to: url)
    }
}
