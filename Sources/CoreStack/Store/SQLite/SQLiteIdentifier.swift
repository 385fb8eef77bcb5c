import GRDB
import GRDBSQLite

/// Names of tables, columns, indexes and triggers as CoreStack writes them in SQL.
///
/// A name from a model (an entity, attribute or relationship name made into `Z…`) or from a file
/// (a raw column) can hold anything: a space, a quote, a keyword. The layout
/// (``SQLiteSchema``) keeps every name in its SQL spelling, so every statement built from it is
/// valid: a plain identifier as it is, anything else in double quotes with its quotes doubled.
/// ``file(_:)`` gives the name back as the file spells it, for comparing with `sqlite_master`,
/// `PRAGMA table_info` and GRDB's schema calls (which quote for themselves).
///
/// ```swift
/// SQLiteIdentifier.sql("ZBOOK")              // ZBOOK
/// SQLiteIdentifier.sql(#"ZMY "BOOK""#)       // "ZMY ""BOOK"""
/// SQLiteIdentifier.sql("order")              // "order"
/// SQLiteIdentifier.file(#""ZMY ""BOOK""""#)  // ZMY "BOOK"
/// ```
enum SQLiteIdentifier {
    /// `name` as SQL writes it: as it is when it is a plain identifier (letters, digits and `_`,
    /// not starting with a digit, no SQL keyword), else in double quotes.
    static func sql(_ name: String) -> String {
        isPlain(name) ? name : "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A name in its SQL spelling (``sql(_:)``) as the file spells it: the quotes undone.
    static func file(_ name: String) -> String {
        guard name.utf8.count >= 2, name.hasPrefix("\""), name.hasSuffix("\"") else { return name }
        return String(name.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"")
    }

    /// Whether `name` can stand in SQL unquoted.
    static func isPlain(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        let plain = name.utf8.allSatisfy { c in
            c == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(c)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(c) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c)
        }
        guard plain else { return false }
        // A keyword (`ORDER`, `GROUP`) is no column name unquoted.
        return name.withCString { sqlite3_keyword_check($0, Int32(name.utf8.count)) } == 0
    }

    /// The columns of the table the file names `table` (name and declared type, in order; empty
    /// when there is no such table). Not GRDB's `columns(in:)`, which does not double the quotes
    /// of a name that holds one, so finds no such table.
    static func columns(ofTable table: String, _ db: Database) throws -> [(name: String, type: String)] {
        try Row.fetchAll(db, sql: "PRAGMA main.table_xinfo(\(sql(table)))").map { row in
            ((row["name"] as String?) ?? "", (row["type"] as String?) ?? "")
        }
    }
}
