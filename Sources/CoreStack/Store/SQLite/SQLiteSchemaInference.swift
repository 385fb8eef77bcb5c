import Foundation
import GRDB

/// Infers a model from the tables of a Core Data store that carries no model of its own (no
/// `Z_MODELCACHE`: stores written before framework 637, or with the cache removed).
///
/// - Entities and their hierarchy come from `Z_PRIMARYKEY` (`Z_NAME`, `Z_SUPER`; Core Data's
///   internal entities, numbered 16000 and up, are left out).
/// - Each column of an entity table belongs to the deepest entity whose rows (`Z_ENT`) hold all its
///   non-null values (the root when no row has one), judged from the first 1,000 rows of each
///   entity of the table (a table of one entity is not read for it).
/// - An `INTEGER` column is a to-one relationship when Core Data left its evidence: a `Z<n>_<NAME>`
///   companion column (the destination is entity `n`, which has sub-entities), or the
///   `<TABLE>_<COLUMN>_INDEX` index Core Data makes on every to-one's column together with a
///   destination: the entity without sub-entities named like the column, else the only one whose
///   table holds every value as a `Z_PK` of its own (checked on at most 1,000 distinct values, by
///   primary key), else the only such one whose name contains the column's (`ZRECIPE.ZTYPE` →
///   `RecipeType`). Without that evidence the column stays an Integer 64 attribute.
/// - Two to-ones that point at each other's entities and whose values agree (sampled) are a
///   one-to-one pair, inverses of each other (Core Data stores a one-to-one on both sides). Any other
///   to-one gets an inverse to-many on its destination: named after the source entity in the plural
///   (`RECIPES`; `MESSAGES_AS_SENDER` when the source has several to-ones to the destination),
///   ordered when the source table has a `Z_FOK_<NAME>` column, and marked
///   ``RelationshipDescription/isInferredInverse``.
/// - Other columns are attributes, typed by their declared type (`INTEGER` → Integer 64, `FLOAT` →
///   Double, `TIMESTAMP` → Date, `DECIMAL` → Decimal, `VARCHAR` → String, `BLOB` → Binary, or UUID
///   when every value is 16 bytes).
/// - A BLOB column whose sampled values all carry Core Data's external-storage marker byte is a
///   Binary attribute with Allows External Storage (see ``SQLiteExternalBinaryData``).
/// - An `INTEGER` column with a `Z_FOK_<NAME>` order column beside it is a to-one too (the
///   foreign key of an ordered one-to-many: its inverse to-many is ordered), its destination found
///   as for an indexed column.
/// - Core Data's own tables are never entities nor join tables: bookkeeping (`Z_PRIMARYKEY`,
///   `Z_METADATA`, `Z_MODELCACHE`), persistent history and CloudKit mirroring (their entities are
///   numbered 16000 and up), R-tree indexes (`Z_RT_…`, any virtual table) and their shadow tables.
/// - Columns none of this explains become raw attributes (``SQLiteStore/inferredModel(at:)``).
/// - Each join table `Z_<n><NAME>` with columns `Z_<a><X>` and `Z_<b><Y>` gives a many-to-many pair:
///   `X` on entity `b` (destination `a`) and `Y` on entity `a`, inverses of each other (ordered when
///   a `Z_FOK_` column follows it); a `REFLEXIVE` column makes a relationship its own inverse.
///
/// What the tables cannot give back is left at a default and the model's ``ManagedObjectModel/origin``
/// is ``ModelOrigin/inferredFromSchema``: names are the column names without the `Z` (`FIRSTNAME`:
/// the case of property names is lost), an inverse to-many's name is a guess (it has no column),
/// every property is optional, no entity is abstract, delete rules are nullify, and there are no
/// defaults or validation rules.
///
/// ```swift
/// let model = try SQLiteSchemaInference.inferModel(db, path: url.path)
/// model.origin  // .inferredFromSchema
/// ```
enum SQLiteSchemaInference {
    private struct StoreEntity {
        var name: String
        var number: Int
        var superNumber: Int
    }

    private struct Column {
        var name: String
        var type: String
    }

    /// A foreign-key column read as a to-one relationship.
    private struct ToOne {
        var owner: Int
        var name: String
        var table: String
        var column: String
        var destination: Int
        /// A `Z_FOK_<NAME>` column: the inverse to-many is ordered.
        var orderedInverse: Bool
    }

    static func inferModel(_ db: Database, path: String) throws -> ManagedObjectModel {
        let stored = try SQLiteStore.readPrimaryKeyTable(db, path: path).filter { $0.number < 16000 }
        let entities = stored.map { StoreEntity(name: $0.name, number: $0.number, superNumber: $0.superNumber) }
        let byNumber = Dictionary(entities.map { ($0.number, $0) }, uniquingKeysWith: { a, _ in a })
        func root(_ n: Int) -> Int {
            var cur = n
            var seen: Set<Int> = []
            while let e = byNumber[cur], e.superNumber != 0, byNumber[e.superNumber] != nil, seen.insert(cur).inserted {
                cur = e.superNumber
            }
            return cur
        }
        func ancestors(_ n: Int) -> [Int] {
            var out = [n]
            var cur = n
            while let e = byNumber[cur], e.superNumber != 0, byNumber[e.superNumber] != nil, !out.contains(e.superNumber) {
                cur = e.superNumber
                out.append(cur)
            }
            return out
        }
        func hasChildren(_ n: Int) -> Bool { entities.contains { $0.superNumber == n } }
        func tableName(_ n: Int) -> String { "Z" + (byNumber[root(n)]?.name ?? "").uppercased() }

        let tableNames = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
        let indexNames = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index'"))
        func columns(_ table: String) throws -> [Column] {
            try Row.fetchAll(db, sql: "PRAGMA table_info(\(quoted(table)))").compactMap { row in
                guard let name = row["name"] as String? else { return nil }
                return Column(name: name, type: ((row["type"] as String?) ?? "").uppercased())
            }
        }

        var attributes: [Int: [AttributeDescription]] = [:]
        var relationships: [Int: [RelationshipDescription]] = [:]
        var toOnes: [ToOne] = []
        let roots = entities.filter { root($0.number) == $0.number }
        for r in roots {
            let table = tableName(r.number)
            guard tableNames.contains(table) else { continue }
            let cols = try columns(table)
            let names = Set(cols.map(\.name))
            func isProperty(_ name: String) -> Bool {
                !(["Z_PK", "Z_ENT", "Z_OPT"].contains(name) || name.hasPrefix("Z_FOK_") || !name.hasPrefix("Z"))
                    // Z<n>_<REL>: the entity of a to-one's target.
                    && companionNumber(name) == nil && name.count > 1
            }
            let holdersByColumn = try valueHolders(
                db, table: table, columns: cols.map(\.name).filter(isProperty),
                entities: entities.map(\.number).filter { root($0) == r.number })
            for c in cols {
                let name = c.name
                guard isProperty(name) else { continue }
                let property = String(name.dropFirst())
                // The deepest entity whose rows hold every value.
                let holders = holdersByColumn[name] ?? []
                var owner = r.number
                if let first = holders.first {
                    var common = ancestors(first)
                    for h in holders.dropFirst() { common = common.filter(ancestors(h).contains) }
                    if let deepest = common.first, byNumber[deepest] != nil { owner = deepest }
                }
                if c.type.hasPrefix("INTEGER"),
                    let destination = try toOneDestination(
                        db, table: table, column: name,
                        companion: names.first { c in companionNumber(c).map { "Z\($0)_\(property)" == c } ?? false },
                        // An order column (`Z_FOK_<NAME>`: the inverse is an ordered to-many) is
                        // evidence like the index.
                        hasIndex: indexNames.contains("\(table)_\(name)_INDEX") || names.contains("Z_FOK_" + property),
                        entities: entities, byNumber: byNumber,
                        hasChildren: hasChildren, tableName: tableName)
                {
                    toOnes.append(ToOne(
                        owner: owner, name: property, table: table, column: name, destination: destination,
                        orderedInverse: names.contains("Z_FOK_" + property)))
                } else {
                    let type = try attributeType(db, table: table, column: c)
                    let external = try type == .binaryData
                        && SQLiteExternalBinaryData.columnHoldsMarkedValues(db, table: table, column: name)
                    attributes[owner, default: []].append(
                        AttributeDescription(property, type, allowsExternalBinaryDataStorage: external))
                }
            }
        }
        // Many-to-many join tables: `Z_` tables that are not Core Data's own (bookkeeping, R-tree
        // indexes `Z_RT_…`, any virtual table and its shadow tables).
        let virtualTables = Set(try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND upper(sql) LIKE 'CREATE VIRTUAL TABLE%'"))
        func isOwnTable(_ table: String) -> Bool {
            SQLiteSchemaReconciliation.bookkeepingTables.contains(table)
                || SQLiteSchemaReconciliation.ownPrefixes.contains { table.hasPrefix($0) }
                || virtualTables.contains(table)
                || ["_node", "_rowid", "_parent"].contains { table.hasSuffix($0) && virtualTables.contains(String(table.dropLast($0.count))) }
        }
        for table in tableNames.sorted() where table.hasPrefix("Z_") && !isOwnTable(table) {
            let cols = try columns(table).map(\.name)
            let keys = cols.filter { !$0.hasPrefix("Z_FOK_") }
            guard keys.count == 2 else { continue }
            func ordered(_ column: String) -> Bool { cols.contains("Z_FOK_" + column.dropFirst(2)) }
            if keys.contains("REFLEXIVE"), let other = keys.first(where: { $0 != "REFLEXIVE" }),
                let (n, rel) = joinColumn(other), let e = byNumber[n]
            {
                relationships[n, default: []].append(RelationshipDescription(
                    rel, destination: e.name, inverse: rel, toMany: true, isOrdered: ordered(other)))
                continue
            }
            // CoreStack's own layout of a to-many without an inverse: Z_<n>SOURCE, Z_<m><REL>.
            if let source = keys.first(where: { joinColumn($0)?.1 == "SOURCE" }), let other = keys.first(where: { $0 != source }),
                let (n, _) = joinColumn(source), let (m, rel) = joinColumn(other), byNumber[n] != nil, let dest = byNumber[m]
            {
                relationships[n, default: []].append(RelationshipDescription(
                    rel, destination: dest.name, toMany: true, isOrdered: ordered(other)))
                continue
            }
            guard let (a, x) = joinColumn(keys[0]), let (b, y) = joinColumn(keys[1]),
                let ea = byNumber[a], let eb = byNumber[b], x != y || a != b
            else { continue }
            relationships[b, default: []].append(RelationshipDescription(
                x, destination: ea.name, inverse: y, toMany: true, isOrdered: ordered(keys[0])))
            relationships[a, default: []].append(RelationshipDescription(
                y, destination: eb.name, inverse: x, toMany: true, isOrdered: ordered(keys[1])))
        }

        try addToOnes(
            db, toOnes, byNumber: byNumber, root: root, attributes: attributes, relationships: &relationships)

        func descriptions(_ relationships: [Int: [RelationshipDescription]]) -> [EntityDescription] {
            entities.map { e in
                EntityDescription(
                    name: e.name,
                    superentityName: byNumber[e.superNumber]?.name,
                    attributes: attributes[e.number] ?? [],
                    relationships: relationships[e.number] ?? [])
            }
        }
        do {
            return try ManagedObjectModel(entities: descriptions(relationships), origin: .inferredFromSchema)
        } catch {
            // An inferred inverse the model refuses (a name clash in an entity tree): the store
            // still opens, with its to-ones one-way as the columns say.
            var plain = relationships.mapValues { $0.filter { !$0.isInferredInverse } }
            for (n, list) in plain {
                plain[n] = list.map { r in
                    var r = r
                    if !r.isToMany, let inverse = r.inverseName,
                        relationships.values.joined().contains(where: { $0.isInferredInverse && $0.name == inverse && $0.inverseName == r.name })
                    {
                        r.inverseName = nil
                    }
                    return r
                }
            }
            return try ManagedObjectModel(entities: descriptions(plain), origin: .inferredFromSchema)
        }
    }

    /// `n` of a `Z<n>_<NAME>` column.
    private static func companionNumber(_ column: String) -> Int? {
        guard column.hasPrefix("Z"), let underscore = column.firstIndex(of: "_") else { return nil }
        let digits = column[column.index(after: column.startIndex)..<underscore]
        guard !digits.isEmpty, digits.allSatisfy(\.isNumber), column.index(after: underscore) < column.endIndex else { return nil }
        return Int(digits)
    }

    /// `(n, NAME)` of a join-table column `Z_<n><NAME>`.
    private static func joinColumn(_ column: String) -> (Int, String)? {
        guard column.hasPrefix("Z_") else { return nil }
        let rest = column.dropFirst(2)
        let digits = rest.prefix { $0.isNumber }
        let name = rest.dropFirst(digits.count)
        guard let n = Int(digits), !name.isEmpty else { return nil }
        return (n, String(name))
    }

    /// For each of `columns` of `table`, the entities (of `entities`, the table's root and its
    /// sub-entities) among whose first 1,000 rows one holds a value of it (not NULL).
    ///
    /// Bounded by the number of entities, not the table's size: one query per entity reads at most
    /// 1,000 of its rows, found through the `<TABLE>_Z_ENT_INDEX` index Core Data makes on every
    /// table an entity shares with its sub-entities (without it, SQLite reads the table until it
    /// has them). A table of one entity is not read at all (its columns are that entity's). Rows
    /// whose `Z_ENT` names no entity of the table are not looked at.
    ///
    /// ```swift
    /// try valueHolders(db, table: "ZCAR", columns: ["ZMAXSPEED"], entities: [1, 2, 3])   // ["ZMAXSPEED": [2, 3]]
    /// ```
    private static func valueHolders(_ db: Database, table: String, columns: [String], entities: [Int]) throws -> [String: [Int]] {
        guard entities.count > 1, !columns.isEmpty else { return [:] }
        let counts = columns.map { "count(\(quoted($0)))" }.joined(separator: ", ")
        let sql = "SELECT \(counts) FROM (SELECT \(columns.map(quoted).joined(separator: ", ")) "
            + "FROM \(quoted(table)) WHERE Z_ENT = ? LIMIT 1000)"
        var holders: [String: [Int]] = [:]
        for entity in entities {
            guard let row = try Row.fetchOne(db, sql: sql, arguments: [entity]) else { continue }
            for (column, value) in zip(columns, row.databaseValues) where (Int64.fromDatabaseValue(value) ?? 0) > 0 {
                holders[column, default: []].append(entity)
            }
        }
        return holders
    }

    /// The destination entity number of a to-one column, or nil when the column is an attribute.
    ///
    /// The evidence, in order: a `Z<n>_<NAME>` companion column (the destination `n` has
    /// sub-entities); otherwise the column must have Core Data's `<TABLE>_<COLUMN>_INDEX` index, and
    /// the destination is the entity without sub-entities named like the column, else the only one
    /// whose table holds every value of the column (as `Z_PK` with its own `Z_ENT`, checked on at
    /// most 1,000 distinct values by primary key), else, among those that hold every value, the
    /// only one whose name contains the column's (`ZTYPE` → `RecipeType`).
    private static func toOneDestination(
        _ db: Database, table: String, column: String, companion: String?, hasIndex: Bool,
        entities: [StoreEntity], byNumber: [Int: StoreEntity], hasChildren: (Int) -> Bool, tableName: (Int) -> String
    ) throws -> Int? {
        if let companion, let n = companionNumber(companion), byNumber[n] != nil, hasChildren(n) {
            return n
        }
        guard hasIndex else { return nil }
        // Core Data adds a companion column for a destination with sub-entities: only entities
        // without sub-entities fit a column that has none.
        let leaves = entities.filter { !hasChildren($0.number) }
        let property = String(column.dropFirst())
        if let named = leaves.first(where: { $0.name.uppercased() == property }) { return named.number }
        let values = try Int64.fetchAll(
            db, sql: "SELECT DISTINCT \(quoted(column)) FROM \(quoted(table)) WHERE \(quoted(column)) IS NOT NULL LIMIT 1000")
        var fits: [StoreEntity] = []
        if values.isEmpty {
            fits = leaves
        } else {
            let list = values.map(String.init).joined(separator: ",")
            for leaf in leaves {
                let target = tableName(leaf.number)
                guard try db.tableExists(target) else { continue }
                let found = try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM \(quoted(target)) WHERE Z_PK IN (\(list)) AND Z_ENT = ?",
                    arguments: [leaf.number]) ?? 0
                if found == values.count { fits.append(leaf) }
            }
        }
        if fits.count == 1, !values.isEmpty { return fits[0].number }
        let named = fits.filter { $0.name.uppercased().contains(property) }
        return named.count == 1 ? named[0].number : nil
    }

    /// Adds each to-one relationship and its inverse: the to-one of the other side when two to-ones
    /// point at each other's entities and their values agree (a one-to-one, which Core Data stores
    /// on both sides), else a to-many on the destination, marked ``RelationshipDescription/isInferredInverse``.
    private static func addToOnes(
        _ db: Database, _ toOnes: [ToOne], byNumber: [Int: StoreEntity], root: (Int) -> Int,
        attributes: [Int: [AttributeDescription]], relationships: inout [Int: [RelationshipDescription]]
    ) throws {
        // One-to-one pairs.
        var partner: [Int: Int] = [:]
        for i in toOnes.indices where partner[i] == nil {
            var candidates: [Int] = []
            for j in toOnes.indices where j != i && partner[j] == nil
                && toOnes[j].owner == toOnes[i].destination && toOnes[j].destination == toOnes[i].owner
            {
                if try agree(db, toOnes[i], toOnes[j]), try agree(db, toOnes[j], toOnes[i]) { candidates.append(j) }
            }
            if candidates.count == 1 {
                partner[i] = candidates[0]
                partner[candidates[0]] = i
            }
        }
        // Names taken in each entity tree (keyed by root: an inverse must not clash with a property
        // of its entity, an ancestor or a descendant).
        var taken: [Int: Set<String>] = [:]
        for (n, list) in attributes { taken[root(n), default: []].formUnion(list.map(\.name)) }
        for t in toOnes { taken[root(t.owner), default: []].insert(t.name) }
        for (n, list) in relationships { taken[root(n), default: []].formUnion(list.map(\.name)) }
        for (i, t) in toOnes.enumerated() {
            guard let destination = byNumber[t.destination], let owner = byNumber[t.owner] else { continue }
            if let j = partner[i] {
                relationships[t.owner, default: []].append(
                    RelationshipDescription(t.name, destination: destination.name, inverse: toOnes[j].name))
                continue
            }
            let plural = pluralized(owner.name.uppercased())
            let siblings = toOnes.indices.filter { partner[$0] == nil && toOnes[$0].owner == t.owner && toOnes[$0].destination == t.destination }
            let tree = root(t.destination)
            var name = siblings.count > 1 ? "\(plural)_AS_\(t.name)" : plural
            if taken[tree, default: []].contains(name) { name = "\(plural)_AS_\(t.name)" }
            var suffix = 2
            let base = name
            while taken[tree, default: []].contains(name) {
                name = "\(base)_\(suffix)"
                suffix += 1
            }
            taken[tree, default: []].insert(name)
            relationships[t.owner, default: []].append(
                RelationshipDescription(t.name, destination: destination.name, inverse: name))
            var inverse = RelationshipDescription(
                name, destination: owner.name, inverse: t.name, toMany: true, isOrdered: t.orderedInverse)
            inverse.userInfo[RelationshipDescription.inferredInverseKey] = "\(owner.name).\(t.name)"
            relationships[t.destination, default: []].append(inverse)
        }
    }

    /// Whether every sampled value of `a`'s column names a row of `b`'s entity whose column points back.
    private static func agree(_ db: Database, _ a: ToOne, _ b: ToOne) throws -> Bool {
        let sql = """
            SELECT 1 FROM (SELECT Z_PK, \(quoted(a.column)) AS fk FROM \(quoted(a.table)) \
            WHERE \(quoted(a.column)) IS NOT NULL LIMIT 1000) AS a \
            LEFT JOIN \(quoted(b.table)) AS b ON b.Z_PK = a.fk \
            WHERE b.\(quoted(b.column)) IS NOT a.Z_PK LIMIT 1
            """
        return try Int.fetchOne(db, sql: sql) == nil
    }

    /// An upper-cased entity name made plural the English way (`RECIPE` → `RECIPES`, `CATEGORY` →
    /// `CATEGORIES`, `BOX` → `BOXES`).
    static func pluralized(_ name: String) -> String {
        let vowels: Set<Character> = ["A", "E", "I", "O", "U"]
        if name.hasSuffix("Y"), name.count > 1, !vowels.contains(name[name.index(name.endIndex, offsetBy: -2)]) {
            return name.dropLast() + "IES"
        }
        if ["S", "X", "Z", "CH", "SH"].contains(where: { name.hasSuffix($0) }) { return name + "ES" }
        return name + "S"
    }

    /// An attribute's type from the column's declared type (and, for blobs, its values).
    private static func attributeType(_ db: Database, table: String, column: Column) throws -> AttributeType {
        let t = column.type
        if t.hasPrefix("INTEGER") { return .integer64 }
        if t.hasPrefix("FLOAT") || t.hasPrefix("REAL") || t.hasPrefix("DOUBLE") { return .double }
        if t.hasPrefix("TIMESTAMP") { return .date }
        if t.hasPrefix("DECIMAL") { return .decimal }
        if t.hasPrefix("VARCHAR") || t.hasPrefix("TEXT") { return .string }
        if t.hasPrefix("BLOB") {
            let c = quoted(column.name)
            let lengths = try Int.fetchAll(
                db, sql: "SELECT DISTINCT length(\(c)) FROM \(quoted(table)) WHERE \(c) IS NOT NULL LIMIT 2")
            return lengths == [16] ? .uuid : .binaryData
        }
        return .binaryData
    }

    /// An SQL identifier in double quotes (a table or column name read from a file).
    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
