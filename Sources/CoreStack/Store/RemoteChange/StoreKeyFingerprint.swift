import Foundation
import GRDB

/// What tells a key reservation from a write that keeps no history: each entity's `Z_MAX` in
/// `Z_PRIMARYKEY` and the largest `Z_PK` of each entity table, read in one read transaction
/// (`max(Z_PK)` of an `INTEGER PRIMARY KEY` is one b-tree descent, so the whole read costs a
/// few page reads per table, whatever the row counts).
///
/// A CoreStack writer reserves keys in a commit of its own, which moves `Z_MAX` and no row; a
/// raw insert adds a row; a raw update or delete below the largest key moves neither, and is
/// told by the unchanged `Z_MAX`.
///
/// ```swift
/// let before = try StoreKeyFingerprint(store)
/// // … another connection commits, adding no history …
/// let reservationOnly = try StoreKeyFingerprint(store).isKeyReservation(after: before)
/// ```
struct StoreKeyFingerprint: Equatable, Sendable {
    /// `Z_MAX` by `Z_ENT`.
    var maxKeys: [Int64: Int64]
    /// The largest `Z_PK` by entity table name (nil: the table is empty).
    var largestKeys: [String: Int64?]

    /// Reads the fingerprint through the store's connection.
    init(_ store: SQLiteStore) throws {
        self = try store.read { db in try StoreKeyFingerprint(db, tables: store.schema.entityTables.map(\.name), path: store.path) }
    }

    /// Reads the fingerprint inside a read already open (so that it is of the same snapshot as
    /// what else that read sees). Every value goes through ``StoreFileDecoder``: a file holding
    /// text or a blob where a key belongs (damage, another program's writes) is a
    /// ``CoreStackError/storeCorrupted(path:reason:)``, not a trap in GRDB's typed subscripts.
    init(_ db: Database, tables: [String], path: String) throws {
        var maxKeys: [Int64: Int64] = [:]
        let keys = StoreFileDecoder(path: path, table: "Z_PRIMARYKEY")
        for (i, row) in try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY").enumerated() {
            guard let ent = try keys.integer(row, 0, column: "Z_ENT", row: "number \(i + 1) in file order") else { continue }
            if let max = try keys.integer(row, 1, column: "Z_MAX", row: "Z_ENT = \(ent)") { maxKeys[ent] = max }
        }
        var largest: [String: Int64?] = [:]
        for table in tables {
            let decoder = StoreFileDecoder(path: path, table: table)
            let row = try Row.fetchOne(db, sql: "SELECT max(Z_PK) FROM \(table)")
            largest[table] = try row.flatMap { try decoder.integer($0, 0, column: "Z_PK", row: "with the largest key") }
        }
        self.maxKeys = maxKeys
        largestKeys = largest
    }

    /// Whether going from `earlier` to this fingerprint is what a key reservation does: some
    /// `Z_MAX` moved and no table's largest key did.
    func isKeyReservation(after earlier: StoreKeyFingerprint) -> Bool {
        maxKeys != earlier.maxKeys && largestKeys == earlier.largestKeys
    }
}
