import Foundation

/// Another process with a store open: the `sqlite3` shell, which has read the store (so, in WAL
/// mode, it holds SQLite's SHARED lock on the file and its `-shm`) until ``quit()``.
///
/// ```swift
/// let other = try SQLiteShell(holding: url)
/// // … the store is in use by another process …
/// try other.quit()
/// ```
public final class SQLiteShell {
    private let process = Process()
    private let input = Pipe(), output = Pipe()

    /// Starts `sqlite3` on the store at `url` and waits until it has run `query` on it.
    public init(holding url: URL, query: String = "SELECT count(*) FROM Z_PRIMARYKEY;") throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [url.path]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data((query + "\n").utf8))
        _ = output.fileHandleForReading.availableData
    }

    /// Ends the shell (its input closes) and waits for it to exit.
    public func quit() throws {
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
