import Foundation
import GRDB

/// Compares a model's layout with a store file's tables for reading: each column of an entity
/// table that the model does not place becomes a raw attribute of the table's root entity
/// (``AttributeDescription/rawColumn``, typed by the column's declared type), entities the store
/// does not hold (a store of one configuration of a larger model) and attributes whose column the
/// store lacks are left out, and each table is
/// sorted into the model's, Core Data's own, or unexplained (``SQLiteStoreSchemaReport``).
///
/// Core Data's own tables: `Z_PRIMARYKEY`, `Z_METADATA`, `Z_MODELCACHE`; the tables of its
/// internal entities (`Z_PRIMARYKEY` numbers 16000 and up, table `A<NAME>`), among them persistent
/// history (`ATRANSACTION`, `ACHANGE`, `ATRANSACTIONSTRING`) and CloudKit mirroring
/// (`ANSCKRECORDMETADATA`, every `ANSCK…`); `Y_UBKVS…` (ubiquitous key-value store); R-tree
/// virtual tables (`CREATE VIRTUAL TABLE … USING rtree`, and every `Z_RT_…` table) with their shadow
/// tables (`<table>_node`, `_rowid`, `_parent`); SQLite's `sqlite_…` tables are not listed at all.
///
/// ```swift
/// let result = try SQLiteSchemaReconciliation.reconcile(model, db, path: path)
/// result.model   // the model plus raw attributes
/// result.report  // what was not understood
/// ```
enum SQLiteSchemaReconciliation {
    struct Result {
        var model: ManagedObjectModel
        var report: SQLiteStoreSchemaReport
    }

    /// Core Data's fixed table names.
    static let bookkeepingTables: Set<String> = [
        "Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE", "ATRANSACTION", "ACHANGE", "ATRANSACTIONSTRING",
    ]

    /// Core Data's table name prefixes (CloudKit mirroring, the ubiquitous key-value store, R-tree indexes).
    static let ownPrefixes = ["ANSCK", "Y_UBKVS", "Z_RT_"]

    static func reconcile(_ model: ManagedObjectModel, _ db: Database, path: String) throws -> Result {
        let structure = try SQLiteStore.inspect(db, path: path).structure
        var schema = SQLiteSchema(model: model, storeNumbers: SQLiteSchema.storeNumbers(of: model, in: structure))
        schema.adoptJoinTableNames(from: structure)

        // R-tree virtual tables and their shadow tables.
        var rtree: Set<String> = []
        for row in try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'table'") {
            guard let name = row["name"] as String?, let sql = (row["sql"] as String?)?.uppercased() else { continue }
            if sql.contains("VIRTUAL TABLE"), sql.contains("RTREE") { rtree.insert(name) }
        }
        func isShadow(_ name: String) -> Bool {
            ["_node", "_rowid", "_parent"].contains { suffix in
                name.hasSuffix(suffix) && rtree.contains(String(name.dropLast(suffix.count)))
            }
        }
        let internalEntityTables = Set(structure.entities.filter { $0.number >= 16000 }.map { "A" + $0.name.uppercased() })
        func isCoreDataTable(_ name: String) -> Bool {
            bookkeepingTables.contains(name) || internalEntityTables.contains(name) || rtree.contains(name) || isShadow(name)
                || ownPrefixes.contains { name.hasPrefix($0) }
        }

        // Entities of the model the store does not hold (not in Z_PRIMARYKEY, or their tree's table
        // is missing: a store of one configuration of a larger model): left out of the reading
        // model, unless that would leave none.
        let storeNames = SQLiteSchema.storeNames(of: model, in: structure)
        var absent: Set<String> = []
        for e in model.entities where !absent.contains(e.name) {
            let table = (try? schema.mapping(for: e.rootEntity))?.fileTable
            if storeNames[e.name] == nil || table.map({ structure.tables[$0] == nil }) ?? true {
                absent.formUnion(e.selfAndDescendants.map(\.name))
            }
        }
        if absent.count == model.entities.count { absent = [] }

        // Columns of the model's entity tables that the layout does not have.
        var rootsByTable: [String: EntityDescription] = [:]
        for e in model.entities where e.superentity == nil && !absent.contains(e.name) {
            if let m = try? schema.mapping(for: e) { rootsByTable[m.table] = e }
        }
        var raw: [String: [AttributeDescription]] = [:]
        var rawColumns: [String] = []
        for table in schema.entityTables {
            guard let root = rootsByTable[table.name], structure.tables[table.fileName] != nil else { continue }
            // Columns already read raw by this model.
            for e in root.selfAndDescendants {
                for a in e.attributes { if let c = a.rawColumn { rawColumns.append("\(table.fileName).\(c)") } }
            }
            let known = table.columnNames
            var taken = Set(root.selfAndDescendants.flatMap(\.propertyNames))
            for column in try SQLiteIdentifier.columns(ofTable: table.fileName, db) where !known.contains(column.name) {
                var name = column.name
                while !taken.insert(name).inserted { name += "_raw" }
                var attribute = AttributeDescription(name, rawType(column.type))
                attribute.rawColumn = column.name
                raw[root.name, default: []].append(attribute)
                rawColumns.append("\(table.fileName).\(column.name)")
            }
        }

        // Attributes of the model whose column the store lacks: left out of the reading model.
        var missing: [String: Set<String>] = [:]
        var missingColumns: [String] = []
        for e in model.entities where !absent.contains(e.name) {
            guard let m = try? schema.mapping(for: e), let columns = structure.tables[m.fileTable] else { continue }
            for a in e.attributes where !a.isTransient {
                guard let slot = e.attributeSlots[a.name], slot < m.attributeColumns.count,
                    let column = m.attributeColumns[slot].map(SQLiteSchema.fileColumnName), !columns.contains(column)
                else { continue }
                missing[e.name, default: []].insert(a.name)
                missingColumns.append("\(m.fileTable).\(column)")
            }
        }

        // Tables (the join tables of relationships to entities left out included: not read, but the model's).
        let modelTables = Set(schema.entityTables.map(\.fileName) + schema.joinTables.map(\.table.fileName))
        var own: [String] = []
        var unexplained: [String] = []
        for name in structure.tables.keys.sorted() where !modelTables.contains(name) {
            if isCoreDataTable(name) { own.append(name) } else { unexplained.append(name) }
        }
        let report = SQLiteStoreSchemaReport(
            rawColumns: rawColumns, unexplainedTables: unexplained, coreDataTables: own,
            entitiesNotInStore: model.entities.map(\.name).filter(absent.contains), missingColumns: missingColumns)
        let changed = !raw.isEmpty || !absent.isEmpty || !missing.isEmpty
        return Result(model: changed ? try rebuild(model, adding: raw, leavingOut: absent, without: missing) : model, report: report)
    }


    /// A raw attribute's type from the column's declared type (`INTEGER` → Integer 64, `FLOAT`,
    /// `REAL`, `DOUBLE` → Double, `TIMESTAMP` → Date, `DECIMAL` → Decimal, `VARCHAR`, `TEXT` →
    /// String, anything else → Binary Data).
    static func rawType(_ declared: String) -> AttributeType {
        let t = declared.uppercased()
        if t.hasPrefix("INTEGER") || t == "INT" { return .integer64 }
        if t.hasPrefix("FLOAT") || t.hasPrefix("REAL") || t.hasPrefix("DOUBLE") { return .double }
        if t.hasPrefix("TIMESTAMP") { return .date }
        if t.hasPrefix("DECIMAL") { return .decimal }
        if t.hasPrefix("VARCHAR") || t.hasPrefix("TEXT") { return .string }
        return .binaryData
    }

    /// `model` with `raw` attributes added to the entities they name (by entity name), and the
    /// entities named in `absent` left out with every relationship to them (an inverse that was
    /// one of those loses its inverse), and the constraints, fetch indexes, configurations and
    /// fetch request templates that named them.
    static func rebuild(
        _ model: ManagedObjectModel, adding raw: [String: [AttributeDescription]], leavingOut absent: Set<String>,
        without missing: [String: Set<String>] = [:]
    ) throws -> ManagedObjectModel {
        // Attribute names left out, per entity, inherited ones included.
        func leftOut(_ e: EntityDescription) -> Set<String> {
            var names: Set<String> = []
            var cur: EntityDescription? = e
            while let c = cur {
                names.formUnion(missing[c.name] ?? [])
                cur = c.superentity
            }
            return names
        }
        var dropped: Set<String> = []  // "Entity.relationship"
        for e in model.entities where !absent.contains(e.name) {
            for r in e.relationships where absent.contains(r.destinationEntityName) { dropped.insert("\(e.name).\(r.name)") }
        }
        let entities = model.entities.filter { !absent.contains($0.name) }.map { e in
            let relationships = e.relationships.filter { !absent.contains($0.destinationEntityName) }.map { r in
                var r = r
                if let inverse = r.inverseName, let destination = e.destinationEntity(ofRelationship: r.name),
                    destination.selfAndDescendants.contains(where: { dropped.contains("\($0.name).\(inverse)") })
                {
                    r.inverseName = nil
                }
                return r
            }
            let gone = leftOut(e)
            let names = Set(e.allAttributes.map(\.name).filter { !gone.contains($0) }
                + e.allRelationships.filter { !absent.contains($0.destinationEntityName) }.map(\.name))
            return EntityDescription(
                name: e.name, superentityName: e.superentityName, isAbstract: e.isAbstract,
                attributes: e.attributes.filter { !gone.contains($0.name) } + (raw[e.name] ?? []), relationships: relationships,
                uniquenessConstraints: e.uniquenessConstraints.filter { $0.allSatisfy(names.contains) },
                fetchIndexes: e.fetchIndexes.filter { $0.elements.allSatisfy { $0.expression != nil || names.contains($0.property) } },
                managedObjectClass: e.managedObjectClass, representedClassName: e.representedClassName,
                renamingIdentifier: e.renamingIdentifier, versionHashModifier: e.versionHashModifier, userInfo: e.userInfo,
                fetchedProperties: e.fetchedProperties, compositeAttributes: e.compositeAttributes,
                unimplementedElements: e.unimplementedElements)
        }
        return try ManagedObjectModel(
            entities: entities, versionName: model.versionName, versionIdentifiers: model.versionIdentifiers,
            fetchRequestTemplates: model.fetchRequestTemplates.values.filter { !absent.contains($0.entityName) }.sorted { $0.name < $1.name },
            configurations: model.configurations.mapValues { $0.filter { !absent.contains($0) } }, origin: model.origin)
    }
}
