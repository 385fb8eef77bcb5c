import Foundation
import GRDB

/// Lightweight migration of an SQLite store from one model version to another, with the mapping
/// inferred as Core Data infers it (`NSInferMappingModelAutomaticallyOption`): entities and
/// properties matched by name or renaming identifier.
///
/// Inferred: entities added or removed, entities renamed (renaming identifier), attributes added
/// (optional, or with a default) or removed or renamed, numeric widening (Integer 16 → 32 → 64,
/// integers → Double/Decimal, Float → Double), Binary ↔ Transformable, relationships added or
/// removed or renamed, sub-entities that stay in their tree. Anything else throws
/// ``MigrationError`` naming the entity, the property and why, before the file is touched.
///
/// Safe by construction: the new store is written into a new file beside the store, checked with
/// `PRAGMA integrity_check`, and renamed over the store (an atomic rename, then the folder is
/// synced) only when complete; the original is untouched until then (its `-wal` is first folded
/// into it, without changing its data). A process killed at any moment leaves at the store's path
/// either the original store or the migrated one (tested with SIGKILL at seeded moments); the
/// temporary files it may leave beside the store are removed by the next migration.
///
/// ```swift
/// let bundle = try XcodeModelReader.readBundle(at: modelURL)
/// let store = try SQLiteStore.open(url: url, bundle: bundle, readOnly: true)  // the store's version
/// let source = store.model
/// // … close the store, then:
/// let plan = try SQLiteMigration.migrateStore(at: url, from: source, to: bundle.currentVersion)
/// print(plan.lines)
/// ```
///
/// Changes inference cannot make go in a custom ``MigrationStage`` of a ``StagedMigrationManager``;
/// opening a store can migrate it (``PersistentStoreOptions/shouldMigrateStoreAutomatically``).
/// Not covered: moving rows between entity tables, and the order keys of ordered one-to-many
/// relationships (`Z_FOK_` columns start empty). Migrated stores keep their UUID and carry
/// CoreStack's metadata (version hashes of the destination model) and the destination model in
/// `Z_MODELCACHE`. <doc:Migration> has the details.
public enum SQLiteMigration {
    /// How each destination entity and property maps to the source model.
    struct Mapping {
        var plan: MigrationPlan
        /// Destination entity name → its source entity.
        var entities: [String: EntityDescription]
        /// Destination entity name → destination attribute slot → source attribute slot.
        var attributes: [String: [Int: Int]]
        /// Destination entity name → destination relationship slot → source relationship slot.
        var relationships: [String: [Int: Int]]
        /// Properties a custom stage's code must fill: changes not inferred (entity, property).
        var unfilled: [(entity: String, property: String)] = []
    }

    /// The changes a migration from `source` to `destination` makes, or the first change it cannot infer.
    ///
    /// ```swift
    /// let plan = try SQLiteMigration.plan(from: v3, to: v4)
    /// plan.lines  // ["Post.hide: added (default false)"]
    /// ```
    public static func plan(from source: ManagedObjectModel, to destination: ManagedObjectModel) throws -> MigrationPlan {
        try mapping(from: source, to: destination).plan
    }

    /// Migrates the store at `url`, written with `source`, to `destination`, and returns what changed.
    /// The store must not be open elsewhere: while another process has it open, the migration is
    /// refused with ``CoreStackError/storeInUse(path:action:)`` (checked first, and again under
    /// SQLite's exclusive lock for the swap, ``SQLiteStoreFileLock``). Objects keep their primary keys and the store keeps
    /// its UUID, so object IDs survive. When `url` is a symbolic link, the file it points to is
    /// migrated and replaced; the link stays a link.
    ///
    /// ```swift
    /// let plan = try SQLiteMigration.migrateStore(at: url, from: v3, to: v4)
    /// ```
    /// - Throws: ``MigrationError`` (nothing changed), ``CoreStackError/modelMismatch(path:differences:)``
    ///   when the store was not written with `source`, ``CoreStackError/sqlite(path:message:)``.
    @discardableResult
    public static func migrateStore(at url: URL, from source: ManagedObjectModel, to destination: ManagedObjectModel) throws -> MigrationPlan {
        try migrate(at: url, from: source, to: destination, stage: nil)
    }

    /// The prefix of the temporary files a migration of `url` writes beside it.
    static func temporaryPrefix(for url: URL) -> String { ".\(url.lastPathComponent).migrating-" }

    /// One migration step, inferred, or (with `stage`, a custom stage) with the stage's code: its
    /// `willMigrate` runs on a copy of the store (source model), its `didMigrate` on the new file
    /// (destination model) before the swap, so the store is untouched until the new file replaces it.
    static func migrate(
        at url: URL, from source: ManagedObjectModel, to destination: ManagedObjectModel, stage: MigrationStage?
    ) throws -> MigrationPlan {
        // Through a symbolic link: the target is migrated and replaced, the link stays a link.
        let url = SQLiteStore.resolvedFileURL(url)
        let custom = stage?.kind == .custom ? stage : nil
        let map = try mapping(from: source, to: destination, lenient: custom != nil)
        let path = url.path
        // One migration of a store at a time (any process): a second waits, then finds the store
        // as the first left it. Released when this one is done (its connections closed).
        let migrationLock = try SQLiteMigrationLock(storeAt: url)
        defer { migrationLock.release() }
        // The store is replaced at the end: refused at once while another process has it open.
        try SQLiteStoreFileLock.withExclusiveLock(on: url, toDo: "migrate the store") {}
        let inspection = try SQLiteStore.inspect(url: url)
        let diffs = SQLiteStore.differences(model: source, inspection: inspection)
        // Another migration (waited for above) already made this step: nothing left to do.
        if !diffs.isEmpty, SQLiteStore.differences(model: destination, inspection: inspection).isEmpty {
            return map.plan
        }
        guard diffs.isEmpty else { throw CoreStackError.modelMismatch(path: path, differences: diffs) }

        // Fold a -wal into the store (its data unchanged) so the file alone holds every row and
        // the emptied -wal can be removed before the swap (a stale -wal must never meet the new file).
        let fm = FileManager.default
        if fm.fileExists(atPath: path + "-wal") {
            try SQLiteStore.wrap(path) {
                let queue = try DatabaseQueue(path: path)
                try queue.writeWithoutTransaction { db in
                    let result = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                    guard (result?[0] as Int?) == 0 else {
                        throw MigrationError(entity: path, reason: "the store is in use: its -wal cannot be folded into it")
                    }
                }
                try queue.close()
            }
        }

        let folder = url.deletingLastPathComponent()
        removeLeftovers(of: url)
        let temporary = folder.appendingPathComponent(temporaryPrefix(for: url) + UUID().uuidString)
        let sourceCopy = folder.appendingPathComponent(temporaryPrefix(for: url) + UUID().uuidString + "-source")
        func removeTemporaries() {
            for file in [temporary, sourceCopy] {
                for suffix in ["", "-wal", "-shm", "-journal"] { try? fm.removeItem(atPath: file.path + suffix) }
            }
        }
        do {
            // A custom stage's willMigrate changes a copy of the store, which the rows then come from.
            var copyFrom = url
            var copyInspection = inspection
            if let willMigrate = custom?.willMigrate {
                try fm.copyItem(at: url, to: sourceCopy)
                try runStageCode(willMigrate, at: sourceCopy, model: source)
                copyFrom = sourceCopy
                copyInspection = try SQLiteStore.inspect(url: sourceCopy)
            }
            var sourceSchema = SQLiteSchema(model: source, storeNumbers: SQLiteSchema.storeNumbers(of: source, in: copyInspection.structure))
            sourceSchema.adoptJoinTableNames(from: copyInspection.structure)
            let destinationSchema = SQLiteSchema(model: destination)

            do { _ = try SQLiteStore(url: temporary, model: destination) }  // creates the schema; closed at once
            try SQLiteStore.wrap(temporary.path) {
                let queue = try DatabaseQueue(path: temporary.path)
                try queue.writeWithoutTransaction { db in
                    try db.execute(sql: "ATTACH DATABASE ? AS src", arguments: SQLiteRawBinding.arguments([copyFrom.path.databaseValue], in: db))
                    try db.inTransaction {
                        try copyRows(db, map: map, source: sourceSchema, destination: destinationSchema, storeEntities: copyInspection.structure.entities)
                        // The store keeps its identity: object IDs (URIs) name the same objects after the migration.
                        try db.execute(sql: "UPDATE main.Z_METADATA SET Z_UUID = ?", arguments: SQLiteRawBinding.arguments([inspection.metadata.storeUUID.databaseValue], in: db))
                        return .commit
                    }
                    try db.execute(sql: "DETACH DATABASE src")
                }
                try queue.close()
            }
            if let didMigrate = custom?.didMigrate {
                try runStageCode(didMigrate, at: temporary, model: destination)
            }
            try SQLiteStore.wrap(temporary.path) {
                let queue = try DatabaseQueue(path: temporary.path)
                try queue.writeWithoutTransaction { db in
                    try checkFilled(db, map: map, destination: destinationSchema)
                    let check = try String.fetchAll(db, sql: "PRAGMA integrity_check")
                    guard check == ["ok"] else {
                        throw MigrationError(entity: path, reason: "the migrated file fails its integrity check: \(check.prefix(3).joined(separator: "; "))")
                    }
                    // The file stays in WAL mode (as stores are opened): switching it to another
                    // journal mode here would have the first open switch it back in place, through
                    // a rollback journal a crash can leave beside the store.
                    let result = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                    guard (result?[0] as Int?) == 0 else {
                        throw MigrationError(entity: path, reason: "the migrated file cannot be checkpointed")
                    }
                }
                try queue.close()
            }
            // Everything is in the new file itself: the rename moves only it.
            if let size = (try? fm.attributesOfItem(atPath: temporary.path + "-wal"))?[.size] as? NSNumber, size.intValue > 0 {
                throw MigrationError(entity: path, reason: "the migrated file's -wal was not folded into it")
            }
            // The swap under SQLite's exclusive lock on the store: no process has it open while
            // its side files go and the new file takes its place.
            try SQLiteStoreFileLock.withExclusiveLock(on: url, toDo: "replace the store with its migrated copy") {
                for suffix in ["-wal", "-journal"] {
                    if let size = (try? fm.attributesOfItem(atPath: path + suffix))?[.size] as? NSNumber, size.intValue > 0 {
                        throw MigrationError(entity: path, reason: "the store was written to during the migration")
                    }
                }
                // No side file of the old store may meet the new one.
                for suffix in ["-wal", "-shm", "-journal"] { try? fm.removeItem(atPath: path + suffix) }
                guard rename(temporary.path, path) == 0 else {
                    throw MigrationError(entity: path, reason: "cannot move the migrated file into place (errno \(errno))")
                }
            }
            syncFolder(folder)
        } catch {
            removeTemporaries()
            throw error
        }
        removeTemporaries()
        return map.plan
    }

    /// Removes what an interrupted migration of `url` left beside it (its temporary files). They are
    /// never the store: the store is replaced only by a complete, checked file, in one rename.
    static func removeLeftovers(of url: URL) {
        let fm = FileManager.default
        let folder = url.deletingLastPathComponent()
        let prefix = temporaryPrefix(for: url)
        for name in (try? fm.contentsOfDirectory(atPath: folder.path)) ?? [] where name.hasPrefix(prefix) {
            try? fm.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    /// Makes the rename durable: flushes the folder's entry to disk (best effort).
    private static func syncFolder(_ folder: URL) {
        let fd = open(folder.path, O_RDONLY)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        _ = close(fd)
    }

    /// Runs a stage's code on a private-queue context of a store at `url` opened with `model`, and
    /// saves what it left unsaved. The store is closed again before this returns.
    private static func runStageCode(
        _ code: @Sendable (ManagedObjectContext) throws -> Void, at url: URL, model: ManagedObjectModel
    ) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(try SQLiteStore(url: url, model: model))
        defer { coordinator.removePersistentStore() }
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: "MigrationStage")
        try context.performAndWait {
            try code(context)
            if context.hasChanges { try context.save() }
            context.reset()
        }
    }

    /// Throws for a required property a custom stage's mapping left empty (a change inference cannot
    /// make) and its `didMigrate` did not fill.
    private static func checkFilled(_ db: Database, map: Mapping, destination: SQLiteSchema) throws {
        for (entityName, property) in map.unfilled {
            guard let entity = destination.model.entity(named: entityName), let m = try? destination.mapping(for: entity) else { continue }
            let numbers = try entity.selfAndDescendants.map { try destination.mapping(for: $0).number }
            var column: String?
            if let slot = entity.attributeSlots[property], entity.allAttributes[slot].isOptional == false {
                column = m.attributeColumns[slot]
            } else if let slot = entity.relationshipSlots[property], !entity.allRelationships[slot].isOptional {
                column = m.toOne[slot]?.column
            }
            guard let column else { continue }
            let empty = try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM \(m.table) WHERE Z_ENT IN (\(numbers.map(String.init).joined(separator: ", "))) AND \(column) IS NULL") ?? 0
            if empty > 0 {
                throw MigrationError(
                    entity: entityName, property: property,
                    reason: "required, and still empty in \(empty) row\(empty == 1 ? "" : "s") after the custom stage's didMigrate")
            }
        }
    }

    /// Migrates the store at `url` to `bundle`'s current version, progressively: from the version
    /// the store was written with through every later version (V1 → V2 → V3), or, when no version
    /// of the bundle fits the store, from the model the store carries (`Z_MODELCACHE`) in one step.
    /// Returns one plan per step (empty when the store is already at the current version).
    ///
    /// ```swift
    /// let steps = try SQLiteMigration.migrateStore(at: url, to: try XcodeModelReader.readBundle(at: modelURL))
    /// steps.map(\.lines)
    /// ```
    /// - Throws: ``MigrationError`` for a step that cannot be inferred (the steps before it are
    ///   done, each one complete), ``CoreStackError/modelMismatch(path:differences:)`` when neither a
    ///   version nor the stored model fits the store.
    @discardableResult
    public static func migrateStore(at url: URL, to bundle: ManagedObjectModelBundle) throws -> [MigrationPlan] {
        let inspection = try SQLiteStore.inspect(url: url)
        let versions = bundle.versions
        guard let target = versions.firstIndex(where: { $0 === bundle.currentVersion }) else {
            throw MigrationError(entity: bundle.name, reason: "the current version is not one of the bundle's versions")
        }
        if let start = versions.firstIndex(where: { SQLiteStore.differences(model: $0, inspection: inspection).isEmpty }) {
            guard start < target else { return [] }
            var plans: [MigrationPlan] = []
            for i in start..<target {
                plans.append(try migrateStore(at: url, from: versions[i], to: versions[i + 1]))
            }
            return plans
        }
        guard let stored = try SQLiteStore.storedModel(at: url) else {
            throw CoreStackError.modelMismatch(
                path: url.path, differences: ["no version of \(bundle.name) matches the store, and it carries no model of its own"])
        }
        return [try migrateStore(at: url, from: stored, to: bundle.currentVersion)]
    }

    // MARK: - Mapping

    /// The mapping from `source` to `destination`. `lenient` (a custom stage, whose code fills
    /// what is not inferred): a property whose change cannot be inferred starts empty (its default)
    /// and is listed in ``Mapping/unfilled`` instead of throwing.
    static func mapping(from source: ManagedObjectModel, to destination: ManagedObjectModel, lenient: Bool = false) throws -> Mapping {
        var unfilled: [(entity: String, property: String)] = []
        /// Throws `error`, or (lenient) records the property as left to the stage's code.
        func notInferred(_ error: MigrationError) throws {
            guard lenient, let property = error.property else { throw error }
            unfilled.append((error.entity, property))
        }
        var steps: [MigrationPlan.Step] = []
        var entities: [String: EntityDescription] = [:]
        var attributes: [String: [Int: Int]] = [:]
        var relationships: [String: [Int: Int]] = [:]
        func sourceEntity(for d: EntityDescription) -> EntityDescription? {
            d.renamingIdentifier.flatMap { source.entity(named: $0) } ?? source.entity(named: d.name)
        }
        for d in destination.entities {
            guard let s = sourceEntity(for: d) else {
                steps.append(.init(entity: d.name, kind: .added))
                continue
            }
            entities[d.name] = s
            steps.append(.init(entity: d.name, kind: s.name == d.name ? .kept : .renamed, detail: s.name == d.name ? nil : "from \(s.name)"))
        }
        // Rows keep their primary keys: the source entities of one destination table must share a table.
        for root in destination.entities where root.superentity == nil {
            let sourceRoots = Set(root.selfAndDescendants.compactMap { entities[$0.name]?.rootEntity.name })
            if sourceRoots.count > 1 {
                throw MigrationError(
                    entity: root.name,
                    reason: "its tree takes rows of \(sourceRoots.sorted().joined(separator: " and ")), which live in different tables")
            }
        }
        for d in destination.entities {
            guard let s = entities[d.name] else { continue }
            var attributeMap: [Int: Int] = [:]
            var usedSource: Set<String> = []
            for (slot, a) in d.allAttributes.enumerated() where !a.isTransient {
                let declared = d.attributes.contains { $0.name == a.name }
                let sourceSlot = a.renamingIdentifier.flatMap { s.attributeSlots[$0] } ?? s.attributeSlots[a.name]
                guard let sourceSlot, !s.allAttributes[sourceSlot].isTransient else {
                    if !a.isOptional && a.defaultValue.isNull {
                        try notInferred(MigrationError(entity: d.name, property: a.name, reason: "a required attribute is added without a default value"))
                    }
                    if declared { steps.append(.init(entity: d.name, property: a.name, kind: .added, detail: a.defaultValue.isNull ? nil : "default \(a.defaultValue)")) }
                    continue
                }
                let old = s.allAttributes[sourceSlot]
                usedSource.insert(old.name)
                guard convertible(old.type, a.type) else {
                    try notInferred(MigrationError(entity: d.name, property: a.name, reason: "\(old.type) cannot become \(a.type) without code"))
                    if declared { steps.append(.init(entity: d.name, property: a.name, kind: .retyped, detail: "from \(old.type) to \(a.type), by the stage's code")) }
                    continue
                }
                if old.isOptional && !a.isOptional && a.defaultValue.isNull {
                    try notInferred(MigrationError(entity: d.name, property: a.name, reason: "an optional attribute becomes required without a default value"))
                }
                attributeMap[slot] = sourceSlot
                guard declared else { continue }
                if old.name != a.name {
                    steps.append(.init(entity: d.name, property: a.name, kind: .renamed, detail: "from \(old.name)"))
                } else if old.type != a.type {
                    steps.append(.init(entity: d.name, property: a.name, kind: .retyped, detail: "from \(old.type) to \(a.type)"))
                }
            }
            for a in s.attributes where !a.isTransient && !usedSource.contains(a.name) {
                steps.append(.init(entity: d.name, property: a.name, kind: .removed))
            }
            attributes[d.name] = attributeMap

            var relationshipMap: [Int: Int] = [:]
            var usedRelationships: Set<String> = []
            for (slot, r) in d.allRelationships.enumerated() where !r.isTransient {
                let declared = d.relationships.contains { $0.name == r.name }
                guard let sourceSlot = r.renamingIdentifier.flatMap({ s.relationshipSlots[$0] }) ?? s.relationshipSlots[r.name] else {
                    if !r.isOptional && (r.isToMany ? r.minCount > 0 : true) {
                        try notInferred(MigrationError(entity: d.name, property: r.name, reason: "a required relationship is added"))
                    }
                    if declared { steps.append(.init(entity: d.name, property: r.name, kind: .added)) }
                    continue
                }
                let old = s.allRelationships[sourceSlot]
                usedRelationships.insert(old.name)
                // To-one → to-many is inferred (each object keeps its one destination, see copyRows);
                // to-many → to-one would have to choose among destinations: code's work.
                guard old.isToMany == r.isToMany || r.isToMany else {
                    try notInferred(MigrationError(entity: d.name, property: r.name, reason: "a to-\(old.isToMany ? "many" : "one") relationship becomes to-\(r.isToMany ? "many" : "one"): not inferred by this migration"))
                    if declared { steps.append(.init(entity: d.name, property: r.name, kind: .retyped, detail: "by the stage's code")) }
                    continue
                }
                let newDestination = destination.entity(named: r.destinationEntityName).flatMap { entities[$0.name] }
                guard newDestination?.name == old.destinationEntityName else {
                    try notInferred(MigrationError(entity: d.name, property: r.name, reason: "its destination \(r.destinationEntityName) is not the migrated \(old.destinationEntityName)"))
                    if declared { steps.append(.init(entity: d.name, property: r.name, kind: .retyped, detail: "by the stage's code")) }
                    continue
                }
                relationshipMap[slot] = sourceSlot
                if declared && !old.isToMany && r.isToMany {
                    steps.append(.init(entity: d.name, property: r.name, kind: .retyped,
                                       detail: old.name == r.name ? "from to-one to to-many" : "from to-one \(old.name) to to-many"))
                } else if declared && old.name != r.name {
                    steps.append(.init(entity: d.name, property: r.name, kind: .renamed, detail: "from \(old.name)"))
                }
            }
            for r in s.relationships where !r.isTransient && !usedRelationships.contains(r.name) {
                steps.append(.init(entity: d.name, property: r.name, kind: .removed))
            }
            relationships[d.name] = relationshipMap
        }
        let mappedSources = Set(entities.values.map(\.name))
        for s in source.entities where !mappedSources.contains(s.name) {
            steps.append(.init(entity: s.name, kind: .removed))
        }
        return Mapping(
            plan: MigrationPlan(steps: steps), entities: entities, attributes: attributes, relationships: relationships, unfilled: unfilled)
    }

    /// Whether values of `from` keep their meaning as `to` without code.
    static func convertible(_ from: AttributeType, _ to: AttributeType) -> Bool {
        if from == to { return true }
        switch (from, to) {
        case (.integer16, .integer32), (.integer16, .integer64), (.integer32, .integer64): return true
        case (.integer16, .double), (.integer32, .double), (.integer64, .double): return true
        case (.integer16, .decimal), (.integer32, .decimal), (.integer64, .decimal): return true
        case (.float, .double): return true
        case (.binaryData, .transformable), (.transformable, .binaryData): return true
        default: return false
        }
    }

    // MARK: - Copying

    /// The SQL copying a column to an attribute that gains or loses *Allows External Storage*
    /// (``SQLiteExternalBinaryData``), so the value reads back the same: a blob gains the inline
    /// marker `0x01`, or loses it; a `0x02` reference to a support file is copied as it is (SQL
    /// cannot read the file; the unflagged attribute then holds the reference's bytes). The column
    /// itself when both sides agree.
    static func copiedBinary(_ column: String, fromExternal: Bool, toExternal: Bool) -> String {
        switch (fromExternal, toExternal) {
        case (false, true):
            return "CASE WHEN typeof(\(column)) = 'blob' THEN CAST(X'01' || \(column) AS BLOB) ELSE \(column) END"
        case (true, false):
            return "CASE WHEN typeof(\(column)) = 'blob' AND substr(\(column), 1, 1) = X'01' THEN substr(\(column), 2) ELSE \(column) END"
        default:
            return column
        }
    }

    private static func copyRows(
        _ db: Database, map: Mapping, source: SQLiteSchema, destination: SQLiteSchema, storeEntities: [SQLiteStoreEntity]
    ) throws {
        // Source Z_ENT → destination Z_ENT, for entity columns of to-ones.
        var numbers: [Int: Int] = [:]
        for d in destination.model.entities {
            guard let s = map.entities[d.name] else { continue }
            numbers[try source.mapping(for: s).number] = try destination.mapping(for: d).number
        }
        var doneJoins: Set<Int> = []
        for d in destination.model.entities {
            guard let s = map.entities[d.name] else { continue }
            let dm = try destination.mapping(for: d), sm = try source.mapping(for: s)
            var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
            var expressions = ["Z_PK", String(dm.number), "Z_OPT"]
            var arguments: [DatabaseValue] = []
            let attributeMap = map.attributes[d.name] ?? [:]
            for (slot, column) in dm.attributeColumns.enumerated() {
                guard let column else { continue }
                columns.append(column)
                if let sourceSlot = attributeMap[slot], let sourceColumn = sm.attributeColumns[sourceSlot] {
                    expressions.append(
                        Self.copiedBinary(
                            sourceColumn, fromExternal: s.externalBinarySlots.contains(sourceSlot), toExternal: d.externalBinarySlots.contains(slot)))
                } else {
                    // A new attribute: its default value, in Core Data's external-storage format
                    // when the attribute allows external storage (as a save writes it).
                    let a = d.allAttributes[slot]
                    let stored = d.externalBinarySlots.contains(slot) ? SQLiteExternalBinaryData.encode(a.defaultValue) : a.defaultValue
                    // A string default holding NUL is bound whole (GRDB would stop at the NUL).
                    let (parameter, value) = SQLiteWholeText.bindable(SQLiteValueCodec.databaseValue(stored, type: a.type))
                    expressions.append(parameter)
                    arguments.append(value)
                }
            }
            let relationshipMap = map.relationships[d.name] ?? [:]
            for (slot, toOne) in dm.toOne.enumerated() {
                guard let toOne else { continue }
                let sourceToOne = relationshipMap[slot].flatMap { sm.toOne[$0] }
                columns.append(toOne.column)
                expressions.append(sourceToOne?.column ?? "NULL")
                if let entityColumn = toOne.entityColumn {
                    columns.append(entityColumn)
                    if let sourceToOne, let sourceEntityColumn = sourceToOne.entityColumn {
                        let cases = numbers.sorted { $0.key < $1.key }.map { "WHEN \($0.key) THEN \($0.value)" }.joined(separator: " ")
                        expressions.append("CASE \(sourceEntityColumn) \(cases) ELSE NULL END")
                    } else if let sourceToOne, let target = d.destinationEntity(ofRelationship: d.allRelationships[slot].name) {
                        // The source's destination had no sub-entities: every target row is of that entity.
                        let number = try destination.mapping(for: target).number
                        expressions.append("CASE WHEN \(sourceToOne.column) IS NULL THEN NULL ELSE \(number) END")
                    } else {
                        expressions.append("NULL")
                    }
                }
            }
            try db.execute(
                sql: "INSERT INTO main.\(dm.table) (\(columns.joined(separator: ", "))) SELECT \(expressions.joined(separator: ", ")) FROM src.\(sm.table) WHERE Z_ENT = \(sm.number)",
                arguments: SQLiteRawBinding.arguments(arguments, in: db))

            // To-one → to-many: a join table gets one row per object that had a destination. When
            // the new to-many is stored as the destination's foreign key instead (its inverse is a
            // to-one), that key is the inverse's own column, copied with the destination's rows
            // (Core Data keeps a one-to-one's key on both sides).
            for (slot, toMany) in dm.toMany.enumerated() {
                guard case let .join(table, c1, c2, order)? = toMany, !doneJoins.contains(table),
                    let sourceSlot = relationshipMap[slot], let sourceToOne = sm.toOne[sourceSlot]
                else { continue }
                doneJoins.insert(table)
                var joinColumns = [c1, c2], joinExpressions = ["Z_PK", sourceToOne.column]
                if let order {
                    joinColumns.append(order)
                    joinExpressions.append("1")
                }
                let name = destination.joinTables[table].table.name
                try db.execute(sql: """
                    INSERT INTO main.\(name) (\(joinColumns.joined(separator: ", "))) \
                    SELECT \(joinExpressions.joined(separator: ", ")) FROM src.\(sm.table) \
                    WHERE Z_ENT = \(sm.number) AND \(sourceToOne.column) IS NOT NULL
                    """)
            }

            for (slot, toMany) in dm.toMany.enumerated() {
                guard case let .join(table, c1, c2, order)? = toMany, !doneJoins.contains(table),
                    let sourceSlot = relationshipMap[slot], case let .join(sourceTable, s1, s2, sourceOrder)? = sm.toMany[sourceSlot]
                else { continue }
                doneJoins.insert(table)
                var joinColumns = [c1, c2], joinExpressions = [s1, s2]
                if let order {
                    joinColumns.append(order)
                    joinExpressions.append(sourceOrder ?? "NULL")
                }
                let name = destination.joinTables[table].table.name, sourceName = source.joinTables[sourceTable].table.name
                try db.execute(sql: "INSERT INTO main.\(name) (\(joinColumns.joined(separator: ", "))) SELECT \(joinExpressions.joined(separator: ", ")) FROM src.\(sourceName)")
            }
        }
        // Primary keys continue after the largest one handed out.
        let storeMax = Dictionary(storeEntities.map { ($0.number, $0.maxPrimaryKey) }, uniquingKeysWith: { a, _ in a })
        for root in destination.model.entities where root.superentity == nil {
            let dm = try destination.mapping(for: root)
            var maximum = try Int64.fetchOne(db, sql: "SELECT IFNULL(MAX(Z_PK), 0) FROM main.\(dm.table)") ?? 0
            for e in root.selfAndDescendants {
                if let s = map.entities[e.name], let n = try? source.mapping(for: s.rootEntity).number {
                    maximum = max(maximum, storeMax[n] ?? 0)
                }
            }
            try db.execute(sql: "UPDATE main.Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", arguments: [maximum, dm.number])
        }
    }
}
