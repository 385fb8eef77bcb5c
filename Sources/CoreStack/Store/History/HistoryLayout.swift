import Foundation
import GRDB

/// How a store's entity tables map onto Core Data's persistent-history tables: which table
/// columns make which bit of `ACHANGE.ZCOLUMNS` for each entity, and which columns give the
/// tombstone values (`ACHANGE.ZTOMBSTONE<n>`) of a deleted object.
///
/// Core Data's own bit order is unverified (the CoreDataPlus fixtures hold inserts only). CoreStack
/// writes bit `i` for the entity's attribute slot `i` (``EntityDescription/allAttributes``), then
/// bit `attributeCount + j` for relationship slot `j`; bytes least significant bit first.
struct HistoryLayout: Sendable {
    /// `Z_ENT` of Core Data's internal history entities, as `Z_PRIMARYKEY` lists them.
    static let changeEntity = 16001
    static let transactionEntity = 16002
    static let stringEntity = 16003
    /// Mask bits per pending-table column (62, so the shifted values stay positive).
    static let chunkBits = 62

    struct Table: Sendable {
        var name: String
        /// The columns whose change is recorded (all but Z_PK, Z_ENT, Z_OPT and order keys).
        var maskColumns: [String]
        /// The columns of attributes kept as tombstones, for some entity of the table.
        var tombstoneColumns: [String]
    }

    struct Entity: Sendable {
        var entity: EntityDescription
        var number: Int
        var table: Int
        /// The property bit of each of the table's mask columns (nil: not this entity's).
        var bits: [Int?]
        /// Attribute count + relationship count: the bit vector's length in bits.
        var bitCount: Int
        /// The preserved attributes, `ACHANGE.ZTOMBSTONE<k>` for the k-th: name, type, index in the
        /// table's tombstone columns, and whether the value is in Core Data's external-storage
        /// format (the tombstone is a copy of the column, see ``SQLiteExternalBinaryData``). In slot
        /// order, those with *Allows External Storage* last: CoreStack kept no tombstone of them
        /// before, and the others keep the columns they had in the history already written.
        var tombstones: [(name: String, type: AttributeType, source: Int, external: Bool)]
    }

    let tables: [Table]
    /// By store entity number.
    let entities: [Int: Entity]
    /// How many mask columns the pending table needs (the widest table's chunks).
    let maskChunks: Int
    /// How many tombstone columns the pending table needs (the widest table's).
    let tombstoneWidth: Int
    /// How many `ZTOMBSTONE<n>` columns `ACHANGE` needs (the entity with the most).
    let changeTombstones: Int

    init(schema: SQLiteSchema) {
        var tables: [Table] = []
        var entities: [Int: Entity] = [:]
        for (ti, t) in schema.entityTables.enumerated() {
            let mask = t.columns.map(\.name).filter {
                !["Z_PK", "Z_ENT", "Z_OPT"].contains($0) && !SQLiteIdentifier.file($0).hasPrefix("Z_FOK_")
            }
            let maskIndex = Dictionary(mask.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
            var tombstoneColumns: [String] = []
            for e in schema.model.entities {
                guard let m = try? schema.mapping(for: e), m.table == t.name else { continue }
                let attributeCount = e.allAttributes.count
                var bits = [Int?](repeating: nil, count: mask.count)
                for (slot, column) in m.attributeColumns.enumerated() {
                    if let column, let i = maskIndex[column] { bits[i] = slot }
                }
                for (slot, toOne) in m.toOne.enumerated() {
                    guard let toOne else { continue }
                    if let i = maskIndex[toOne.column] { bits[i] = attributeCount + slot }
                    if let c = toOne.entityColumn, let i = maskIndex[c] { bits[i] = attributeCount + slot }
                }
                var tombstones: [(String, AttributeType, Int, Bool)] = []
                for (slot, a) in e.allAttributes.enumerated() where a.preservesValueInHistoryOnDeletion && !a.isTransient {
                    guard let column = m.attributeColumns[slot] else { continue }
                    let source: Int
                    if let i = tombstoneColumns.firstIndex(of: column) {
                        source = i
                    } else {
                        source = tombstoneColumns.count
                        tombstoneColumns.append(column)
                    }
                    tombstones.append((a.name, a.type, source, e.externalBinarySlots.contains(slot)))
                }
                let flagged = Set(e.allAttributes.filter(\.allowsExternalBinaryDataStorage).map(\.name))
                tombstones = tombstones.filter { !flagged.contains($0.0) } + tombstones.filter { flagged.contains($0.0) }
                entities[m.number] = Entity(
                    entity: e, number: m.number, table: ti, bits: bits, bitCount: attributeCount + e.allRelationships.count,
                    tombstones: tombstones)
            }
            tables.append(Table(name: t.name, maskColumns: mask, tombstoneColumns: tombstoneColumns))
        }
        self.tables = tables
        self.entities = entities
        maskChunks = max(1, tables.map { ($0.maskColumns.count + Self.chunkBits - 1) / Self.chunkBits }.max() ?? 1)
        tombstoneWidth = tables.map(\.tombstoneColumns.count).max() ?? 0
        changeTombstones = entities.values.map(\.tombstones.count).max() ?? 0
    }

    // MARK: Column bits

    /// The bit vector for a set of property bits of an entity.
    static func columnsData(bits: Set<Int>, bitCount: Int) -> Data {
        var bytes = [UInt8](repeating: 0, count: max(1, (bitCount + 7) / 8))
        for b in bits where b >= 0 && b < bytes.count * 8 { bytes[b / 8] |= UInt8(1) << UInt8(b % 8) }
        return Data(bytes)
    }

    /// The property bits set in a bit vector.
    static func bits(in data: Data) -> [Int] {
        var out: [Int] = []
        for (i, byte) in data.enumerated() where byte != 0 {
            for b in 0..<8 where byte & (UInt8(1) << UInt8(b)) != 0 { out.append(i * 8 + b) }
        }
        return out
    }

    /// The names of the properties a bit vector names for `entity` (bits past its properties are skipped).
    static func propertyNames(_ data: Data, entity: EntityDescription) -> [String] {
        let attributes = entity.allAttributes, relationships = entity.allRelationships
        return bits(in: data).compactMap { b in
            b < attributes.count
                ? attributes[b].name : b - attributes.count < relationships.count ? relationships[b - attributes.count].name : nil
        }
    }

    // MARK: Schema

    /// Creates Core Data's history tables and their `Z_PRIMARYKEY` rows when missing, and the
    /// `ACHANGE.ZTOMBSTONE<n>` columns this model needs.
    func installTables(_ db: Database) throws {
        if try !db.tableExists("ATRANSACTION") {
            for sql in Self.creationStatements { try db.execute(sql: sql) }
        }
        for (number, name) in [(Self.changeEntity, "CHANGE"), (Self.transactionEntity, "TRANSACTION"), (Self.stringEntity, "TRANSACTIONSTRING")] {
            try db.execute(
                sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) SELECT ?, ?, 0, 0 WHERE NOT EXISTS (SELECT 1 FROM Z_PRIMARYKEY WHERE Z_ENT = ?)",
                arguments: [number, name, number])
        }
        let columns = Set(try db.columns(in: "ACHANGE").map(\.name))
        for k in 0..<changeTombstones where !columns.contains("ZTOMBSTONE\(k)") {
            try db.execute(sql: "ALTER TABLE ACHANGE ADD COLUMN ZTOMBSTONE\(k)")
        }
    }

    /// The tables and indexes as Core Data creates them (checked against the CoreDataPlus SampleModel2 stores).
    static let creationStatements = [
        "CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB )",
        "CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB )",
        "CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR )",
        "CREATE INDEX ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)",
        "CREATE INDEX ATRANSACTION_ZAUTHORTS_INDEX ON ATRANSACTION (ZAUTHORTS)",
        "CREATE INDEX ATRANSACTION_ZBUNDLEIDTS_INDEX ON ATRANSACTION (ZBUNDLEIDTS)",
        "CREATE INDEX ATRANSACTION_ZCONTEXTNAMETS_INDEX ON ATRANSACTION (ZCONTEXTNAMETS)",
        "CREATE INDEX ATRANSACTION_ZPROCESSIDTS_INDEX ON ATRANSACTION (ZPROCESSIDTS)",
        "CREATE INDEX Z_TRANSACTION_TransactionAuthorIndex ON ATRANSACTION (ZAUTHOR COLLATE BINARY ASC)",
        "CREATE INDEX Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC)",
        "CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC)",
    ]

    /// The name of the connection's temporary table where triggers note changed rows.
    static let pendingTable = "corestack_history_pending"

    /// The connection's temporary table and triggers that note every row written to an entity
    /// table, whoever writes it (saves, batch requests, raw SQL on the store's connection).
    var temporaryStatements: [String] {
        let masks = (0..<maskChunks).map { "m\($0) INTEGER" }
        let tombs = (0..<tombstoneWidth).map { "t\($0)" }
        var out = [
            "CREATE TEMP TABLE IF NOT EXISTS \(Self.pendingTable) (seq INTEGER PRIMARY KEY, tbl INTEGER, ent INTEGER, pk INTEGER, kind INTEGER"
                + (masks + tombs).map { ", " + $0 }.joined() + ")"
        ]
        for (i, t) in tables.enumerated() {
            let name = t.name
            // The triggers are named after the table as the file spells it, quoted as a whole.
            func trigger(_ kind: String) -> String { SQLiteIdentifier.sql("corestack_history_\(kind)_" + SQLiteIdentifier.file(name)) }
            out.append(
                "CREATE TEMP TRIGGER IF NOT EXISTS \(trigger("i")) AFTER INSERT ON main.\(name) BEGIN "
                    + "INSERT INTO \(Self.pendingTable) (tbl, ent, pk, kind) VALUES (\(i), NEW.Z_ENT, NEW.Z_PK, 0); END")
            var chunks: [String] = []
            var c = 0
            while c < t.maskColumns.count {
                let part = t.maskColumns[c..<min(c + Self.chunkBits, t.maskColumns.count)]
                chunks.append(part.enumerated().map { "((OLD.\($1) IS NOT NEW.\($1)) << \($0))" }.joined(separator: " | "))
                c += Self.chunkBits
            }
            if chunks.isEmpty { chunks = ["0"] }
            let watched = (["Z_OPT"] + t.maskColumns).joined(separator: ", ")
            out.append(
                "CREATE TEMP TRIGGER IF NOT EXISTS \(trigger("u")) AFTER UPDATE OF \(watched) ON main.\(name) BEGIN "
                    + "INSERT INTO \(Self.pendingTable) (tbl, ent, pk, kind"
                    + chunks.indices.map { ", m\($0)" }.joined() + ") VALUES (\(i), NEW.Z_ENT, NEW.Z_PK, 1"
                    + chunks.map { ", " + $0 }.joined() + "); END")
            out.append(
                "CREATE TEMP TRIGGER IF NOT EXISTS \(trigger("d")) AFTER DELETE ON main.\(name) BEGIN "
                    + "INSERT INTO \(Self.pendingTable) (tbl, ent, pk, kind"
                    + t.tombstoneColumns.indices.map { ", t\($0)" }.joined() + ") VALUES (\(i), OLD.Z_ENT, OLD.Z_PK, 2"
                    + t.tombstoneColumns.map { ", OLD.\($0)" }.joined() + "); END")
        }
        return out
    }
}
