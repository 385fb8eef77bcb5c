import Foundation
import Testing

@testable import CoreStack

/// Toggling only *Allows External Storage*: Core Data leaves the flag out of an attribute's
/// version hash (name, optionality, transient, read-only, modifier and type), so the hashes stay
/// equal; the store's layout (Core Data's marker byte before each value) changes all the same, so
/// CoreStack records the flagged attributes in its store metadata and compares them on open.
@Suite("toggling Allows External Storage migrates the store")
struct ExternalStorageToggleTests {
    static func model(external: Bool) throws -> ManagedObjectModel {
        try ManagedObjectModel(versionName: external ? "external" : "inline") {
            EntityDescription("Blob") {
                AttributeDescription("name", .string)
                AttributeDescription("bytes", .binaryData, allowsExternalBinaryDataStorage: external)
            }
        }
    }

    static func store(_ model: ManagedObjectModel, bytes: Data) throws -> URL {
        let url = try Fixtures.temporaryFolder().appendingPathComponent("Blobs.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(try SQLiteStore(url: url, model: model))
        defer { coordinator.removePersistentStore() }
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait {
            let o = try context.insertObject(forEntityName: "Blob")
            try o.setValue("one", forKey: "name")
            try o.setValue(bytes, forKey: "bytes")
            try context.save()
        }
        return url
    }

    static func read(_ url: URL, _ model: ManagedObjectModel) throws -> AttributeValue? {
        let store = try SQLiteStore(url: url, model: model, readOnly: true)
        let entity = try #require(model.entity(named: "Blob"))
        let slot = try #require(entity.attributeSlots["bytes"])
        return try store.fetch(StoreFetchRequest(entity: entity)).first?.snapshot.values[slot]
    }

    @Test("the version hash is Core Data's (the flag left out), and opening with the flag turned on or off migrates the rows")
    func toggleMigrates() throws {
        let inline = try Self.model(external: false), external = try Self.model(external: true)
        #expect(inline.entity(named: "Blob")?.versionHash == external.entity(named: "Blob")?.versionHash)
        // Bytes that begin like Core Data's inline marker (0x01): read with the wrong layout they lose it.
        let bytes = Data([0x01, 0x02, 0x03])
        for (from, to) in [(inline, external), (external, inline)] {
            let url = try Self.store(from, bytes: bytes)
            // Without automatic migration, the store does not open with the other layout.
            #expect(throws: CoreStackError.self) { _ = try SQLiteStore(url: url, model: to) }
            let opened = try SQLiteStore(url: url, model: to, options: PersistentStoreOptions(shouldMigrateStoreAutomatically: true))
            #expect(opened.migrationsOnOpen.count == 1)
            opened.close()
            #expect(try Self.read(url, to) == .data(bytes))
            // Migrated once: it opens as it is now.
            #expect(try SQLiteStore(url: url, model: to).migrationsOnOpen.isEmpty)
        }
    }
}
