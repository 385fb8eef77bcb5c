import Foundation
import Testing
@testable import CoreStack

/// A managed object that records, from its initialiser and a stored-property initialiser,
/// whether it was made inside an SQLite store's connection queue.
final class AccessProbe: ManagedObject {
    @Attribute("label") var label: String
    /// Set by the stored-property initialiser.
    let madeInsideStoreAccess = SQLiteStore.isInsideAnyDatabaseAccess
    /// Set by `init(entity:objectID:)`.
    var initRanInsideStoreAccess = false

    required init(entity: EntityDescription, objectID: ManagedObjectID) {
        super.init(entity: entity, objectID: objectID)
        initRanInsideStoreAccess = SQLiteStore.isInsideAnyDatabaseAccess
    }
}

/// The context a `ContextReader`'s initialiser reads, set by the test that uses it.
private let contextToRead = LockedValue<ManagedObjectContext?>(nil)

/// A managed object whose initialiser uses a context (as an app's `init` reaching a shared
/// context might): it counts that context's registered objects.
final class ContextReader: ManagedObject {
    @Attribute("label") var label: String
    /// The number of objects registered in `contextToRead` when this object was made (-1: none set).
    var registeredAtInit = -1

    required init(entity: EntityDescription, objectID: ManagedObjectID) {
        super.init(entity: entity, objectID: objectID)
        if let context = contextToRead.withLock({ $0 }) { registeredAtInit = context.registeredObjects.count }
    }
}

@Suite("No user code inside the SQLite store's connection queue: object initialisers, streamRows bodies")
struct StoreAccessUserCodeTests {
    static func probeStack(count: Int) throws -> TestStack {
        let model = try ManagedObjectModel(versionName: "Probes") {
            EntityDescription("Probe", class: AccessProbe.self) {
                AttributeDescription("label", .string, isOptional: false)
            }
        }
        let stack = try TestStack(.sqlite, model: model)
        try stack.context.performAndWait {
            for i in 0..<count {
                let p = try AccessProbe(context: stack.context)
                p.label = String(format: "probe %04d", i)
            }
            try stack.context.save()
        }
        return stack
    }

    @Test("a fetch of filled objects (returnsObjectsAsFaults = false) makes them after the store's read: init and property initialisers run outside it")
    func fetchedObjectsAreMadeOutsideTheRead() throws {
        #expect(SQLiteStore.isInsideAnyDatabaseAccess == false)
        let stack = try Self.probeStack(count: 700)  // several of the store's 256-row chunks
        let ctx = stack.newContext()
        try ctx.performAndWait {
            var request = FetchRequest<AccessProbe>(entityName: "Probe", sortDescriptors: [SortDescriptor("label")])
            request.returnsObjectsAsFaults = false
            let probes = try ctx.fetch(request)
            #expect(probes.count == 700)
            #expect(probes.allSatisfy { !$0.isFault })
            #expect(probes.map(\.label) == (0..<700).map { String(format: "probe %04d", $0) })
            #expect(probes.filter(\.initRanInsideStoreAccess).count == 0)
            #expect(probes.filter(\.madeInsideStoreAccess).count == 0)
        }
    }

    @Test("an object's init may use its context while a fetch makes it: the registration holds no access to the context", arguments: StoreKind.allCases)
    func initMayUseTheContext(kind: StoreKind) throws {
        let model = try ManagedObjectModel(versionName: "Readers") {
            EntityDescription("Reader", class: ContextReader.self) {
                AttributeDescription("label", .string, isOptional: false)
            }
        }
        let stack = try TestStack(kind, model: model)
        try stack.context.performAndWait {
            for i in 0..<10 {
                let r = try ContextReader(context: stack.context)
                r.label = "reader \(i)"
            }
            try stack.context.save()
        }
        let ctx = stack.newContext()
        try ctx.performAndWait {
            contextToRead.withLock { $0 = ctx }
            defer { contextToRead.withLock { $0 = nil } }
            var request = FetchRequest<ContextReader>(entityName: "Reader", sortDescriptors: [SortDescriptor("label")])
            request.returnsObjectsAsFaults = false
            // Trapped ("simultaneous accesses") when the registry was a struct field of the context.
            let readers = try ctx.fetch(request)
            #expect(readers.map(\.label) == (0..<10).map { "reader \($0)" })
            // Each init ran before its own object was registered, after the ones before it.
            #expect(readers.map(\.registeredAtInit) == Array(0..<10))
        }
    }

    @Test("the flag the tests rely on is set inside the store's connection queue and cleared after")
    func accessFlag() throws {
        let stack = try Self.probeStack(count: 1)
        let store = try #require(stack.coordinator.persistentStore as? SQLiteStore)
        #expect(!store.isInsideDatabaseAccess)
        let inside = try store.readStatement { _ in (store.isInsideDatabaseAccess, SQLiteStore.isInsideAnyDatabaseAccess) }
        #expect(inside == (true, true))
        #expect(!store.isInsideDatabaseAccess)
    }

    @Test("a streamRows body runs outside the store's connection queue: it may use the context, and a save it makes is not in the stream's snapshot")
    func streamRowsBodyMayUseTheContext() throws {
        let stack = try StreamedFetchTests.filledStack(.sqlite)
        let ctx = stack.newContext()
        try ctx.performAndWait {
            var request = FetchRequest<ManagedObject>(entityName: "Tagged")
            request.sortDescriptors = [SortDescriptor("label")]
            var labels: [String] = []
            var insideAccess = 0
            var countsInBody: [Int] = []
            try ctx.streamRows(request) { row in
                if SQLiteStore.isInsideAnyDatabaseAccess { insideAccess += 1 }
                if case let .string(label)? = row.value(forKey: "label") { labels.append(label) }
                if labels.count == 1 {
                    // Uses the context and the store: a count, a fault, a save.
                    countsInBody.append(try ctx.count(for: FetchRequest<Tagged>(entityName: "Tagged")))
                    let first = try #require(try ctx.existingObject(with: row.objectID) as? Tagged)
                    let extra = try Tagged(context: ctx)
                    extra.label = "item 0000 (saved while streaming)"
                    extra.owner = first.owner
                    try ctx.save()
                    countsInBody.append(try ctx.count(for: FetchRequest<Tagged>(entityName: "Tagged")))
                }
            }
            #expect(insideAccess == 0)
            #expect(countsInBody == [700, 701])
            // One snapshot of the file: the row saved while streaming is not streamed.
            #expect(labels == (0..<700).map { String(format: "item %04d", $0) })
            #expect(try ctx.count(for: FetchRequest<Tagged>(entityName: "Tagged")) == 701)
        }
    }
}
