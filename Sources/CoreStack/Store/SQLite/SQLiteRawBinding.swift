import Foundation
import GRDB
import GRDBSQLite

/// Binds values straight onto a prepared statement's SQLite handle and steps it, for the hot
/// loops of a save (no boxing of arguments; see Sources/CoreStack/CoreStack.docc/Reference/Architecture.md, "The save path"). Used only inside a GRDB write transaction, on the statement's connection.
enum SQLiteRawBinding {
    /// SQLite copies the bytes before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    static func bindNull(_ h: SQLiteStatement, _ i: Int32) {
        sqlite3_bind_null(h, i)
    }

    static func bind(_ h: SQLiteStatement, _ i: Int32, _ v: Int64) {
        sqlite3_bind_int64(h, i, v)
    }

    /// Binds `value` as Core Data stores a value of an attribute of `type`.
    ///
    /// - Throws: ``CoreStackError/sqlite(path:message:)`` for a string or blob SQLite refuses:
    ///   longer than `Int32.max` bytes (what `sqlite3_bind_text`/`sqlite3_bind_blob` can take) or
    ///   than the connection's length limit (`SQLITE_TOOBIG`, 1,000,000,000 bytes by default).
    static func bind(_ h: SQLiteStatement, _ i: Int32, _ value: AttributeValue, type: AttributeType) throws {
        switch value {
        case .null:
            sqlite3_bind_null(h, i)
        case let .integer(n):
            switch type {
            case .double, .float, .date: sqlite3_bind_double(h, i, Double(n))
            case .boolean: sqlite3_bind_int64(h, i, n != 0 ? 1 : 0)
            default: sqlite3_bind_int64(h, i, n)
            }
        case let .bool(b):
            sqlite3_bind_int64(h, i, b ? 1 : 0)
        case let .double(d):
            if type.isInteger || type == .boolean, let n = Int64(exactly: d) {
                sqlite3_bind_int64(h, i, n)
            } else {
                sqlite3_bind_double(h, i, d)
            }
        case let .string(s):
            try bindText(h, i, s)
        case let .date(d):
            sqlite3_bind_double(h, i, d.timeIntervalSinceReferenceDate)
        case let .data(d):
            try bindBlob(h, i, d)
        case let .uuid(u):
            try bindBlob(h, i, SQLiteValueCodec.uuidData(u))
        case .decimal:
            switch SQLiteValueCodec.databaseValue(value, type: type).storage {
            case let .int64(n): sqlite3_bind_int64(h, i, n)
            case let .double(d): sqlite3_bind_double(h, i, d)
            default: sqlite3_bind_null(h, i)
            }
        case let .url(u):
            try bindText(h, i, u.absoluteString)
        }
    }

    /// The byte count of a string or blob as `sqlite3_bind_text`/`sqlite3_bind_blob` take it.
    ///
    /// - Throws: ``CoreStackError/sqlite(path:message:)`` above `Int32.max` bytes (2 GiB), which
    ///   no SQLite value can hold (the conversion would trap).
    static func byteCount(_ count: Int, _ h: SQLiteStatement) throws -> Int32 {
        try byteCount(count, path: databasePath(sqlite3_db_handle(h)))
    }

    private static func byteCount(_ count: Int, path: @autoclosure () -> String) throws -> Int32 {
        guard let n = Int32(exactly: count) else {
            throw CoreStackError.sqlite(
                path: path(),
                message: "a value of \(count) bytes is longer than SQLite can store (at most \(Int32.max) bytes)")
        }
        return n
    }

    /// Throws SQLite's error for a bind that did not return `SQLITE_OK` (`SQLITE_TOOBIG`: a value
    /// longer than the connection's length limit), which would otherwise save the row without
    /// the value.
    private static func check(_ code: Int32, _ h: SQLiteStatement, bytes: Int) throws {
        guard code != SQLITE_OK else { return }
        throw bindError(code, bytes: bytes, path: databasePath(sqlite3_db_handle(h)))
    }

    private static func bindError(_ code: Int32, bytes: Int, path: String) -> CoreStackError {
        let reason = String(cString: sqlite3_errstr(code))
        return CoreStackError.sqlite(path: path, message: "cannot bind a value of \(bytes) bytes: \(reason)")
    }

    /// The file of a connection, for errors.
    private static func databasePath(_ db: OpaquePointer?) -> String {
        guard let db, let name = sqlite3_db_filename(db, "main") else { return "" }
        return String(cString: name)
    }

    // MARK: - Arguments bound by GRDB

    /// `values` as arguments of a GRDB statement, once each string and blob among them is known
    /// to fit: GRDB's `Statement.setArguments` (behind `execute(sql:arguments:)`,
    /// `fetchAll(_:sql:arguments:)`, …) stops the process with `fatalError` when a
    /// `sqlite3_bind_*` call fails, and converts a blob's length with `CInt(…)`, which traps above
    /// `Int32.max`. Every statement that hands GRDB a value from a user or a file goes through
    /// here (or ``checkLengths(_:in:)``).
    ///
    /// - Throws: ``CoreStackError/sqlite(path:message:)``, as ``bind(_:_:_:type:)`` does, for a
    ///   string or blob longer than `db`'s length limit (`SQLITE_LIMIT_LENGTH`) or `Int32.max` bytes.
    static func arguments(_ values: [DatabaseValue], in db: Database) throws -> StatementArguments {
        try checkLengths(values, in: db)
        return StatementArguments(values)
    }

    /// Throws for the first string or blob of `values` that `db` cannot bind (see
    /// ``arguments(_:in:)``); a string counts its UTF-8 bytes.
    static func checkLengths(_ values: some Sequence<DatabaseValue>, in db: Database) throws {
        var limit: Int?
        for value in values {
            let count: Int
            switch value.storage {
            case let .string(s): count = s.utf8.count
            case let .blob(d): count = d.count
            case .null, .int64, .double: continue
            }
            let maximum = limit ?? db.sqliteConnection.map { Int(sqlite3_limit($0, SQLITE_LIMIT_LENGTH, -1)) } ?? Int(Int32.max)
            limit = maximum
            if count > maximum {
                throw bindError(SQLITE_TOOBIG, bytes: count, path: databasePath(db.sqliteConnection))
            }
            _ = try byteCount(count, path: databasePath(db.sqliteConnection))
        }
    }

    private static func bindText(_ h: SQLiteStatement, _ i: Int32, _ s: String) throws {
        var s = s
        try s.withUTF8 { buffer in
            guard let base = buffer.baseAddress else {
                try check(sqlite3_bind_text(h, i, "", 0, transient), h, bytes: 0)
                return
            }
            let count = try byteCount(buffer.count, h)
            let code = UnsafeRawPointer(base).withMemoryRebound(to: CChar.self, capacity: buffer.count) { p in
                sqlite3_bind_text(h, i, p, count, transient)
            }
            try check(code, h, bytes: buffer.count)
        }
    }

    private static func bindBlob(_ h: SQLiteStatement, _ i: Int32, _ d: Data) throws {
        if d.isEmpty {
            try check(sqlite3_bind_zeroblob(h, i, 0), h, bytes: 0)
            return
        }
        try d.withUnsafeBytes { buffer in
            let count = try byteCount(buffer.count, h)
            try check(sqlite3_bind_blob(h, i, buffer.baseAddress, count, transient), h, bytes: buffer.count)
        }
    }

    /// Steps a statement whose parameters are bound, and resets it. Throws SQLite's error.
    static func step(_ statement: Statement, in db: Database) throws {
        let h = statement.sqliteStatement
        let code = sqlite3_step(h)
        if code != SQLITE_DONE && code != SQLITE_ROW {
            let message = db.sqliteConnection.map { String(cString: sqlite3_errmsg($0)) } ?? "SQLite error \(code)"
            sqlite3_reset(h)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
        sqlite3_reset(h)
    }

    // MARK: - Reading

    /// Column `i` of the current row, as a value of an attribute of `type`.
    ///
    /// One `sqlite3_column_value` per column, then the value's own accessors: each
    /// `sqlite3_column_*` call looks the column up and checks the connection's error state again,
    /// so a type test and a read through them cost two of those per column. The value is read
    /// here, on the statement's connection, before the statement steps again (what SQLite asks of
    /// an unprotected value).
    @inline(__always)
    static func column(_ h: SQLiteStatement, _ i: Int32, type: AttributeType) -> AttributeValue {
        guard let v = sqlite3_column_value(h, i) else { return .null }
        switch sqlite3_value_type(v) {
        case SQLITE_NULL:
            return .null
        case SQLITE_INTEGER:
            return SQLiteValueCodec.value(int64: sqlite3_value_int64(v), type: type)
        case SQLITE_FLOAT:
            return SQLiteValueCodec.value(double: sqlite3_value_double(v), type: type)
        case SQLITE_TEXT:
            guard let p = sqlite3_value_text(v) else { return .null }
            let text = String(decoding: UnsafeBufferPointer(start: p, count: Int(sqlite3_value_bytes(v))), as: UTF8.self)
            return SQLiteValueCodec.value(string: text, type: type)
        default:
            let count = Int(sqlite3_value_bytes(v))
            guard count > 0, let p = sqlite3_value_blob(v) else { return SQLiteValueCodec.value(blob: Data(), type: type) }
            return SQLiteValueCodec.value(blob: Data(bytes: p, count: count), type: type)
        }
    }

    /// Whether column `i` is text whose bytes are `string`'s (no string is made).
    static func text(_ h: SQLiteStatement, _ i: Int32, equals string: String) -> Bool {
        guard let v = sqlite3_column_value(h, i), sqlite3_value_type(v) == SQLITE_TEXT, let p = sqlite3_value_text(v) else { return false }
        let count = Int(sqlite3_value_bytes(v))
        var copy = string
        return copy.withUTF8 { bytes in
            guard bytes.count == count else { return false }
            guard count > 0, let base = bytes.baseAddress else { return true }
            return memcmp(base, p, count) == 0
        }
    }

    /// Column `i` as an integer, nil when NULL (or not a number). Inlined: every row read calls
    /// it three times (`Z_PK`, `Z_ENT`, `Z_OPT`).
    @inline(__always)
    static func int64(_ h: SQLiteStatement, _ i: Int32) -> Int64? {
        guard let v = sqlite3_column_value(h, i) else { return nil }
        switch sqlite3_value_type(v) {
        case SQLITE_INTEGER: return sqlite3_value_int64(v)
        case SQLITE_FLOAT: return Int64(exactly: sqlite3_value_double(v).rounded(.towardZero))
        default: return nil
        }
    }

    /// `n` parameters for an SQL list: `?, ?, ?` (no array of strings joined).
    static func placeholders(_ n: Int) -> String {
        n > 0 ? String(repeating: "?, ", count: n - 1) + "?" : ""
    }

    /// Binds `keys` as the statement's parameters 1…`keys.count` (integers, straight onto the
    /// handle: no `StatementArguments` built), then calls `body` for each row of `statement`.
    ///
    /// - Throws: ``CoreStackError/invalidFetchRequest(_:)`` when the statement does not take
    ///   exactly `keys.count` parameters; SQLite's error when a step fails.
    static func forEachRow(
        _ statement: Statement, keys: some Collection<Int64>, in db: Database, _ body: (SQLiteStatement) throws -> Void
    ) throws {
        let h = statement.sqliteStatement
        guard Int(sqlite3_bind_parameter_count(h)) == keys.count else {
            throw CoreStackError.invalidFetchRequest("a statement taking \(sqlite3_bind_parameter_count(h)) parameters was given \(keys.count) keys")
        }
        sqlite3_reset(h)
        sqlite3_clear_bindings(h)
        bind(h, from: 1, keys)
        try stepRows(statement, h, in: db, body)
    }

    /// Binds `values` as parameters `start`, `start + 1`, … of `h`.
    static func bind(_ h: SQLiteStatement, from start: Int32, _ values: some Sequence<Int64>) {
        var i = start
        for v in values {
            sqlite3_bind_int64(h, i, v)
            i += 1
        }
    }

    /// Binds `arguments`, then calls `body` for each row of `statement`.
    static func forEachRow(_ statement: Statement, arguments: [DatabaseValue], in db: Database, _ body: (SQLiteStatement) throws -> Void) throws {
        try statement.setArguments(StatementArguments(arguments))
        try stepRows(statement, statement.sqliteStatement, in: db, body)
    }

    /// Steps a statement whose parameters are bound, calling `body` for each row, and resets it.
    private static func stepRows(_ statement: Statement, _ h: SQLiteStatement, in db: Database, _ body: (SQLiteStatement) throws -> Void) throws {
        defer { sqlite3_reset(h) }
        while true {
            let code = sqlite3_step(h)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else {
                let message = db.sqliteConnection.map { String(cString: sqlite3_errmsg($0)) } ?? "SQLite error \(code)"
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
            }
            try body(h)
        }
    }
}
