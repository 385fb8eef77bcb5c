import Foundation
import GRDB

/// Strings bound and read whole through GRDB, NUL included.
///
/// GRDB binds a string with `sqlite3_bind_text(…, -1, …)`, so SQLite takes it up to its first NUL,
/// and reads text with `String(cString:)`, which stops there too. A string that holds NUL is bound
/// as the BLOB of its UTF-8 bytes behind ``parameter`` (`CAST(? AS TEXT)`: SQLite keeps every
/// byte, as text), and text is read whole as `CAST(column AS BLOB)`.
///
/// ```swift
/// let (sql, value) = SQLiteWholeText.bindable(.string("a\0b"))   // ("CAST(? AS TEXT)", X'610062')
/// try db.execute(sql: "INSERT INTO t (name) VALUES (\(sql))", arguments: [value])
/// ```
enum SQLiteWholeText {
    /// The parameter of a string bound by ``argument(_:)``: text again, every byte kept.
    static let parameter = "CAST(? AS TEXT)"

    /// `s` as an argument GRDB binds whole for a ``parameter``: itself, or the BLOB of its UTF-8
    /// bytes when it holds NUL.
    static func argument(_ s: String) -> DatabaseValue {
        s.utf8.contains(0) ? Data(s.utf8).databaseValue : s.databaseValue
    }

    /// A value with its parameter: a string holding NUL as a BLOB behind ``parameter``, any other
    /// value as it is behind `?`.
    static func bindable(_ value: DatabaseValue) -> (sql: String, value: DatabaseValue) {
        guard case let .string(s) = value.storage, s.utf8.contains(0) else { return ("?", value) }
        return (parameter, argument(s))
    }

    /// The text of a `CAST(column AS BLOB)` read back: nil for NULL.
    static func string(fromBytes value: DatabaseValue) -> String? {
        switch value.storage {
        case let .blob(d): String(decoding: d, as: UTF8.self)
        case let .string(s): s
        case .null, .int64, .double: nil
        }
    }
}
