import Foundation
import GRDB

/// Reads and deletes a store's persistent history (Core Data's or CoreStack's), checking every
/// value read from the file (a value of the wrong type is ``CoreStackError/storeCorrupted(path:reason:)``).
struct HistoryReader {
    let path: String
    let storeIdentifier: String
    /// The store's layout, for object IDs, property names and tombstones (nil: names and keys only).
    let layout: HistoryLayout?
    /// The store's external binary data folder, for tombstones of attributes with *Allows
    /// External Storage* that refer to a file there (nil: such a tombstone keeps its reference).
    var externalDataFolder: URL? = nil

    /// Whether the file has Core Data's history tables.
    static func hasHistory(_ db: Database) throws -> Bool {
        try db.tableExists("ATRANSACTION") && db.tableExists("ACHANGE")
    }

    /// The number of the last transaction (0 when there is none or no history table).
    static func lastTransactionNumber(_ db: Database) throws -> Int64 {
        guard try hasHistory(db) else { return 0 }
        let value = try DatabaseValue.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM ATRANSACTION")
        if case let .int64(n)? = value?.storage { return n }
        return 0
    }

    func fetch(_ db: Database, _ request: PersistentHistoryChangeRequest) throws -> [PersistentHistoryTransaction] {
        var conditions: [String] = []
        var arguments: [DatabaseValueConvertible?] = []
        switch request.kind {
        case let .fetchAfterToken(token):
            if let token {
                guard token.storeIdentifier == storeIdentifier else {
                    throw CoreStackError.invalidFetchRequest(
                        "the history token \(token) is of the store \(token.storeIdentifier), not of this store (\(storeIdentifier))")
                }
                conditions.append("t.Z_PK > ?")
                arguments.append(token.transactionNumber)
            }
        case let .fetchAfterDate(date):
            conditions.append("t.ZTIMESTAMP > ?")
            arguments.append(date.timeIntervalSinceReferenceDate)
        case .deleteBeforeToken, .deleteBeforeDate:
            throw CoreStackError.invalidFetchRequest("a delete history request does not fetch")
        }
        return try fetch(db, conditions: conditions, arguments: arguments, author: request.author,
                         contextName: request.contextName, limit: request.fetchLimit)
    }

    /// Transactions matching SQL conditions on `ATRANSACTION t`, oldest first, with their changes.
    func fetch(
        _ db: Database, conditions: [String], arguments: [DatabaseValueConvertible?], author: String? = nil,
        contextName: String? = nil, limit: Int = 0
    ) throws -> [PersistentHistoryTransaction] {
        guard try Self.hasHistory(db) else { return [] }
        var conditions = conditions, arguments = arguments
        if let author {
            conditions.append("COALESCE(sa.ZNAME, t.ZAUTHOR) = \(SQLiteWholeText.parameter)")
            arguments.append(SQLiteWholeText.argument(author))
        }
        if let contextName {
            conditions.append("COALESCE(sc.ZNAME, t.ZCONTEXTNAME) = \(SQLiteWholeText.parameter)")
            arguments.append(SQLiteWholeText.argument(contextName))
        }
        let hasStrings = try db.tableExists("ATRANSACTIONSTRING")
        func joined(_ alias: String, _ column: String) -> String {
            hasStrings ? "LEFT JOIN ATRANSACTIONSTRING \(alias) ON \(alias).Z_PK = t.\(column)" : ""
        }
        func name(_ alias: String, _ inline: String) -> String {
            hasStrings ? "COALESCE(\(alias).ZNAME, t.\(inline))" : "t.\(inline)"
        }
        if !hasStrings {
            conditions = conditions.map { $0.replacingOccurrences(of: "COALESCE(sa.ZNAME, t.ZAUTHOR)", with: "t.ZAUTHOR")
                .replacingOccurrences(of: "COALESCE(sc.ZNAME, t.ZCONTEXTNAME)", with: "t.ZCONTEXTNAME") }
        }
        // Each name twice: as stored (its type checked) and as its bytes (read whole, NUL included).
        let nameColumns: [String] = [name("sa", "ZAUTHOR"), name("sb", "ZBUNDLEID"), name("sc", "ZCONTEXTNAME"), name("sp", "ZPROCESSID")]
        let nameBytes: [String] = nameColumns.map { "CAST(\($0) AS BLOB)" }
        let selected = "SELECT t.Z_PK, t.ZTIMESTAMP, " + (nameColumns + nameBytes).joined(separator: ", ")
        let joins: String = [joined("sa", "ZAUTHORTS"), joined("sb", "ZBUNDLEIDTS"), joined("sc", "ZCONTEXTNAMETS"), joined("sp", "ZPROCESSIDTS")]
            .joined(separator: " ")
        let filter: String = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let order: String = " ORDER BY t.Z_PK" + (limit > 0 ? " LIMIT \(limit)" : "")
        let sql = selected + " FROM ATRANSACTION t " + joins + filter + order
        let decoder = StoreFileDecoder(path: path, table: "ATRANSACTION")
        /// Name column `i`: text (checked as such), read whole from its bytes four columns on.
        func whole(_ row: Row, _ i: Int, _ column: String, _ label: String) throws -> String? {
            guard let text = try decoder.text(row, i, column: column, row: label) else { return nil }
            let bytes: DatabaseValue = row[i + 4]
            return SQLiteWholeText.string(fromBytes: bytes) ?? text
        }
        var transactions: [PersistentHistoryTransaction] = []
        let values = arguments.map { $0?.databaseValue ?? .null }
        for row in try Row.fetchAll(db, sql: sql, arguments: SQLiteRawBinding.arguments(values, in: db)) {
            let number = try decoder.integer(row, 0, column: "Z_PK", row: "\(transactions.count + 1)") ?? 0
            let label = "Z_PK = \(number)"
            let timestamp: Double
            switch Array(row.databaseValues)[1].storage {
            case let .double(d): timestamp = d
            case let .int64(i): timestamp = Double(i)
            case .null: timestamp = 0
            default: throw decoder.corrupted("ZTIMESTAMP", label, "is not a number")
            }
            transactions.append(
                PersistentHistoryTransaction(
                    transactionNumber: number, storeIdentifier: storeIdentifier,
                    timestamp: Date(timeIntervalSinceReferenceDate: timestamp),
                    author: try whole(row, 2, "ZAUTHOR", label), contextName: try whole(row, 4, "ZCONTEXTNAME", label),
                    bundleID: try whole(row, 3, "ZBUNDLEID", label), processID: try whole(row, 5, "ZPROCESSID", label), changes: []))
        }
        guard let first = transactions.first?.transactionNumber, let last = transactions.last?.transactionNumber else { return [] }
        let index = Dictionary(transactions.enumerated().map { ($1.transactionNumber, $0) }, uniquingKeysWith: { a, _ in a })
        let names = Dictionary(
            try SQLiteStore.readPrimaryKeyTable(db, path: path).map { ($0.number, $0.name) }, uniquingKeysWith: { a, _ in a })
        let changeColumns = Set(try db.columns(in: "ACHANGE").map(\.name))
        let tombstoneCount = (0...).prefix { changeColumns.contains("ZTOMBSTONE\($0)") }.count
        let changeSQL = "SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS"
            + (0..<tombstoneCount).map { ", ZTOMBSTONE\($0)" }.joined()
            + " FROM ACHANGE WHERE ZTRANSACTIONID BETWEEN ? AND ? ORDER BY Z_PK"
        let changeDecoder = StoreFileDecoder(path: path, table: "ACHANGE")
        let token = StoreIdentifiers.token(for: storeIdentifier)
        for row in try Row.fetchAll(db, sql: changeSQL, arguments: [first, last]) {
            let id = try changeDecoder.integer(row, 0, column: "Z_PK", row: "?") ?? 0
            let label = "Z_PK = \(id)"
            guard let txn = try changeDecoder.integer(row, 4, column: "ZTRANSACTIONID", row: label), let ti = index[txn] else { continue }
            let rawType = try changeDecoder.integer(row, 1, column: "ZCHANGETYPE", row: label) ?? -1
            guard let type = PersistentHistoryChange.ChangeType(rawValue: Int(clamping: rawType)) else {
                throw changeDecoder.corrupted("ZCHANGETYPE", label, "holds \(rawType), not 0 (insert), 1 (update) or 2 (delete)")
            }
            let entityNumber = try changeDecoder.requiredInteger(row, 2, column: "ZENTITY", row: label)
            guard let pk = try changeDecoder.integer(row, 3, column: "ZENTITYPK", row: label) else {
                throw changeDecoder.corrupted("ZENTITYPK", label, "is NULL")
            }
            let columns = try changeDecoder.blob(row, 5, column: "ZCOLUMNS", row: label)
            let entityName = names[entityNumber] ?? "#\(entityNumber)"
            var change = PersistentHistoryChange(
                changeID: id, transactionNumber: txn, changeType: type, entityNumber: entityNumber, entityName: entityName,
                primaryKey: pk, changedObjectURI: "x-coredata://\(storeIdentifier)/\(entityName)/p\(pk)",
                updatedColumns: type == .update ? columns : nil)
            if let e = layout?.entities[entityNumber] {
                change.changedObjectID = ManagedObjectID(entity: e.entity, storeToken: token, primaryKey: pk)
                if type == .update, let columns { change.updatedProperties = HistoryLayout.propertyNames(columns, entity: e.entity) }
                if type == .delete, !e.tombstones.isEmpty {
                    var values: [String: AttributeValue] = [:]
                    let raw = Array(row.databaseValues)
                    for (k, t) in e.tombstones.enumerated() where k < tombstoneCount {
                        let value = SQLiteValueCodec.value(raw[6 + k], type: t.type)
                        values[t.name] = t.external ? SQLiteExternalBinaryData.decode(value, folder: externalDataFolder) : value
                    }
                    change.tombstone = values
                }
            }
            transactions[ti].changes.append(change)
        }
        return transactions
    }

    /// Deletes transactions (and their changes); returns how many transactions went.
    func delete(_ db: Database, _ request: PersistentHistoryChangeRequest) throws -> Int {
        guard try Self.hasHistory(db) else { return 0 }
        let condition: String
        let argument: DatabaseValueConvertible
        switch request.kind {
        case let .deleteBeforeToken(token):
            if let token, token.storeIdentifier != storeIdentifier {
                throw CoreStackError.invalidFetchRequest(
                    "the history token \(token) is of the store \(token.storeIdentifier), not of this store (\(storeIdentifier))")
            }
            condition = "Z_PK <= ?"
            argument = token?.transactionNumber ?? Int64.max
        case let .deleteBeforeDate(date):
            condition = "ZTIMESTAMP < ?"
            argument = date.timeIntervalSinceReferenceDate
        case .fetchAfterToken, .fetchAfterDate:
            throw CoreStackError.invalidFetchRequest("a fetch history request does not delete")
        }
        try db.execute(
            sql: "DELETE FROM ACHANGE WHERE ZTRANSACTIONID IN (SELECT Z_PK FROM ATRANSACTION WHERE \(condition))", arguments: [argument])
        try db.execute(sql: "DELETE FROM ATRANSACTION WHERE \(condition)", arguments: [argument])
        return db.changesCount
    }
}
