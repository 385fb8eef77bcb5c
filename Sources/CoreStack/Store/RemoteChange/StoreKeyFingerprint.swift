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
        self = try store.read { db in try StoreKeyFingerprint(db, tables: store.schema.entityTables.map(\.name)) }
    }

    /// Reads the fingerprint inside a read already open (so that it is of the same snapshot as
    /// what else that read sees).
    init(_ db: Database, tables: [String]) throws {
        var maxKeys: [Int64: Int64] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY") {
            if let ent = row[0] as Int64?, let max = row[1] as Int64? { maxKeys[ent] = max }
        }
        var largest: [String: Int64?] = [:]
        for table in tables {
            largest[table] = try Int64.fetchOne(db, sql: "SELECT max(Z_PK) FROM \(table)")
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
