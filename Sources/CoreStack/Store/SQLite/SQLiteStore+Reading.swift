import Foundation
import GRDB
import GRDBSQLite

extension SQLiteStore {
    /// How many keys one `WHERE Z_PK IN (…)` query carries.
    static let batchSize = 500

    /// The rows matching the request, read in one SQL query.
    public func fetch(_ request: StoreFetchRequest) throws -> [StoreRow] {
        var rows: [StoreRow] = []
        try fetch(request) { chunk, expected in
            if rows.isEmpty { rows.reserveCapacity(expected) }
            // Moved, not copied: reversed, then taken from the end.
            chunk.reverse()
            while let row = chunk.popLast() { rows.append(row) }
        }
        return rows
    }

    /// How many rows a streamed fetch hands over at a time: small enough that a chunk is still in
    /// the processor's cache when its consumer turns it into objects.
    static let chunkSize = 256

    /// Steps one SQL query and hands the rows to `body` 256 at a time, while the statement is still stepping (on the store's connection queue: `body` must not call back into the store).
    public func fetch(_ request: StoreFetchRequest, chunks body: (_ rows: inout [StoreRow], _ expectedCount: Int) throws -> Void) throws {
        let expected = try expectedCount(request)
        try readStatement { db in
            let (sql, arguments) = try selectSQL(db, request, countOnly: false)
            let statement = try db.cachedStatement(sql: sql)
            var chunk: [StoreRow] = []
            chunk.reserveCapacity(Self.chunkSize)
            var decoder = RowDecoder(store: self)
            decoder.table = try schema.mapping(for: request.entity).table
            var delivered = 0
            try SQLiteRawBinding.forEachRow(statement, arguments: arguments, in: db) { h in
                try decoder.decode(h, appendingTo: &chunk)
                if chunk.count == Self.chunkSize {
                    delivered += chunk.count
                    try body(&chunk, Swift.max(expected, delivered))
                    chunk.removeAll(keepingCapacity: true)
                }
            }
            if !chunk.isEmpty { try body(&chunk, Swift.max(expected, delivered + chunk.count)) }
        }
    }

    /// The largest estimate ``expectedCount(_:)`` gives: `Z_MAX` can be far above the number of
    /// rows (after deletions, or in a damaged file), and callers reserve room for the estimate.
    static let maximumExpectedCount = 1 << 20

    /// The number of rows a fetch may return, cheaply: the entity tree's highest primary key
    /// (`Z_MAX`), capped by the fetch limit and ``maximumExpectedCount``; 0 when a predicate
    /// makes any guess idle.
    func expectedCount(_ request: StoreFetchRequest) throws -> Int {
        guard request.predicate == nil, let root = try? schema.mapping(for: request.entity.rootEntity) else { return 0 }
        let max = try readStatement { db in
            try Self.primaryKeyMax(db, entityNumber: root.number, path: path)
        }
        let rows = Int(clamping: Swift.min(Swift.max(0, (max ?? 0) - Int64(request.fetchOffset)), Int64(Self.maximumExpectedCount)))
        return request.fetchLimit > 0 ? Swift.min(rows, request.fetchLimit) : rows
    }

    /// `Z_MAX` of entity `number` in `Z_PRIMARYKEY` (nil: no row, or NULL), checked.
    static func primaryKeyMax(_ db: Database, entityNumber number: Int, path: String) throws -> Int64? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?"), arguments: [number]) else {
            return nil
        }
        return try StoreFileDecoder(path: path, table: "Z_PRIMARYKEY").integer(row, 0, column: "Z_MAX", row: "Z_ENT = \(number)")
    }

    /// The IDs of the matching rows (`SELECT Z_PK, Z_ENT`), no values read.
    public func fetchObjectIDs(_ request: StoreFetchRequest) throws -> [ManagedObjectID] {
        let expected = try expectedCount(request)
        return try readStatement { db in try objectIDs(db, request, expected: expected) }
    }

    /// ``fetchObjectIDs(_:)`` inside a read or write already open.
    func objectIDs(_ db: Database, _ request: StoreFetchRequest, expected: Int = 0) throws -> [ManagedObjectID] {
        do {
            let (sql, arguments) = try selectSQL(db, request, countOnly: false, columns: "t0.Z_PK, t0.Z_ENT")
            let statement = try db.cachedStatement(sql: sql)
            var reader = SQLiteRowIDReader(store: self, table: try schema.mapping(for: request.entity).table)
            var ids: [ManagedObjectID] = []
            ids.reserveCapacity(expected)
            try SQLiteRawBinding.forEachRow(statement, arguments: arguments, in: db) { h in
                if let id = try reader.objectID(h) { ids.append(id) }
            }
            return ids
        }
    }

    /// The IDs of the matching rows and the values of a few attribute slots, as columns. With a
    /// `cancellation`, a progress handler on the connection stops the query (sort included) soon
    /// after it is cancelled, and the call throws `CancellationError`.
    public func fetchObjectIDColumns(
        _ request: StoreFetchRequest, valuesAt slots: [Int], cancellation: FetchCancellation?
    ) throws -> (ids: [ManagedObjectID], columns: [[AttributeValue]]) {
        try cancellation?.check()
        do {
            return try fetchObjectIDColumns(request, slots: slots, cancellation: cancellation)
        } catch {
            if cancellation?.isCancelled == true { throw CancellationError() }
            throw error
        }
    }

    private func fetchObjectIDColumns(
        _ request: StoreFetchRequest, slots: [Int], cancellation: FetchCancellation?
    ) throws -> (ids: [ManagedObjectID], columns: [[AttributeValue]]) {
        let mapping = try schema.mapping(for: request.entity)
        let (columns, types) = try idAndValueColumns(mapping, slots: slots)
        let expected = try expectedCount(request)
        let query = { [self] (db: Database) throws -> (ids: [ManagedObjectID], columns: [[AttributeValue]]) in
            let (sql, arguments) = try selectSQL(db, request, countOnly: false, columns: columns.joined(separator: ", "))
            let statement = try db.cachedStatement(sql: sql)
            var reader = SQLiteRowIDReader(store: self, table: mapping.table)
            var ids: [ManagedObjectID] = []
            ids.reserveCapacity(expected)
            var values = [[AttributeValue]](repeating: [], count: types.count)
            for i in values.indices { values[i].reserveCapacity(expected) }
            var previous = [AttributeValue](repeating: .null, count: types.count)
            Self.installProgressHandler(db, cancellation)
            defer { Self.removeProgressHandler(db, cancellation) }
            try SQLiteRawBinding.forEachRow(statement, arguments: arguments, in: db) { h in
                guard let id = try reader.objectID(h) else { return }
                for (i, type) in types.enumerated() {
                    // A string equal to the previous row's shares its storage (a sorted column
                    // repeats its values side by side): kept once, not read into a new string.
                    if type == .string, case let .string(last) = previous[i], SQLiteRawBinding.text(h, Int32(i + 2), equals: last) {
                        values[i].append(previous[i])
                        continue
                    }
                    let value = SQLiteRawBinding.column(h, Int32(i + 2), type: type)
                    previous[i] = value
                    values[i].append(value)
                }
                ids.append(id)
            }
            return (ids, values)
        }
        // Off a context's queue (a cancellable fetch), on the second connection when the file is
        // in WAL mode, so the store's own connection stays free for the queue's faults and saves.
        if cancellation != nil, let result = try offQueueReader.read(query) { return result }
        return try readStatement(query)
    }

    /// Every 1,000 virtual-machine steps SQLite asks `cancellation` whether to go on (none: nothing
    /// installed); ``removeProgressHandler(_:_:)`` after the query.
    static func installProgressHandler(_ db: Database, _ cancellation: FetchCancellation?) {
        guard let cancellation, let connection = db.sqliteConnection else { return }
        sqlite3_progress_handler(
            connection, 1000,
            { context in
                guard let context else { return 0 }
                return Unmanaged<FetchCancellation>.fromOpaque(context).takeUnretainedValue().progressed() ? 1 : 0
            }, Unmanaged.passUnretained(cancellation).toOpaque())
    }

    /// Removes what ``installProgressHandler(_:_:)`` installed.
    static func removeProgressHandler(_ db: Database, _ cancellation: FetchCancellation?) {
        if cancellation != nil, let connection = db.sqliteConnection { sqlite3_progress_handler(connection, 0, nil, nil) }
    }

    /// The columns of a read of IDs with a few attribute values (`Z_PK`, `Z_ENT`, then one column
    /// per slot) and those attributes' types; a slot that is not a stored attribute is refused.
    private func idAndValueColumns(_ mapping: SQLiteSchema.EntityMapping, slots: [Int]) throws -> (columns: [String], types: [AttributeType]) {
        let entity = mapping.entity
        var columns = ["t0.Z_PK", "t0.Z_ENT"]
        var types: [AttributeType] = []
        for slot in slots {
            guard slot >= 0, slot < entity.allAttributes.count, let column = mapping.attributeColumns[slot] else {
                throw CoreStackError.invalidFetchRequest("attribute slot \(slot) of \(entity.name) is not stored")
            }
            columns.append("t0.\(column)")
            types.append(entity.attributeTypes[slot])
        }
        return (columns, types)
    }

    /// The IDs of the matching rows with the values of a few attribute slots.
    public func fetchObjectIDs(_ request: StoreFetchRequest, valuesAt slots: [Int]) throws -> [(objectID: ManagedObjectID, values: [AttributeValue])] {
        let mapping = try schema.mapping(for: request.entity)
        let (columns, types) = try idAndValueColumns(mapping, slots: slots)
        let expected = try expectedCount(request)
        return try readStatement { db in
            let (sql, arguments) = try selectSQL(db, request, countOnly: false, columns: columns.joined(separator: ", "))
            let statement = try db.cachedStatement(sql: sql)
            var reader = SQLiteRowIDReader(store: self, table: mapping.table)
            var out: [(objectID: ManagedObjectID, values: [AttributeValue])] = []
            out.reserveCapacity(expected)
            // Allows External Storage columns among the slots (per query; usually none).
            let external = mapping.entity.hasExternalBinaryData ? slots.indices.filter { mapping.entity.externalBinarySlots.contains(slots[$0]) } : []
            let folder = external.isEmpty ? nil : externalDataFolder
            try SQLiteRawBinding.forEachRow(statement, arguments: arguments, in: db) { h in
                guard let id = try reader.objectID(h) else { return }
                var values: [AttributeValue] = []
                values.reserveCapacity(types.count)
                for (i, type) in types.enumerated() { values.append(SQLiteRawBinding.column(h, Int32(i + 2), type: type)) }
                if !external.isEmpty { SQLiteExternalBinaryData.decode(&values, slots: external, folder: folder) }
                out.append((id, values))
            }
            return out
        }
    }

    /// Dictionary results in SQL: the columns, `GROUP BY` and aggregates of a dictionary fetch.
    public func fetchDictionaryRows(_ request: StoreFetchRequest, columns: [DictionaryColumn], groupBy: [Int]) throws -> [[AttributeValue]] {
        // To-one destinations need their entity's numbering: those fetches read rows.
        if columns.contains(where: { if case .toOne = $0 { true } else { false } }) {
            return try DictionaryColumn.rowsInMemory(self, request, columns: columns, groupBy: groupBy)
        }
        let mapping = try schema.mapping(for: request.entity)
        let entity = mapping.entity
        func column(_ slot: Int) throws -> String {
            guard slot >= 0, slot < mapping.attributeColumns.count, let c = mapping.attributeColumns[slot] else {
                throw CoreStackError.invalidFetchRequest("\(entity.name): attribute slot \(slot) is not stored (a transient cannot be fetched from the store)")
            }
            return "t0.\(c)"
        }
        var expressions: [String] = []
        var types: [AttributeType] = []
        var external: [Int] = []  // result columns of Allows External Storage attributes
        for c in columns {
            switch c {
            case let .attribute(slot, _):
                if entity.hasExternalBinaryData, entity.externalBinarySlots.contains(slot) { external.append(types.count) }
                expressions.append(try column(slot))
                types.append(entity.attributeTypes[slot])
            case .toOne:
                continue
            case let .aggregate(f, slot, _):
                guard let slot else {
                    expressions.append("COUNT(*)")
                    types.append(.integer64)
                    continue
                }
                let col = try column(slot)
                let type = entity.attributeTypes[slot]
                let integral = type == .integer16 || type == .integer32 || type == .integer64
                switch f {
                case .count: expressions.append("COUNT(\(col))"); types.append(.integer64)
                case .sum: expressions.append(integral ? "COALESCE(SUM(\(col)), 0)" : "TOTAL(\(col))"); types.append(integral ? .integer64 : .double)
                case .avg: expressions.append("AVG(\(col))"); types.append(.double)
                case .min: expressions.append("MIN(\(col))"); types.append(type)
                case .max: expressions.append("MAX(\(col))"); types.append(type)
                }
            }
        }
        let grouped = !groupBy.isEmpty || columns.contains(where: \.isAggregate)
        let groupColumns = try groupBy.map(column)
        return try readStatement { db in
            let (sql, arguments) = try selectSQL(
                db, request, countOnly: false, columns: expressions.joined(separator: ", "), groupBy: grouped ? groupColumns : nil)
            let statement = try db.cachedStatement(sql: sql)
            var out: [[AttributeValue]] = []
            let folder = external.isEmpty ? nil : externalDataFolder
            try SQLiteRawBinding.forEachRow(statement, arguments: arguments, in: db) { h in
                var values = types.enumerated().map { i, type in SQLiteRawBinding.column(h, Int32(i), type: type) }
                if !external.isEmpty { SQLiteExternalBinaryData.decode(&values, slots: external, folder: folder) }
                out.append(values)
            }
            return out
        }
    }

    /// `SELECT COUNT` of the matching rows.
    public func count(_ request: StoreFetchRequest) throws -> Int {
        try readStatement { db in
            let (sql, arguments) = try selectSQL(db, request, countOnly: true)
            let statement = try db.cachedStatement(sql: sql)
            return try Int.fetchOne(statement, arguments: StatementArguments(arguments)) ?? 0
        }
    }

    /// The SQL and arguments of a fetch (or of its count) on `db`.
    ///
    /// - Throws: ``CoreStackError/sqlite(path:message:)`` for a predicate's string or blob longer
    ///   than `db` can bind (see `SQLiteRawBinding.arguments(_:in:)`), before GRDB binds it.
    func selectSQL(
        _ db: Database, _ request: StoreFetchRequest, countOnly: Bool, columns selected: String? = nil, groupBy: [String]? = nil
    ) throws -> (String, [DatabaseValue]) {
        let mapping = try schema.mapping(for: request.entity)
        guard let plan = tablePlans[mapping.table] else { throw CoreStackError.unknownEntity(request.entity.name) }
        let entity = mapping.entity
        var compiler = SQLitePredicateCompiler(schema: schema)
        var conditions: [String] = []
        if mapping.tableIsShared {
            let numbers = request.includesSubentities ? mapping.numbersWithSubentities : [mapping.number]
            let tree = (try? schema.mapping(for: entity.rootEntity))?.numbersWithSubentities ?? []
            if Set(numbers) != Set(tree) {
                conditions.append("t0.Z_ENT IN (\(numbers.map(String.init).joined(separator: ", ")))")
            }
        }
        if let predicate = request.predicate {
            try PredicateValidator.validate(predicate, entity: entity)
            conditions.append(try compiler.compile(predicate, entity: entity, alias: "t0"))
        }
        var order: [String] = []
        for sort in request.sortDescriptors {
            order.append(try compiler.orderTerm(sort, entity: entity, alias: "t0"))
        }
        var arguments = compiler.arguments
        let columns = countOnly ? "t0.Z_PK" : selected ?? plan.selectList
        var sql = "SELECT \(columns) FROM \(mapping.table) t0"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        if let groupBy {
            // Grouped (or aggregated over every row): groups in the request's order, then by key.
            if !groupBy.isEmpty { sql += " GROUP BY " + groupBy.joined(separator: ", ") }
            if !order.isEmpty || !groupBy.isEmpty { sql += " ORDER BY " + (order + groupBy).joined(separator: ", ") }
        } else if !order.isEmpty || !countOnly {
            sql += " ORDER BY " + (order + ["t0.Z_PK"]).joined(separator: ", ")
        }
        if request.fetchLimit > 0 || request.fetchOffset > 0 {
            guard request.fetchLimit >= 0, request.fetchOffset >= 0 else {
                throw CoreStackError.invalidFetchRequest("fetchLimit and fetchOffset must not be negative")
            }
            sql += " LIMIT ? OFFSET ?"
            arguments.append((request.fetchLimit > 0 ? request.fetchLimit : -1).databaseValue)
            arguments.append(request.fetchOffset.databaseValue)
        }
        if countOnly { sql = "SELECT COUNT(*) FROM (\(sql))" }
        try SQLiteRawBinding.checkLengths(compiler.arguments, in: db)
        return (sql, arguments)
    }

    /// Decodes rows of `SELECT <selectList>`, keeping the plan of the last entity seen (rows come
    /// in runs of one entity), so a row costs no plan look-up or copy.
    ///
    /// The per-row loop reads only this struct's own arrays: the entity is held once here and
    /// reached unretained, so a row costs one retain of it (the object ID's) and no others.
    struct RowDecoder {
        let store: SQLiteStore
        /// The table the rows come from (for errors).
        var table = "an entity table"
        /// The store's interned identifier (looked up once per query, not per row).
        let storeToken: UInt32
        private var number = -1
        /// The entity of the current plan.
        private var entity: EntityDescription?
        /// Per attribute slot: the row column holding it, or -1 for a transient slot.
        private var columnIndex: [Int32] = []
        private var types: [AttributeType] = []
        private var defaults: [AttributeValue] = []
        private var toOneIndex: [(key: Int, entity: Int?)?] = []
        private var destinations: [EntityDescription] = []
        /// For an entity whose relationships are all to-many (no to-one column to read): the
        /// to-one list of every row, all nil, shared rather than allocated per row.
        private var sharedToOne: [ManagedObjectID?]?
        /// Attribute slots with *Allows External Storage* (empty for most entities).
        private var externalSlots: [Int] = []
        private var externalFolder: URL?

        init(store: SQLiteStore) {
            self.store = store
            storeToken = store.storeToken
        }

        /// Switches to the plan of entity number `ent`; false when the model has no such entity.
        private mutating func use(entityNumber ent: Int) -> Bool {
            guard let plan = store.entityPlan(number: ent) else { return false }
            number = ent
            entity = plan.entity
            columnIndex = plan.attributeColumns
            types = plan.entity.attributeTypes
            defaults = plan.entity.defaultValues
            toOneIndex = plan.toOneIndex
            destinations = plan.entity.destinations
            sharedToOne = toOneIndex.allSatisfy { $0 == nil } ? [ManagedObjectID?](repeating: nil, count: toOneIndex.count) : nil
            externalSlots = plan.entity.externalBinarySlots
            if !externalSlots.isEmpty, externalFolder == nil { externalFolder = store.externalDataFolder }
            return true
        }

        /// Appends the store row of the statement's current row to `rows`; appends nothing for a
        /// row of an entity the model lacks. (Appended here rather than returned: unwrapping a
        /// returned optional row copies it, a retain and a release of each of its references.)
        /// - Throws: ``CoreStackError/storeCorrupted(path:reason:)`` for a row whose `Z_PK` or
        ///   `Z_ENT` is NULL or not an integer (Core Data writes both in every row).
        mutating func decode(_ h: SQLiteStatement, appendingTo rows: inout [StoreRow]) throws {
            guard let pk = SQLiteRawBinding.int64(h, 0), let ent = SQLiteRawBinding.int64(h, 1) else { throw damagedKeys(h) }
            if Int(ent) != number, !use(entityNumber: Int(ent)) { return }
            // The one retain a row needs: its ID's reference to the entity (moved into the ID).
            guard let entity else { return }
            let version = SQLiteRawBinding.int64(h, 2) ?? 0
            // A save writes version + 1: the largest integer is damage, not a version (found by
            // corestack-store-fuzz, seed 13: a save trapped on the overflow).
            if version == Int64.max {
                throw CoreStackError.storeCorrupted(
                    path: store.path, reason: "\(table).Z_OPT of the row Z_PK = \(pk) holds \(version), the largest integer: not a version a save can follow")
            }
            let n = columnIndex.count
            // Reserved, then appended: `reserveCapacity` is specialised here, whereas the
            // unsafe-uninitialized initialiser looks the array's storage class up at run time.
            var values: [AttributeValue] = []
            values.reserveCapacity(n)
            columnIndex.withUnsafeBufferPointer { columns in
                types.withUnsafeBufferPointer { types in
                    for slot in 0..<n {
                        let index = columns[slot]
                        values.append(index >= 0 ? SQLiteRawBinding.column(h, index, type: types[slot]) : defaults[slot])
                    }
                }
            }
            if !externalSlots.isEmpty { SQLiteExternalBinaryData.decode(&values, slots: externalSlots, folder: externalFolder) }
            var toOne: [ManagedObjectID?] = []
            if let sharedToOne {
                toOne = sharedToOne
            } else if !toOneIndex.isEmpty {
                toOne = decodeToOne(h)
            }
            // Moved into the row (`consume`), not copied: a copy retains and releases each reference.
            rows.append(StoreRow(
                objectID: ManagedObjectID(entity: consume entity, storeToken: storeToken, primaryKey: pk),
                snapshot: RowSnapshot(values: consume values, toOne: consume toOne, version: version)))
        }

        /// The error for a row without an integer `Z_PK` or `Z_ENT`.
        private func damagedKeys(_ h: SQLiteStatement) -> CoreStackError {
            let pk = SQLiteRawBinding.int64(h, 0).map { "Z_PK = \($0)" } ?? "without an integer Z_PK"
            let column = SQLiteRawBinding.int64(h, 0) == nil ? "Z_PK" : "Z_ENT"
            return .storeCorrupted(path: store.path, reason: "\(table).\(column) of the row \(pk) is NULL or not an integer")
        }

        private func decodeToOne(_ h: SQLiteStatement) -> [ManagedObjectID?] {
            var toOne: [ManagedObjectID?] = []
            toOne.reserveCapacity(toOneIndex.count)
            for (slot, index) in toOneIndex.enumerated() {
                guard let index, let key = SQLiteRawBinding.int64(h, Int32(index.key)) else {
                    toOne.append(nil)
                    continue
                }
                var dest = destinations[slot]
                if let ei = index.entity, let n = SQLiteRawBinding.int64(h, Int32(ei)), let e = store.schema.entity(number: Int(n)) {
                    dest = e
                }
                toOne.append(ManagedObjectID(entity: dest, storeToken: storeToken, primaryKey: key))
            }
            return toOne
        }
    }

    /// The rows of these IDs, read a table at a time in queries of up to 500 keys (see `appendRows`).
    public func rows(for ids: [ManagedObjectID]) throws -> [StoreRow] {
        // One object's fault: its plan's ready-made statement, no grouping.
        if ids.count == 1, let pk = ids[0].primaryKey { return try row(of: ids[0]._entity, key: pk) }
        // The keys grouped by table, tables in order of first appearance. The table is looked up
        // when the entity changes from the previous ID's, not per ID (a batch is one entity).
        var groups: [(table: String, keys: [Int64])] = []
        var groupOfTable: [String: Int] = [:]
        var lastEntity: EntityDescription?
        var group = 0
        for id in ids {
            guard let pk = id.primaryKey else { continue }
            if id.entity !== lastEntity {
                let table = try schema.mapping(for: id.entity).table
                if let g = groupOfTable[table] {
                    group = g
                } else {
                    group = groups.count
                    groupOfTable[table] = group
                    groups.append((table, []))
                }
                lastEntity = id.entity
            }
            groups[group].keys.append(pk)
        }
        // One table and one chunk is one statement: no transaction needed around it.
        let single = groups.count == 1 && groups[0].keys.count <= Self.batchSize
        func run<T>(_ body: (Database) throws -> T) throws -> T { try single ? readStatement(body) : read(body) }
        return try run { db in
            var decoder = RowDecoder(store: self)
            var result: [StoreRow] = []
            for (table, keys) in groups {
                guard let plan = tablePlans[table] else { continue }
                decoder.table = table
                var start = 0
                while start < keys.count {
                    let chunk = keys[start..<min(start + Self.batchSize, keys.count)]
                    start += Self.batchSize
                    try appendRows(db, keys: chunk, plan: plan, decoder: &decoder, to: &result)
                }
            }
            return result
        }
    }

    /// The row of one key (a fault of one object). An entity of the store's model finds its table
    /// in ``faultPlans`` and its statement among the ``connectionStatements``; another (an equal
    /// entity of another model instance) goes through the schema and GRDB's statement cache.
    private func row(of entity: EntityDescription, key pk: Int64) throws -> [StoreRow] {
        let number = entity.entityNumber
        guard number >= 0, number < faultPlans.count, let fault = faultPlans[number], fault.entity === entity else {
            let mapping = try schema.mapping(for: entity)
            guard let plan = tablePlans[mapping.table] else { return [] }
            return try readStatement { db in
                var decoder = RowDecoder(store: self)
                decoder.table = mapping.table
                var result: [StoreRow] = []
                try appendRows(db, keys: CollectionOfOne(pk), plan: plan, decoder: &decoder, to: &result)
                return result
            }
        }
        let plan = fault.table
        return try readStatement { db in
            var decoder = RowDecoder(store: self)
            decoder.table = plan.table
            var result: [StoreRow] = []
            let statement = try connectionStatements.byKey(number, plan, db)
            do {
                try SQLiteRawBinding.forEachRow(statement, keys: CollectionOfOne(pk), in: db) { h in
                    try decoder.decode(h, appendingTo: &result)
                }
            } catch {
                // Prepared again next time, as GRDB drops a statement that failed from its cache.
                connectionStatements.forget(number)
                throw error
            }
            return result
        }
    }

    /// Appends the rows of one table's `keys` (at most ``batchSize``) to `result`, in one query:
    /// a run of consecutive keys (a batch of a fetch in key order) as one range, with no list of
    /// keys for SQLite to bind and sort into a temporary index; one key with the plan's
    /// ready-made statement (a fault of one object builds no SQL); else an `IN` list.
    private func appendRows(
        _ db: Database, keys: some BidirectionalCollection<Int64>, plan: TablePlan, decoder: inout RowDecoder,
        to result: inout [StoreRow]
    ) throws {
        func read(_ statement: Statement, _ bound: some Collection<Int64>) throws {
            try SQLiteRawBinding.forEachRow(statement, keys: bound, in: db) { h in
                try decoder.decode(h, appendingTo: &result)
            }
        }
        if keys.count > 1, Self.isRun(keys), let first = keys.first, let last = keys.last {
            try read(try db.cachedStatement(sql: plan.selectByKeyRange), [first, last])
        } else {
            try read(
                try db.cachedStatement(
                    sql: keys.count == 1 ? plan.selectByKey : plan.selectByKeys + SQLiteRawBinding.placeholders(keys.count) + ")"),
                keys)
        }
    }

    /// Whether `keys` counts up by one from its first to its last (so `BETWEEN first AND last`
    /// selects exactly those keys).
    static func isRun(_ keys: some Collection<Int64>) -> Bool {
        guard var previous = keys.first else { return false }
        for k in keys.dropFirst() {
            guard previous < Int64.max, k == previous + 1 else { return false }
            previous = k
        }
        return true
    }

    /// The to-many destinations of each object for one relationship slot: from the inverse foreign key or the join table, in `Z_FOK_` order for ordered relationships.
    public func relatedObjectIDs(for ids: [ManagedObjectID], relationshipSlot slot: Int) throws -> [ManagedObjectID: [ManagedObjectID]] {
        guard !ids.isEmpty else { return [:] }
        return try read { db in try relatedObjectIDs(db, for: ids, relationshipSlot: slot) }
    }

    /// Steps one SQL query and hands the rows to `body` a chunk at a time, with each chunk's
    /// to-many destinations read in the same read transaction when `withToMany`.
    ///
    /// The query runs on a read-only connection of its own (see `withStreamingConnection(_:)`),
    /// not on the store's connection queue: `body` may call back into the store (a fetch, a
    /// fault, a save), and other contexts of the coordinator are not kept waiting while it runs.
    /// What it writes meanwhile is not seen by the stream, which reads one snapshot of the file.
    public func fetch(
        _ request: StoreFetchRequest, withToMany: Bool,
        chunks body: (_ rows: inout [StoreRow], _ toMany: [ManagedObjectID: [Int: [ManagedObjectID]]]) throws -> Void
    ) throws {
        try withStreamingConnection { db in
            let (sql, arguments) = try selectSQL(db, request, countOnly: false)
            // Not the cached statement: the to-many queries below run while this one steps, and
            // a nested fetch of the same request must not reuse it.
            let statement = try db.makeStatement(sql: sql)
            var chunk: [StoreRow] = []
            chunk.reserveCapacity(Self.chunkSize)
            var decoder = RowDecoder(store: self)
            decoder.table = try schema.mapping(for: request.entity).table
            func deliver() throws {
                var toMany: [ManagedObjectID: [Int: [ManagedObjectID]]] = [:]
                if withToMany {
                    // The statement above is still stepping in its read transaction: these
                    // queries see the same state of the file.
                    for group in Self.groupedByEntity(chunk) {
                        for (slot, r) in group.entity.allRelationships.enumerated() where r.isToMany && !r.isTransient {
                            for (id, dest) in try relatedObjectIDs(db, for: group.ids, relationshipSlot: slot) {
                                toMany[id, default: [:]][slot] = dest
                            }
                        }
                    }
                }
                try body(&chunk, toMany)
                chunk.removeAll(keepingCapacity: true)
            }
            try SQLiteRawBinding.forEachRow(statement, arguments: arguments, in: db) { h in
                try decoder.decode(h, appendingTo: &chunk)
                if chunk.count == Self.chunkSize { try deliver() }
            }
            if !chunk.isEmpty { try deliver() }
        }
    }

    /// The configuration of a second, read-only connection to the store file (a stream's, the
    /// off-queue reader's): the store's SQL functions, a 10 s busy timeout; the caller applies
    /// its ``SQLiteConnectionFiles/Target`` (how a read-only connection opens) on top.
    static func secondConnectionConfiguration(label: String) -> Configuration {
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(10)
        config.label = label
        config.prepareDatabase { db in SQLiteFunctions.register(in: db) }
        return config
    }

    /// Runs `body` in a read transaction on a new read-only connection to the store's file, which
    /// nothing else uses, then closes it.
    ///
    /// A long read that hands rows to user code cannot run on the store's one connection: the
    /// connection's queue would be held while user code runs (a nested store call would trap in
    /// GRDB, other contexts would wait), and leaving the queue between chunks would let other
    /// statements run inside the open read transaction (or, reading chunk by chunk in separate
    /// transactions, would lose the single snapshot the stream promises). SQLite's WAL mode lets
    /// this connection hold its snapshot while the store's connection reads and writes.
    ///
    /// The stream counts itself in ``streams`` before it opens its connection, and only while the
    /// store is open (a stream that passed the check as the store closed throws
    /// ``CoreStackError/storeClosed(_:)`` and opens nothing); a ``close()`` meanwhile leaves the
    /// store's connection open until the last stream has closed its own, so the store's is the
    /// last connection to the file and SQLite checkpoints the `-wal` and removes it and the `-shm`.
    func withStreamingConnection<T>(_ body: (Database) throws -> T) throws -> T {
        try checkOpen()
        runAfterOpenCheckHook()
        let counted = streams.withLock { streams in
            guard !closedFlag.load(ordering: .acquiring) else { return false }
            streams.running += 1
            return true
        }
        guard counted else { throw CoreStackError.storeClosed(path) }
        // Registered first, so it runs last: after this stream's connection is closed and counted.
        defer {
            let closeNow = streams.withLock { streams in
                streams.running -= 1
                guard streams.running == 0, streams.closeDeferred else { return false }
                streams.closeDeferred = false
                return true
            }
            if closeNow { closeConnection(finally: false) }
        }
        var config = Self.secondConnectionConfiguration(label: "CoreStack.SQLiteStore.stream")
        // Made as the store's own connection was, for a read-only store (SQLiteReadAccess).
        let target = try SQLiteConnectionFiles.opened(path, readOnly: true)
        defer { SQLiteConnectionFiles.closed(path) }
        target.configure(&config)
        let queue = try Self.wrap(path) { try DatabaseQueue(path: target.connectionPath, configuration: config) }
        defer { try? queue.close() }
        return try Self.wrap(path) { try queue.read(body) }
    }

    /// The IDs of rows by entity, in the order entities first appear.
    static func groupedByEntity(_ rows: [StoreRow]) -> [(entity: EntityDescription, ids: [ManagedObjectID])] {
        var groups: [(entity: EntityDescription, ids: [ManagedObjectID])] = []
        for row in rows {
            let e = row.objectID.entity
            if let i = groups.firstIndex(where: { $0.entity === e }) {
                groups[i].ids.append(row.objectID)
            } else {
                groups.append((e, [row.objectID]))
            }
        }
        return groups
    }

    /// ``relatedObjectIDs(for:relationshipSlot:)`` inside a read already open.
    func relatedObjectIDs(_ db: Database, for ids: [ManagedObjectID], relationshipSlot slot: Int) throws -> [ManagedObjectID: [ManagedObjectID]] {
        guard let first = ids.first else { return [:] }
        let mapping = try schema.mapping(for: first.entity)
        guard slot >= 0, slot < mapping.toMany.count, let toMany = mapping.toMany[slot] else {
            throw CoreStackError.invalidFetchRequest("slot \(slot) of \(first.entity.name) is not a stored to-many relationship")
        }
        let dest = mapping.entity.destinations[slot]
        let destMapping = try schema.mapping(for: dest)
        var restriction = ""
        if destMapping.tableIsShared && dest.superentity != nil {
            // `+`: never an index for this term. With an index on Z_ENT, SQLite's planner
            // otherwise drives the query from every row of the destination entity (all 133,333
            // people for 256 books' authors: 0.3 s per query instead of 0.1 ms).
            restriction = " AND +d.Z_ENT IN (\(destMapping.numbersWithSubentities.map(String.init).joined(separator: ", ")))"
        }
        var result: [ManagedObjectID: [ManagedObjectID]] = [:]
        var byKey: [Int64: ManagedObjectID] = [:]
        for id in ids {
            result[id] = []
            if let pk = id.primaryKey { byKey[pk] = id }
        }
        let keys = Array(byKey.keys).sorted()
        let base: String
        switch toMany {
        case let .foreignKey(table, column, orderColumn):
            let order = ["d.\(column)"] + (orderColumn.map { ["d.\($0)"] } ?? []) + ["d.Z_PK"]
            base = "SELECT d.\(column), d.Z_PK, d.Z_ENT FROM \(table) d WHERE d.\(column) %@\(restriction) ORDER BY "
                + order.joined(separator: ", ")
        case let .join(index, src, dst, orderColumn):
            let jt = schema.joinTables[index].table.name
            let order = ["j.\(src)"] + (orderColumn.map { ["j.\($0)"] } ?? []) + ["j.\(dst)"]
            // CROSS JOIN: the join table (searched by the owners' keys) is the outer loop.
            base = "SELECT j.\(src), d.Z_PK, d.Z_ENT FROM \(jt) j CROSS JOIN \(destMapping.table) d ON d.Z_PK = j.\(dst) "
                + "WHERE j.\(src) %@\(restriction) ORDER BY " + order.joined(separator: ", ")
        }
        let token = storeToken
        let decoder = StoreFileDecoder(path: path, table: destMapping.table)
        // Rows come ordered by owner: each owner's destinations are collected in a run and stored
        // once (one hash per owner, not per destination); the entity is looked up once per run
        // of one `Z_ENT`.
        var owner: ManagedObjectID?
        var run: [ManagedObjectID] = []
        var lastNumber: Int64?
        var seenNumber = false
        var lastEntity = dest
        func flush() {
            if let owner, !run.isEmpty { result[owner, default: []] += run }
            run.removeAll(keepingCapacity: true)
        }
        func readRows(_ statement: Statement, _ bound: some Collection<Int64>) throws {
            try SQLiteRawBinding.forEachRow(statement, keys: bound, in: db) { h in
                guard let pk = try decoder.integer(h, 1, column: "Z_PK", row: "?") else { return }
                guard let key = try decoder.integer(h, 0, column: "foreign key", row: "Z_PK = \(pk)"), let source = byKey[key] else { return }
                if source != owner {
                    flush()
                    owner = source
                }
                let number = try decoder.integer(h, 2, column: "Z_ENT", row: "Z_PK = \(pk)")
                if !seenNumber || number != lastNumber {
                    seenNumber = true
                    lastNumber = number
                    lastEntity = number.flatMap { Int(exactly: $0) }.flatMap { schema.entity(number: $0) } ?? dest
                }
                run.append(ManagedObjectID(entity: lastEntity, storeToken: token, primaryKey: pk))
            }
        }
        // Each statement covers owners of its own, so an owner's rows all come from one.
        let (ranges, loose) = Self.keyRuns(keys, minimumRun: Self.rangeRunLength)
        if !ranges.isEmpty {
            let statement = try db.cachedStatement(sql: base.replacingOccurrences(of: "%@", with: "BETWEEN ? AND ?"))
            for r in ranges { try readRows(statement, [r.lowerBound, r.upperBound]) }
        }
        var start = 0
        while start < loose.count {
            let chunk = loose[start..<min(start + Self.batchSize, loose.count)]
            start += Self.batchSize
            let statement = try db.cachedStatement(sql: base.replacingOccurrences(of: "%@", with: "IN (" + SQLiteRawBinding.placeholders(chunk.count) + ")"))
            try readRows(statement, chunk)
        }
        flush()
        return result
    }

    /// Owner runs at least this long are read with `BETWEEN ? AND ?` (two bindings, one range
    /// scan of the index) rather than in an `IN` list (a binding and an index probe per key).
    static let rangeRunLength = 16

    /// Splits sorted, distinct `keys` into the runs of consecutive keys at least `minimumRun` long
    /// (as closed ranges) and the keys left over (in order).
    ///
    /// ```swift
    /// SQLiteStore.keyRuns([1, 2, 3, 7, 9, 10], minimumRun: 2)   // ([1...3, 9...10], [7])
    /// ```
    static func keyRuns(_ keys: [Int64], minimumRun: Int) -> (ranges: [ClosedRange<Int64>], loose: [Int64]) {
        var ranges: [ClosedRange<Int64>] = []
        var loose: [Int64] = []
        var i = 0
        while i < keys.count {
            var j = i
            while j + 1 < keys.count, keys[j] < Int64.max, keys[j + 1] == keys[j] + 1 { j += 1 }
            if j - i + 1 >= max(minimumRun, 1) {
                ranges.append(keys[i]...keys[j])
            } else {
                loose.append(contentsOf: keys[i...j])
            }
            i = j + 1
        }
        return (ranges, loose)
    }
}
