import CoreStack
import Foundation
import StackScope
import Testing

@Suite("browser: the demo store in the cache folder")
struct BrowserDemoStoreTests {
    /// An earlier demo model: genres only, with their name.
    static func earlierModel() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionName: "DemoLibrary-0", versionIdentifiers: ["0"]) {
            EntityDescription("Genre") {
                AttributeDescription("name", .string, isOptional: false)
            }
        }
    }

    @Test("a demo store written with an earlier demo model is migrated, keeping its objects, not moved aside")
    func earlierDemoStoreIsMigrated() throws {
        let folder = try TestSupport.temporaryDirectory()
        let url = folder.appendingPathComponent("LocalData.sqlite")
        let old = try Self.earlierModel()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: old)
        try coordinator.addPersistentStore(SQLiteStore(url: url, model: old))
        let writer = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try writer.performAndWait {
            let g = try writer.insertObject(forEntityName: "Genre")
            try g.setValue("Kept from the earlier model", forKey: "name")
            try writer.save()
        }
        coordinator.removePersistentStore()

        let session = try BrowserSession.demo(storeURL: url, size: 60)
        let context = session.mainContext
        let names = try context.performAndWait {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Genre")).compactMap { try $0.value(forKey: "name") as? String }
        }
        #expect(names.contains("Kept from the earlier model"))
        let quarantined = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("quarantined") }
        #expect(quarantined.isEmpty)
    }
}
