import Foundation
import GRDB

/// Reads the object ID of each row of a `SELECT t0.Z_PK, t0.Z_ENT, …` as the rows go by: the
/// entity is looked up once per run of rows of one `Z_ENT`, a row whose key or entity number is
/// not an integer is ``CoreStackError/storeCorrupted(path:reason:)``, and a row of an entity the
/// model lacks gives nil (full fetches leave such rows out too).
///
/// ```swift
/// var reader = SQLiteRowIDReader(store: self, table: mapping.table)
/// try SQLiteRawBinding.forEachRow(statement, arguments: arguments, in: db) { h in
///     guard let id = try reader.objectID(h) else { return }
///     ids.append(id)
/// }
/// ```
struct SQLiteRowIDReader {
    private let entityPlans: [SQLiteStore.EntityPlan?]
    private let token: UInt32
    private let path: String
    private let table: String
    private var lastNumber = -1
    private var lastEntity: EntityDescription?

    /// A reader of rows of `table` in `store`.
    init(store: SQLiteStore, table: String) {
        entityPlans = store.entityPlansByNumber
        token = store.storeToken
        path = store.path
        self.table = table
    }

    /// The ID of the row at `h` (columns 0 and 1: `Z_PK`, `Z_ENT`); nil for an entity the model lacks.
    @inline(__always)
    mutating func objectID(_ h: SQLiteStatement) throws -> ManagedObjectID? {
        guard let pk = SQLiteRawBinding.int64(h, 0), let ent = SQLiteRawBinding.int64(h, 1) else {
            throw CoreStackError.storeCorrupted(path: path, reason: "\(table) has a row whose Z_PK or Z_ENT is NULL or not an integer")
        }
        if Int(ent) != lastNumber {
            lastNumber = Int(ent)
            lastEntity = lastNumber >= 0 && lastNumber < entityPlans.count ? entityPlans[lastNumber]?.entity : nil
        }
        guard let entity = lastEntity else { return nil }
        return ManagedObjectID(entity: entity, storeToken: token, primaryKey: pk)
    }
}
