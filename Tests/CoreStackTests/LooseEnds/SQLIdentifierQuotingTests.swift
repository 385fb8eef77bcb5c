import Foundation
import Testing

@testable import CoreStack

/// Entity, attribute and relationship names that are no SQL identifiers as they stand (a space,
/// a double quote, an SQL keyword): every table, column, index and trigger the engine names in its
/// SQL is quoted, so such a model creates, saves, fetches, batch-updates, deletes, migrates and
/// reopens its store like any other.
@Suite("identifiers quoted in every SQL the engine writes")
struct SQLIdentifierQuotingTests {
    static let entity = #"Order "Line" Select"#
    static let kind = #"Sub "Kind""#
    static let tag = "Tag Group"
    static let title = #"where "title" from"#
    static let number = "group by"
    static let tags = #"the "tags""#
    static let lines = "in lines"
    static let owner = #"owner "ref""#
    static let owned = "owned set"

    static func model(version: Int) throws -> ManagedObjectModel {
        try ManagedObjectModel(versionName: "odd \(version)") {
            EntityDescription(entity, uniquenessConstraints: [[title]]) {
                AttributeDescription(title, .string, isIndexed: true)
                AttributeDescription(number, .integer64, defaultValue: 0)
                if version > 1 { AttributeDescription(#"added "later""#, .string, defaultValue: "x") }
                RelationshipDescription(tags, destination: tag, inverse: lines, toMany: true)
                RelationshipDescription(owner, destination: tag, inverse: owned)
            }
            EntityDescription(kind, parent: entity) {
                AttributeDescription("select", .string)
            }
            EntityDescription(tag) {
                AttributeDescription("name", .string)
                RelationshipDescription(lines, destination: entity, inverse: tags, toMany: true, isOrdered: true)
                RelationshipDescription(owned, destination: entity, inverse: owner, toMany: true, isOrdered: true)
            }
        }
    }

    static func stack(_ url: URL, _ model: ManagedObjectModel, migrate: Bool = false) throws -> (PersistentStoreCoordinator, ManagedObjectContext, SQLiteStore) {
        let store = try SQLiteStore(
            url: url, model: model,
            options: PersistentStoreOptions(persistentHistoryTracking: true, shouldMigrateStoreAutomatically: migrate))
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(store)
        return (coordinator, ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator), store)
    }

    static func titles(_ context: ManagedObjectContext, _ predicate: Predicate? = nil) throws -> [String] {
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(
                entityName: entity, predicate: predicate, sortDescriptors: [SortDescriptor(number, ascending: false)])
            return try context.fetch(request).map { (try $0.value(forKey: title) as? String) ?? "" }
        }
    }

    @Test("create, save, fetch with predicate and sort, batch update and delete, history, statistics, migrate, diff and reopen")
    func oddNames() throws {
        let url = try Fixtures.temporaryFolder().appendingPathComponent(#"odd "names".sqlite"#)
        let v1 = try Self.model(version: 1)
        do {
            let (coordinator, context, store) = try Self.stack(url, v1)
            defer { coordinator.removePersistentStore() }
            try context.performAndWait {
                let red = try context.insertObject(forEntityName: Self.tag)
                try red.setValue("red", forKey: "name")
                for i in 0..<4 {
                    let o = try context.insertObject(forEntityName: i == 3 ? Self.kind : Self.entity)
                    try o.setValue("line \(i)", forKey: Self.title)
                    try o.setValue(i, forKey: Self.number)
                    try o.setValue(red, forKey: Self.owner)
                    if i % 2 == 0 { try o.add(red, toKey: Self.tags) }
                    if i == 3 { try o.setValue("sub", forKey: "select") }
                }
                try context.save()
            }
            #expect(try Self.titles(context) == ["line 3", "line 2", "line 1", "line 0"])
            #expect(try Self.titles(context, .key(Self.number) >= 2) == ["line 3", "line 2"])
            #expect(try Self.titles(context, E.key("\(Self.tags).name").in(["red"])) == ["line 2", "line 0"])
            #expect(try Self.titles(context, .key("\(Self.owner).name") == "red").count == 4)
            // A save of a change, a to-many and a delete.
            try context.performAndWait {
                let o = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: Self.entity, predicate: .key(Self.number) == 1)).first)
                try o.setValue(10, forKey: Self.number)
                let red = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: Self.tag)).first)
                try o.add(red, toKey: Self.tags)
                try context.save()
            }
            #expect(try Self.titles(context, E.key("\(Self.tags).name").in(["red"])) == ["line 1", "line 2", "line 0"])
            // Batch update and delete, in SQL.
            let updated = try context.performAndWait {
                var r = BatchUpdateRequest(entityName: Self.entity, predicate: .key(Self.number) < 2)
                r.propertiesToUpdate = [Self.title: "zero"]
                return try context.execute(r)
            }
            #expect(updated.updated.count == 1)
            let deleted = try context.performAndWait {
                try context.execute(BatchDeleteRequest(entityName: Self.kind))
            }
            #expect(deleted.deleted.count == 1)
            context.performAndWait { context.reset() }
            #expect(try Self.titles(context) == ["line 1", "line 2", "zero"])
            // History recorded the changes (its triggers name the tables).
            #expect(try coordinator.execute(.fetchHistory(after: nil)).transactions.count >= 2)
            // Statistics of the odd column.
            let entity = try #require(v1.entity(named: Self.entity))
            let stats = try store.columnStatistics(ColumnStatisticsRequest(entity: entity, property: Self.number))
            #expect(stats.rowCount == 3)
        }
        // A copy as it is now, for a diff with the migrated store.
        let before = url.deletingLastPathComponent().appendingPathComponent("before.sqlite")
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: url.path + suffix) {
            try FileManager.default.copyItem(atPath: url.path + suffix, toPath: before.path + suffix)
        }
        // A new attribute: migrated on open, rows kept; the store reopens with the new model.
        let v2 = try Self.model(version: 2)
        do {
            let (coordinator, context, store) = try Self.stack(url, v2, migrate: true)
            defer { coordinator.removePersistentStore() }
            #expect(store.migrationsOnOpen.count == 1)
            #expect(try Self.titles(context, .key(#"added "later""#) == "x") == ["line 1", "line 2", "zero"])
        }
        // The diff of the two stores reads both through their odd tables and columns.
        let report = try StoreDiff(
            old: try SQLiteStore(url: before, model: v1, readOnly: true), new: try SQLiteStore(url: url, model: v2, readOnly: true)
        ).run()
        let lines = try #require(report.entities.first { $0.name == Self.entity })
        #expect(lines.oldCount == 3 && lines.newCount == 3 && lines.insertedCount == 0 && lines.deletedCount == 0)
        let (coordinator, context, _) = try Self.stack(url, v2)
        defer { coordinator.removePersistentStore() }
        #expect(try Self.titles(context, E.key(Self.title).beginsWith("line")) == ["line 1", "line 2"])
    }
}

private typealias E = CoreStack.Expression
