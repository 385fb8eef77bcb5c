import Foundation
import GRDBSQLite

/// A minimal wrapper over SQLite's C API: a connection and prepared statements, nothing boxed.
final class RawConnection {
    let handle: OpaquePointer
    let path: String

    init(path: String) throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            if let db { sqlite3_close_v2(db) }
            throw BenchError.sqlite("cannot open \(path): code \(rc)")
        }
        handle = db
        self.path = path
        sqlite3_busy_timeout(db, 10_000)
    }

    deinit { sqlite3_close_v2(handle) }

    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? "code \(rc)"
            sqlite3_free(message)
            throw BenchError.sqlite("\(text) in \(sql)")
        }
    }

    func prepare(_ sql: String) throws -> RawStatement {
        var s: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &s, nil)
        guard rc == SQLITE_OK, let s else { throw BenchError.sqlite("\(errorMessage) in \(sql)") }
        return RawStatement(handle: s, connection: self)
    }

    var errorMessage: String { String(cString: sqlite3_errmsg(handle)) }

    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }
}

/// A prepared statement. Bind, then `step()` until it returns false, then `reset()`.
final class RawStatement {
    let handle: OpaquePointer
    unowned let connection: RawConnection
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(handle: OpaquePointer, connection: RawConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    @inline(__always) func bind(_ i: Int32, _ v: Int64) { sqlite3_bind_int64(handle, i, v) }
    @inline(__always) func bind(_ i: Int32, _ v: Double) { sqlite3_bind_double(handle, i, v) }
    @inline(__always) func bind(_ i: Int32, _ v: String) {
        var s = v
        s.withUTF8 { buffer in
            _ = buffer.withMemoryRebound(to: CChar.self) { chars in
                sqlite3_bind_text(handle, i, chars.baseAddress ?? UnsafePointer(bitPattern: 1), Int32(chars.count), Self.transient)
            }
        }
    }

    /// Steps once: true when a row is available.
    @inline(__always) func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw BenchError.sqlite(connection.errorMessage)
    }

    @inline(__always) func run() throws {
        while try step() {}
        sqlite3_reset(handle)
    }

    @inline(__always) func reset() { sqlite3_reset(handle) }

    @inline(__always) func int64(_ i: Int32) -> Int64 { sqlite3_column_int64(handle, i) }
    @inline(__always) func double(_ i: Int32) -> Double { sqlite3_column_double(handle, i) }
    @inline(__always) func string(_ i: Int32) -> String {
        guard let p = sqlite3_column_text(handle, i) else { return "" }
        let n = Int(sqlite3_column_bytes(handle, i))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }
}

/// Errors of the benchmark itself.
public enum BenchError: Error, CustomStringConvertible {
    case sqlite(String)
    case mismatch(String)
    case child(String)
    case usage(String)

    public var description: String {
        switch self {
        case let .sqlite(m): "SQLite: \(m)"
        case let .mismatch(m): "results differ: \(m)"
        case let .child(m): "child process: \(m)"
        case let .usage(m): m
        }
    }
}

/// The SQLite library version in use.
public var sqliteVersion: String { String(cString: sqlite3_libversion()) }
