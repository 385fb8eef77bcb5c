import GRDB

/// One row read by a ``StoreDiffCursor``: its primary key, its match key and the compared values,
/// raw as SQLite returns them (decoded only when they differ).
struct StoreDiffRow {
    var primaryKey: Int64
    var key: DatabaseValue
    var values: [DatabaseValue]
}
