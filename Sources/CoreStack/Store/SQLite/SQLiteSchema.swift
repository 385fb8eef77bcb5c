import Foundation

/// How a model maps onto Core Data's SQLite layout (Sources/CoreStack/CoreStack.docc/Reference/CoreDataFileFormat.md): tables,
/// columns, join tables, indexes, and for every entity where each of its properties lives.
///
/// Entity numbers (`Z_ENT`) come from the store's `Z_PRIMARYKEY` table when one exists (matched by
/// entity name), otherwise from the model's own numbering (which follows Core Data's rule).
///
/// Mappings CoreStack had to choose (Core Data's own choice is unverified or unknown):
/// - A to-many relationship without an inverse is stored in a join table `Z_<n><REL>` (n: the
///   source entity's number) with the columns `Z_<n>SOURCE` (source keys) and `Z_<m><REL>`
///   (destination keys, m: the destination's number), plus `Z_FOK_<m><REL>` when ordered.
/// - A many-to-many join table is named after the relationship whose entity has the lower number
///   (on a tie, the greater name); columns `Z_<n><REL>` hold the keys of `REL`'s destination.
///   When reading a store, join tables are found by their columns, not by this name.
/// - The order column of an ordered many-to-many is `Z_FOK_` + the destination column without `Z_`.
///
/// Every table, column and index name it hands out is in its SQL spelling
/// (``SQLiteIdentifier/sql(_:)``: quoted when it is no plain identifier, an entity named
/// `Order "Line"` has the table `"ZORDER ""LINE"""`), so SQL built from it needs no quoting of its
/// own; ``SQLiteIdentifier/file(_:)`` gives the name the file has.
struct SQLiteSchema: Sendable {
    /// A column of a table.
    struct Column: Sendable, Hashable {
        var name: String
        var type: String
    }

    /// A table: an entity tree's table or a join table.
    struct Table: Sendable {
        var name: String
        var columns: [Column]
        /// For join tables: the composite primary key.
        var primaryKey: [String]?
        /// The columns' names as the file spells them (a raw column's quotes removed).
        var columnNames: Set<String> { Set(columns.map { SQLiteSchema.fileColumnName($0.name) }) }
        /// The table's name as the file spells it.
        var fileName: String { SQLiteIdentifier.file(name) }
    }

    /// An index the schema creates.
    struct Index: Sendable {
        var name: String
        var table: String
        /// Column terms as written (`ZTITLE`, `ZTITLE COLLATE BINARY ASC`).
        var terms: [String]
        var isUnique: Bool
        var sql: String {
            "CREATE \(isUnique ? "UNIQUE " : "")INDEX \(name) ON \(table) (\(terms.joined(separator: ", ")))"
        }
    }

    /// Where a to-one relationship lives: a foreign key, and the destination's `Z_ENT` when the
    /// destination has sub-entities.
    struct ToOneMapping: Sendable {
        var column: String
        var entityColumn: String?
    }

    /// Where a to-many relationship lives.
    enum ToManyMapping: Sendable {
        /// The inverse to-one's foreign key on the destination's table (and its order key).
        case foreignKey(table: String, column: String, orderColumn: String?)
        /// A join table (index into ``SQLiteSchema/joinTables``).
        case join(table: Int, sourceColumn: String, destinationColumn: String, orderColumn: String?)
    }

    /// A join table and the columns it must have.
    struct JoinTable: Sendable {
        var table: Table
        var secondColumnIndexName: String
    }

    /// One entity's mapping.
    ///
    /// `@unchecked Sendable`: the `var`s are filled while ``SQLiteSchema`` is built, before the
    /// schema is handed to anything else, and only read afterwards.
    final class EntityMapping: @unchecked Sendable {
        let entity: EntityDescription
        /// The entity's `Z_ENT` in this store.
        let number: Int
        /// The table of its inheritance tree (SQL spelling; set once, when the schema is built).
        fileprivate(set) var table: String
        /// The table's name as the file spells it.
        var fileTable: String { SQLiteIdentifier.file(table) }
        /// Column of each attribute slot (nil for transients).
        var attributeColumns: [String?] = []
        /// Mapping of each to-one relationship slot (nil for to-many and transient slots).
        var toOne: [ToOneMapping?] = []
        /// Mapping of each to-many relationship slot (nil for to-one and transient slots).
        var toMany: [ToManyMapping?] = []
        /// Store numbers of this entity and its sub-entities.
        var numbersWithSubentities: [Int] = []
        /// Whether its table holds rows of other entities too.
        var tableIsShared = false
        /// Join-table columns that hold this entity's keys (rows to delete with the object).
        var joinReferences: [(table: Int, column: String)] = []

        init(entity: EntityDescription, number: Int, table: String) {
            self.entity = entity
            self.number = number
            self.table = table
        }
    }

    let model: ManagedObjectModel
    /// Entity tables (one per root entity), in entity order.
    private(set) var entityTables: [Table] = []
    private(set) var joinTables: [JoinTable] = []
    private(set) var indexes: [Index] = []
    /// Entity name → store number.
    let numbers: [String: Int]
    private var mappingsByID: [ObjectIdentifier: EntityMapping] = [:]
    private var mappingsByName: [String: EntityMapping] = [:]
    /// Store number → entity.
    private(set) var entitiesByNumber: [Int: EntityDescription] = [:]

    /// The mapping of an entity of this schema's model (or of an entity with the same name).
    func mapping(for entity: EntityDescription) throws -> EntityMapping {
        if let m = mappingsByID[ObjectIdentifier(entity)] ?? mappingsByName[entity.name] { return m }
        throw CoreStackError.unknownEntity(entity.name)
    }

    /// The entity of a row whose `Z_ENT` is `number`.
    func entity(number: Int) -> EntityDescription? { entitiesByNumber[number] }

    /// Computes the layout of `model`. `storeNumbers` (entity name → `Z_ENT`) overrides the model's
    /// numbering for entities it names.
    init(model: ManagedObjectModel, storeNumbers: [String: Int] = [:]) {
        self.model = model
        var numbers: [String: Int] = [:]
        for e in model.entities { numbers[e.name] = storeNumbers[e.name] ?? e.entityNumber }
        self.numbers = numbers
        build()
    }

    static func columnName(_ property: String) -> String { "Z" + property.uppercased() }

    /// How the SQL CoreStack builds names a raw attribute's column (``AttributeDescription/rawColumn``):
    /// as it is when it is a plain identifier, else in double quotes (`"odd name"`), since a file
    /// may name a column anything.
    static func sqlColumnName(raw column: String) -> String { SQLiteIdentifier.sql(column) }

    /// A column name of this layout as the file spells it: ``sqlColumnName(raw:)`` undone.
    static func fileColumnName(_ name: String) -> String { SQLiteIdentifier.file(name) }

    /// Column-type order used when writing tables (integers first, blobs last), as Core Data does.
    private static func typeRank(_ type: String) -> Int {
        switch type {
        case "INTEGER": 0
        case "FLOAT": 1
        case "TIMESTAMP": 2
        case "DECIMAL": 3
        case "VARCHAR": 4
        default: 5
        }
    }

    private mutating func build() {
        for e in model.entities {
            let number = numbers[e.name] ?? e.entityNumber
            let m = EntityMapping(entity: e, number: number, table: Self.columnName(e.rootEntity.name))
            m.attributeColumns = Array(repeating: nil, count: e.allAttributes.count)
            m.toOne = Array(repeating: nil, count: e.allRelationships.count)
            m.toMany = Array(repeating: nil, count: e.allRelationships.count)
            m.numbersWithSubentities = e.selfAndDescendants.map { numbers[$0.name] ?? $0.entityNumber }
            m.tableIsShared = e.rootEntity.selfAndDescendants.count > 1
            mappingsByID[ObjectIdentifier(e)] = m
            mappingsByName[e.name] = m
            entitiesByNumber[number] = e
        }
        let roots = model.entities.filter { $0.superentity == nil }
        for root in roots { buildEntityTable(root) }
        buildToMany()
        buildConstraintIndexes()
        spellForSQL()
    }

    /// Puts every table, column and index name, built as the file spells it, into its SQL
    /// spelling (``SQLiteIdentifier/sql(_:)``), once. Index terms are written in SQL already.
    private mutating func spellForSQL() {
        let q = SQLiteIdentifier.sql
        func spelled(_ t: Table) -> Table {
            Table(name: q(t.name), columns: t.columns.map { Column(name: q($0.name), type: $0.type) }, primaryKey: t.primaryKey?.map(q))
        }
        entityTables = entityTables.map(spelled)
        joinTables = joinTables.map { JoinTable(table: spelled($0.table), secondColumnIndexName: q($0.secondColumnIndexName)) }
        indexes = indexes.map { Index(name: q($0.name), table: q($0.table), terms: $0.terms, isUnique: $0.isUnique) }
        for m in mappingsByID.values {
            m.table = q(m.table)
            m.attributeColumns = m.attributeColumns.map { $0.map(q) }
            m.toOne = m.toOne.map { $0.map { ToOneMapping(column: q($0.column), entityColumn: $0.entityColumn.map(q)) } }
            m.toMany = m.toMany.map { mapping in
                switch mapping {
                case let .foreignKey(table, column, order)?: .foreignKey(table: q(table), column: q(column), orderColumn: order.map(q))
                case let .join(table, source, destination, order)?:
                    .join(table: table, sourceColumn: q(source), destinationColumn: q(destination), orderColumn: order.map(q))
                case nil: nil
                }
            }
            m.joinReferences = m.joinReferences.map { ($0.table, q($0.column)) }
        }
    }

    private func number(_ e: EntityDescription) -> Int { numbers[e.name] ?? e.entityNumber }

    /// Columns of one inheritance tree, with digit suffixes on collisions.
    private mutating func buildEntityTable(_ root: EntityDescription) {
        let tableName = Self.columnName(root.name)
        struct Pending {
            var base: String
            var type: String
            var owner: EntityDescription
            var property: String
            var isToOne: Bool
            var entityColumnNumber: Int?
        }
        var pending: [Pending] = []
        for e in root.selfAndDescendants {
            var declared: [Pending] = []
            for a in e.attributes where !a.isTransient {
                declared.append(Pending(
                    base: a.rawColumn ?? Self.columnName(a.name), type: a.type.sqlColumnType,
                    owner: e, property: a.name, isToOne: false))
            }
            for r in e.relationships where !r.isTransient && !r.isToMany {
                guard let dest = e.destinationEntity(ofRelationship: r.name) else { continue }
                let entityColumnNumber = dest.subentities.isEmpty ? nil : number(dest.rootEntity)
                declared.append(Pending(base: Self.columnName(r.name), type: "INTEGER", owner: e, property: r.name, isToOne: true, entityColumnNumber: entityColumnNumber))
            }
            pending += declared.sorted { $0.property < $1.property }
        }
        var counts: [String: Int] = [:]
        for p in pending { counts[p.base, default: 0] += 1 }
        // Names no colliding property may take: the fixed columns and the names kept as they are.
        // A suffixed name skips them (`a`, `A` and `a1` would otherwise give `ZA1` twice, and a
        // property `_pk` would be a second `Z_PK`: a table SQLite refuses, plans that trap).
        let fixed: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
        var taken = fixed
        for p in pending where counts[p.base] == 1 && !fixed.contains(p.base) { taken.insert(p.base) }
        var used: [String: Int] = [:]
        var columns: [(rank: Int, order: Int, columns: [Column])] = []
        for (order, p) in pending.enumerated() {
            var name = p.base
            if (counts[p.base] ?? 0) > 1 || fixed.contains(p.base) {
                repeat {
                    used[p.base, default: 0] += 1
                    name = p.base + String(used[p.base] ?? 1)
                } while taken.contains(name)
                taken.insert(name)
            }
            var cols = [Column(name: name, type: p.type)]
            if p.isToOne, let n = p.entityColumnNumber {
                var entityColumn = "Z\(n)_" + String(name.dropFirst())
                while taken.contains(entityColumn) { entityColumn += "_" }
                taken.insert(entityColumn)
                cols.append(Column(name: entityColumn, type: "INTEGER"))
            }
            columns.append((Self.typeRank(p.type), order, cols))
            // Record the column in the owner and every descendant.
            for e in p.owner.selfAndDescendants {
                guard let m = mappingsByID[ObjectIdentifier(e)] else { continue }
                if p.isToOne {
                    if let slot = e.relationshipSlots[p.property] {
                        m.toOne[slot] = ToOneMapping(column: name, entityColumn: cols.count > 1 ? cols[1].name : nil)
                    }
                } else if let slot = e.attributeSlots[p.property] {
                    m.attributeColumns[slot] = name
                }
            }
            if p.isToOne {
                indexes.append(Index(name: "\(tableName)_\(name)_INDEX", table: tableName, terms: [SQLiteIdentifier.sql(name)], isUnique: false))
            }
        }
        columns.sort { ($0.rank, $0.order) < ($1.rank, $1.order) }
        let base = [Column(name: "Z_PK", type: "INTEGER PRIMARY KEY"), Column(name: "Z_ENT", type: "INTEGER"), Column(name: "Z_OPT", type: "INTEGER")]
        entityTables.append(Table(name: tableName, columns: base + columns.flatMap(\.columns)))
        if root.selfAndDescendants.count > 1 {
            indexes.append(Index(name: "\(tableName)_Z_ENT_INDEX", table: tableName, terms: ["Z_ENT"], isUnique: false))
        }
    }

    private mutating func addColumn(_ column: Column, toEntityTable table: String) {
        guard let i = entityTables.firstIndex(where: { $0.name == table }) else { return }
        if !entityTables[i].columns.contains(where: { $0.name == column.name }) {
            // Order keys go after the other integer columns.
            let at = entityTables[i].columns.lastIndex { $0.type == "INTEGER" || $0.type == "INTEGER PRIMARY KEY" } ?? 2
            entityTables[i].columns.insert(column, at: at + 1)
        }
    }

    private mutating func buildToMany() {
        var done: Set<String> = []
        for e in model.entities {
            for r in e.relationships where r.isToMany && !r.isTransient {
                let key = "\(e.name).\(r.name)"
                guard !done.contains(key), let dest = e.destinationEntity(ofRelationship: r.name),
                    let slot = e.relationshipSlots[r.name]
                else { continue }
                done.insert(key)
                let inverse = e.inverseRelationship(of: r.name)
                if let inverse, !inverse.isToMany {
                    // One-to-many: the inverse's foreign key on the destination table.
                    var fk = Self.columnName(inverse.name)
                    if let invSlot = dest.relationshipSlots[inverse.name], let col = mappingFor(dest)?.toOne[invSlot]?.column {
                        fk = col
                    }
                    var order: String?
                    if r.isOrdered {
                        let col = "Z_FOK_" + String(fk.dropFirst())
                        order = col
                        addColumn(Column(name: col, type: "INTEGER"), toEntityTable: Self.columnName(dest.rootEntity.name))
                    }
                    setToMany(e, slot, .foreignKey(table: Self.columnName(dest.rootEntity.name), column: fk, orderColumn: order))
                    continue
                }
                if let inverse, let invOwner = Self.declaring(inverse.name, from: dest),
                    let invSlot = invOwner.relationshipSlots[inverse.name],
                    let invDest = invOwner.destinationEntity(ofRelationship: inverse.name)
                {
                    // Many-to-many.
                    done.insert("\(invOwner.name).\(inverse.name)")
                    let reflexive = invOwner === e && inverse.name == r.name
                    let rNumber = number(e), invNumber = number(invOwner)
                    let rOwns = reflexive || rNumber < invNumber || (rNumber == invNumber && r.name > inverse.name)
                    // (relationship, declaring entity, its destination, its slot)
                    let a = (rel: r, entity: e, dest: dest, slot: slot)
                    let b = (rel: inverse, entity: invOwner, dest: invDest, slot: invSlot)
                    let (owner, other) = rOwns ? (a, b) : (b, a)
                    // A column named after a relationship holds that relationship's destination keys.
                    let tableName = "Z_\(number(owner.entity))\(owner.rel.name.uppercased())"
                    let c2 = "Z_\(number(owner.dest))\(owner.rel.name.uppercased())"
                    let c1 = reflexive ? "REFLEXIVE" : "Z_\(number(other.dest))\(other.rel.name.uppercased())"
                    let ownerOrder = owner.rel.isOrdered ? "Z_FOK_" + String(c2.dropFirst(2)) : nil
                    let otherOrder = (!reflexive && other.rel.isOrdered) ? "Z_FOK_" + String(c1.dropFirst(2)) : nil
                    let index = addJoinTable(name: tableName, c1: c1, c2: c2, orders: [otherOrder, ownerOrder].compactMap { $0 })
                    setToMany(owner.entity, owner.slot, .join(table: index, sourceColumn: c1, destinationColumn: c2, orderColumn: ownerOrder))
                    addJoinReference(owner.entity, index, c1)
                    addJoinReference(owner.dest, index, c2)
                    if !reflexive {
                        setToMany(other.entity, other.slot, .join(table: index, sourceColumn: c2, destinationColumn: c1, orderColumn: otherOrder))
                    }
                    continue
                }
                // To-many without an inverse: a join table of its own.
                let n = number(e), m = number(dest)
                let tableName = "Z_\(n)\(r.name.uppercased())"
                let c1 = "Z_\(n)SOURCE", c2 = "Z_\(m)\(r.name.uppercased())"
                let order = r.isOrdered ? "Z_FOK_\(m)\(r.name.uppercased())" : nil
                let index = addJoinTable(name: tableName, c1: c1, c2: c2, orders: [order].compactMap { $0 })
                setToMany(e, slot, .join(table: index, sourceColumn: c1, destinationColumn: c2, orderColumn: order))
                addJoinReference(e, index, c1)
                addJoinReference(dest, index, c2)
            }
        }
    }

    /// The entity (`e` or an ancestor) that declares the relationship `name`.
    static func declaring(_ name: String, from e: EntityDescription) -> EntityDescription? {
        var cur: EntityDescription? = e
        while let c = cur {
            if c.relationships.contains(where: { $0.name == name }) { return c }
            cur = c.superentity
        }
        return nil
    }

    private func mappingFor(_ e: EntityDescription) -> EntityMapping? { mappingsByID[ObjectIdentifier(e)] }

    private func setToMany(_ e: EntityDescription, _ slot: Int, _ mapping: ToManyMapping) {
        for d in e.selfAndDescendants { mappingFor(d)?.toMany[slot] = mapping }
    }

    private func addJoinReference(_ e: EntityDescription, _ table: Int, _ column: String) {
        for d in e.selfAndDescendants {
            guard let m = mappingFor(d) else { continue }
            if !m.joinReferences.contains(where: { $0.table == table && $0.column == column }) {
                m.joinReferences.append((table, column))
            }
        }
    }

    private mutating func addJoinTable(name: String, c1: String, c2: String, orders: [String]) -> Int {
        var columns = [Column(name: c1, type: "INTEGER"), Column(name: c2, type: "INTEGER")]
        columns += orders.map { Column(name: $0, type: "INTEGER") }
        joinTables.append(JoinTable(
            table: Table(name: name, columns: columns, primaryKey: [c1, c2]),
            secondColumnIndexName: "\(name)_\(c2)_INDEX"))
        return joinTables.count - 1
    }

    private mutating func buildConstraintIndexes() {
        for e in model.entities {
            guard let m = mappingFor(e) else { continue }
            func column(_ property: String) -> String? {
                if let slot = e.attributeSlots[property] { return m.attributeColumns[slot] }
                if let slot = e.relationshipSlots[property] { return m.toOne[slot]?.column }
                return nil
            }
            for a in e.attributes where a.isIndexed && !a.isTransient {
                if let c = column(a.name) {
                    indexes.append(Index(name: "\(m.table)_\(c)_INDEX", table: m.table, terms: [SQLiteIdentifier.sql(c)], isUnique: false))
                }
            }
            for constraint in e.uniquenessConstraints where !constraint.isEmpty {
                let cols = constraint.compactMap(column)
                guard cols.count == constraint.count else { continue }
                indexes.append(Index(
                    name: "Z_\(e.name)_UNIQUE_" + constraint.joined(separator: "_"), table: m.table,
                    terms: cols.map { "\(SQLiteIdentifier.sql($0)) COLLATE BINARY ASC" }, isUnique: true))
            }
            for fetchIndex in e.fetchIndexes where !fetchIndex.elements.isEmpty {
                let terms = fetchIndex.elements.compactMap { el in
                    column(el.property).map { "\(SQLiteIdentifier.sql($0)) COLLATE BINARY \(el.ascending ? "ASC" : "DESC")" }
                }
                guard terms.count == fetchIndex.elements.count else { continue }
                indexes.append(Index(name: "Z_\(e.name)_\(fetchIndex.name)", table: m.table, terms: terms, isUnique: false))
            }
        }
        var seen: Set<String> = []
        indexes = indexes.filter { seen.insert($0.name).inserted }
    }

    // MARK: - DDL

    /// Every statement that creates the schema (entity tables, join tables, indexes, bookkeeping).
    var creationStatements: [String] {
        var sql: [String] = []
        for t in entityTables {
            sql.append("CREATE TABLE \(t.name) ( " + t.columns.map { "\($0.name) \($0.type)" }.joined(separator: ", ") + " )")
        }
        for j in joinTables {
            let t = j.table
            let pk = t.primaryKey.map { ", PRIMARY KEY (\($0.joined(separator: ", ")))" } ?? ""
            sql.append("CREATE TABLE \(t.name) ( " + t.columns.map { "\($0.name) \($0.type)" }.joined(separator: ", ") + pk + " )")
            if let pk = t.primaryKey, pk.count == 2 {
                sql.append("CREATE INDEX \(j.secondColumnIndexName) ON \(t.name) (\(pk[1]), \(pk[0]))")
            }
        }
        sql += indexes.map(\.sql)
        sql.append("CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
        sql.append("CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
        return sql
    }

    /// The rows of `Z_PRIMARYKEY` for a new store.
    var primaryKeyRows: [(number: Int, name: String, superNumber: Int)] {
        model.entities.map { e in (number(e), e.name, e.superentity.map(number) ?? 0) }
    }

    // MARK: - Matching a store

    /// What a store holds: table name → column names, and its `Z_PRIMARYKEY` entities.
    struct StoreStructure: Sendable {
        var tables: [String: Set<String>]
        var entities: [SQLiteStoreEntity]
    }

    /// The differences between this layout and a store's tables (empty when the store fits).
    func differences(from store: StoreStructure) -> [String] {
        var diffs: [String] = []
        let storeEntities = Dictionary(store.entities.filter { $0.number < 16000 }.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let storeNames = Self.storeNames(of: model, in: store)
        for e in model.entities {
            guard let s = storeNames[e.name].flatMap({ storeEntities[$0] }) else {
                diffs.append("entity \(e.name) is not in the store")
                continue
            }
            let expectedSuper = e.superentity.map { p in storeNames[p.name].flatMap { storeEntities[$0]?.number } ?? -1 } ?? 0
            if s.superNumber != expectedSuper {
                diffs.append("entity \(e.name) has another parent entity in the store")
            }
        }
        let matched = Set(storeNames.values)
        for name in storeEntities.keys.sorted() where !matched.contains(name) {
            diffs.append("the store has an entity \(name) the model does not have")
        }
        for t in entityTables {
            let owner = model.entities.first { Self.columnName($0.name) == t.fileName }?.name ?? t.fileName
            guard let columns = store.tables[t.fileName] else {
                diffs.append("entity \(owner): table \(t.name) is not in the store")
                continue
            }
            for c in t.columns.map({ Self.fileColumnName($0.name) }) where !columns.contains(c) {
                diffs.append("entity \(owner): column \(t.name).\(c) is not in the store")
            }
            for c in columns.subtracting(t.columnNames).sorted() {
                diffs.append("entity \(owner): the store has a column \(t.name).\(c) the model does not have")
            }
        }
        for j in joinTables where !store.tables.values.contains(j.table.columnNames) {
            diffs.append("join table \(j.table.name) (\(j.table.columns.map(\.name).joined(separator: ", "))) is not in the store")
        }
        return diffs
    }

    /// The `Z_PRIMARYKEY` name of each entity of `model` found in the store: its own name, else
    /// its renaming identifier (Core Data keeps an entity's old name in `Z_PRIMARYKEY` when a
    /// migration renames it: the CoreDataPlus SampleModel_V2 store lists ExpensiveSportCar for the
    /// model's LuxuryCar, whose renaming identifier is ExpensiveSportCar).
    static func storeNames(of model: ManagedObjectModel, in store: StoreStructure) -> [String: String] {
        let present = Set(store.entities.filter { $0.number < 16000 }.map(\.name))
        var names: [String: String] = [:]
        for e in model.entities {
            if present.contains(e.name) {
                names[e.name] = e.name
            } else if let old = e.renamingIdentifier, present.contains(old), model.entity(named: old) == nil {
                names[e.name] = old
            }
        }
        return names
    }

    /// Entity name → `Z_ENT` in the store, matched by ``storeNames(of:in:)``.
    static func storeNumbers(of model: ManagedObjectModel, in store: StoreStructure) -> [String: Int] {
        let numbers = Dictionary(store.entities.map { ($0.name, $0.number) }, uniquingKeysWith: { a, _ in a })
        return storeNames(of: model, in: store).compactMapValues { numbers[$0] }
    }

    /// Renames join tables to the names the store gives the tables with their columns.
    mutating func adoptJoinTableNames(from store: StoreStructure) {
        for i in joinTables.indices {
            let wanted = joinTables[i].table.columnNames
            if store.tables[joinTables[i].table.fileName] == wanted { continue }
            if let name = store.tables.first(where: { $0.value == wanted })?.key {
                joinTables[i].table.name = SQLiteIdentifier.sql(name)
            }
        }
    }
}
