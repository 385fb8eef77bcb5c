import Foundation
import GRDB

extension SQLiteExternalBinaryData {
    /// Whether a BLOB column holds Core Data's external-storage values, from a sample of at most 64
    /// of them among the table's first 10,000 rows (never a scan of a whole large table): every one
    /// is `0x02` + a UUID (+ NUL: 37 or 38 bytes) or `0x01` + bytes, and at least one is a `0x02`
    /// reference or at least four are `0x01` values (other bytes start with `0x01` four times in a
    /// row once in four billion).
    ///
    /// For models that cannot say: an inferred model, and a model cache Core Data wrote (where the
    /// flag's archive key is unverified, see `ModelArchiveDecoder.allowsExternalStorageKey`).
    static func columnHoldsMarkedValues(_ db: Database, table: String, column: String) throws -> Bool {
        let (c, t) = (SQLiteSchemaInference.quoted(column), SQLiteSchemaInference.quoted(table))
        // typeof() and length() of a blob read the record header only; the first bytes are read
        // through blob I/O (substr() would load each value whole: a 100 MB blob, many times).
        var sample: [(rowID: Int64, length: Int)] = []
        let cursor = try Row.fetchCursor(db, sql: "SELECT rowid, typeof(\(c)), length(\(c)) FROM \(t) LIMIT 10000")
        while sample.count < 64, let row = try cursor.next() {
            guard (row[1] as String?) == "blob" else { continue }
            sample.append((row[0], row[2] ?? 0))
        }
        var references = 0
        var inline = 0
        for (rowID, length) in sample {
            // A value SQLite cannot open is no evidence either way: the column is not marked.
            guard let head = try? SQLiteBlob.prefix(db, path: "table \(table)", table: table, column: column, rowID: rowID, count: 38) else {
                return false
            }
            if head.first == inlineMarker {
                inline += 1
            } else if length == 37 || length == 38, missingReference(head) != nil {
                references += 1
            } else {
                return false
            }
        }
        return references > 0 || inline >= 4
    }

    /// Marks, in `model` (just decoded, not yet shared), the binary attributes whose columns hold
    /// external-storage values though the model does not flag them: their slots join
    /// `EntityDescription.externalBinarySlots`, so reads decode them and saves write the marker
    /// (the attribute descriptions and version hashes are left as the model says).
    static func markColumnsWithEvidence(_ model: ManagedObjectModel, _ db: Database) throws {
        var evidence: [String: Bool] = [:]
        for entity in model.entities {
            let table = "Z" + entity.rootEntity.name.uppercased()
            var slots = entity.externalBinarySlots
            for (slot, a) in entity.allAttributes.enumerated()
            where a.canStoreExternally && !slots.contains(slot) {
                let column = "Z" + a.name.uppercased()
                let key = table + "." + column
                if evidence[key] == nil {
                    let exists = try SQLiteIdentifier.columns(ofTable: table, db).contains { $0.name == column }
                    evidence[key] = try exists && columnHoldsMarkedValues(db, table: table, column: column)
                }
                if evidence[key] == true { slots.append(slot) }
            }
            entity.externalBinarySlots = slots.sorted()
        }
    }
}
