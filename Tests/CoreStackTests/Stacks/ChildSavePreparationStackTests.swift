import Foundation
import Testing
@testable import CoreStack

/// The context whose queue `PreparedNote.init` checks, and how many inits ran on it.
private let watchedParent = LockedValue<ManagedObjectContext?>(nil)
private let initsOnWatchedQueue = LockedValue<Int>(0)

final class PreparedNote: ManagedObject {
    @Attribute("title") var title: String
    @ToOne("folder") var folder: PreparedFolder?

    required init(entity: EntityDescription, objectID: ManagedObjectID) {
        super.init(entity: entity, objectID: objectID)
        if let parent = watchedParent.withLock({ $0 }), parent.isOnQueue {
            initsOnWatchedQueue.withLock { $0 += 1 }
        }
    }
}

final class PreparedFolder: ManagedObject {
    @Attribute("name") var name: String
    @ToMany("notes") var notes: Set<PreparedNote>
}

/// A child save into its parent (the nested stack's worker → main step): the parent's copies of
/// the inserted objects are made on the child's queue, and the parent takes them in one step.
@Suite("Child save: prepared on the child's queue, applied in one step", .serialized)
struct ChildSavePreparationStackTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionName: "Prepared") {
            EntityDescription("PreparedNote", class: PreparedNote.self) {
                AttributeDescription("title", .string, isOptional: false)
                RelationshipDescription("folder", destination: "PreparedFolder", inverse: "notes")
            }
            EntityDescription("PreparedFolder", class: PreparedFolder.self) {
                AttributeDescription("name", .string, isOptional: false)
                RelationshipDescription("notes", destination: "PreparedNote", inverse: "folder", toMany: true)
            }
        }
    }

    /// Inserts a folder and `count` notes in it into `child` and saves; returns their IDs.
    static func insertAndSave(_ count: Int, into child: ManagedObjectContext) throws -> (folder: ManagedObjectID, notes: [ManagedObjectID]) {
        try child.performAndWait {
            let folder = try PreparedFolder(context: child)
            folder.name = "inbox"
            let notes = try (0..<count).map { i in
                let n = try PreparedNote(context: child)
                n.title = "note \(i)"
                n.folder = folder
                return n
            }
            try child.save()
            return (folder.objectID, notes.map(\.objectID))
        }
    }

    @Test("the parent's copies of inserted objects are made before the parent's queue is taken, and arrive complete", arguments: StoreKind.allCases)
    func copiesMadeOnChildQueue(kind: StoreKind) throws {
        let stack = try TestStack(kind, model: Self.model())
        let parent = stack.context
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: parent, name: "child")
        initsOnWatchedQueue.withLock { $0 = 0 }
        watchedParent.withLock { $0 = parent }
        defer { watchedParent.withLock { $0 = nil } }
        let ids = try Self.insertAndSave(40, into: child)
        // No object init ran on the parent's queue: the copies were made on the child's.
        #expect(initsOnWatchedQueue.withLock { $0 } == 0)
        try parent.performAndWait {
            #expect(parent.insertedObjects.count == 41)
            let folder = try #require(parent.registeredObject(for: ids.folder) as? PreparedFolder)
            #expect(folder.managedObjectContext === parent)
            #expect(folder.isInserted && !folder.isFault)
            #expect(folder.name == "inbox")
            #expect(folder.notes.count == 40)
            for (i, id) in ids.notes.enumerated() {
                let note = try #require(parent.registeredObject(for: id) as? PreparedNote)
                #expect(note.managedObjectContext === parent)
                #expect(note.isInserted)
                #expect(note.title == "note \(i)")
                #expect(note.folder === folder)
            }
            try parent.save()
        }
        let other = stack.newContext()
        try other.performAndWait {
            let notes = try other.fetch(FetchRequest<PreparedNote>(entityName: "PreparedNote", sortDescriptors: [SortDescriptor("title")]))
            #expect(notes.count == 40)
            #expect(notes.allSatisfy { $0.folder?.name == "inbox" })
        }
    }

    @Test("the parent's queue sees all of a child's save or none of it, and one objectsDidChange with all of it", arguments: StoreKind.allCases)
    func parentNeverSeesHalfASave(kind: StoreKind) throws {
        let stack = try TestStack(kind, model: Self.model())
        let parent = stack.context
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: parent, name: "child")
        let seen = Recorder<Int>()
        let announced = Recorder<Int>()
        let token = parent.performAndWait {
            parent.addObjectsDidChangeObserver { change in announced.append(change.inserted.count) }
        }
        // While the child saves, blocks on the parent's queue keep looking at what it holds.
        let stop = Recorder<Bool>()
        let watcher = Thread {
            while stop.count == 0 {
                parent.performAndWait { seen.append(parent.insertedObjects.count) }
            }
        }
        watcher.start()
        _ = try Self.insertAndSave(3_000, into: child)
        stop.append(true)
        parent.performAndWait { seen.append(parent.insertedObjects.count) }
        parent.performAndWait { parent.removeObserver(token) }
        #expect(seen.values.allSatisfy { $0 == 0 || $0 == 3_001 })
        #expect(seen.values.last == 3_001)
        #expect(announced.values == [3_001])
    }
}
