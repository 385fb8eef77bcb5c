import Foundation
import TestSupportKit
@testable import CoreStack

/// The model of `corestack-history-probe` (Note { text, n }), built the same way.
enum NoteModel {
    static func make(preserveText: Bool = false) throws -> ManagedObjectModel {
        var text = AttributeDescription("text", .string)
        text.preservesValueInHistoryOnDeletion = preserveText
        return try ManagedObjectModel(versionName: "HistoryProbe") {
            EntityDescription("Note") {
                text
                AttributeDescription("n", .integer64, defaultValue: 0)
            }
        }
    }
}

/// A coordinator and a root context on an SQLite store opened with history options.
struct HistoryStack {
    let url: URL
    let model: ManagedObjectModel
    let store: SQLiteStore
    let coordinator: PersistentStoreCoordinator
    let context: ManagedObjectContext

    init(url: URL, model: ManagedObjectModel, tracking: Bool = true, notifications: Bool = false, name: String = "main") throws {
        self.url = url
        self.model = model
        store = try SQLiteStore(
            url: url, model: model,
            options: PersistentStoreOptions(persistentHistoryTracking: tracking, remoteChangeNotifications: notifications))
        coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(store)
        context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: name)
    }

    /// A fresh store file in a temporary folder.
    static func newURL(_ name: String = "History.sqlite") throws -> URL {
        try TemporaryRoot.folder("history").appendingPathComponent(name)
    }

    func insertNotes(_ texts: [String], author: String? = nil) throws {
        try context.performAndWait {
            context.transactionAuthor = author
            for t in texts {
                let note = try context.insertObject(forEntityName: "Note")
                try note.setValue(t, forKey: "text")
            }
            try context.save()
        }
    }

    func noteTexts() throws -> [String] {
        try context.performAndWait {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Note", sortDescriptors: [SortDescriptor("text")]))
                .map { (try $0.value(forKey: "text") as? String) ?? "" }
        }
    }

    func history(after token: PersistentHistoryToken? = nil) throws -> [PersistentHistoryTransaction] {
        try coordinator.execute(.fetchHistory(after: token)).transactions
    }
}

/// Records what a fetched results controller's delegate hears.
final class FRCLog: FetchedResultsControllerDelegate, @unchecked Sendable {
    typealias Object = ManagedObject
    private let lock = NSLock()
    private var snapshots: [[String]] = []

    func controllerDidChangeContent(_ controller: FetchedResultsController<ManagedObject>) {
        let texts = controller.fetchedObjects.map { (try? $0.value(forKey: "text") as? String) ?? "" }
        lock.withLock { snapshots.append(texts) }
    }

    var last: [String]? { lock.withLock { snapshots.last } }
    var count: Int { lock.withLock { snapshots.count } }
}

/// Counts what an entity monitor's delegate hears.
final class MonitorLog: EntityMonitorDelegate, @unchecked Sendable {
    typealias Object = ManagedObject
    private(set) var inserted = 0
    private(set) var updated = 0
    private(set) var deleted = 0
    func entityMonitor(_ monitor: EntityMonitor<ManagedObject>, didInsert objects: Set<ManagedObject>) { inserted += objects.count }
    func entityMonitor(_ monitor: EntityMonitor<ManagedObject>, didUpdate objects: Set<ManagedObject>) { updated += objects.count }
    func entityMonitor(_ monitor: EntityMonitor<ManagedObject>, didDelete objects: Set<ManagedObject>) { deleted += objects.count }
}
