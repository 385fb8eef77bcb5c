import Foundation
import Testing
@testable import CoreStack

/// Hands out increasing numbers, so tests can tell the order callbacks ran in.
private let awakeSequence = LockedValue<Int>(0)

/// Set by a test, by store: the next `awakeFromFetch` of a `Tagged` in that store reads this
/// object (and clears the entry). Keyed by store so tests running in parallel do not share it.
private let peekAtAwake = LockedValue<[String: ManagedObjectID]>([:])

final class Tagged: ManagedObject {
    @Attribute("label") var label: String
    @ToOne("owner") var owner: TagOwner?
    /// How many times `awakeFromFetch` ran, when it last did, and the owner's name it read then.
    var awakeCount = 0
    var awokeAt = 0
    var ownerNameAtAwake: String?
    /// The label of the object `peekAtAwake` named, read in this object's `awakeFromFetch`.
    var peekedLabel: String?

    override func awakeFromFetch() {
        awakeCount += 1
        awokeAt = awakeSequence.withLock { $0 += 1; return $0 }
        let store = objectID.storeIdentifier
        if let id = peekAtAwake.withLock({ $0.removeValue(forKey: store) }) {
            peekedLabel = (try? managedObjectContext?.existingObject(with: id) as? Tagged)?.label
        }
        // Reads another object, firing its fault: only possible once the store has finished the
        // fetch that filled this object.
        ownerNameAtAwake = owner?.name
    }
}

final class TagOwner: ManagedObject {
    @Attribute("name") var name: String
    @ToMany("items") var items: Set<Tagged>
}

@Suite("Fetches filled as the store reads: chunks, order, awakeFromFetch")
struct StreamedFetchTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionName: "Tags") {
            EntityDescription("Tagged", class: Tagged.self) {
                AttributeDescription("label", .string, isOptional: false)
                RelationshipDescription("owner", destination: "TagOwner", inverse: "items")
            }
            EntityDescription("TagOwner", class: TagOwner.self) {
                AttributeDescription("name", .string, isOptional: false)
                RelationshipDescription("items", destination: "Tagged", inverse: "owner", toMany: true)
            }
        }
    }

    /// 700 tagged objects (several store chunks) over 10 owners, saved.
    static func filledStack(_ kind: StoreKind) throws -> TestStack {
        let stack = try TestStack(kind, model: model())
        let ctx = stack.context
        try ctx.performAndWait {
            let owners = try (0..<10).map { i in
                let o = try TagOwner(context: ctx)
                o.name = "owner \(i)"
                return o
            }
            for i in 0..<700 {
                let t = try Tagged(context: ctx)
                t.label = String(format: "item %04d", i)
                t.owner = owners[i % 10]
            }
            try ctx.save()
        }
        return stack
    }

    static func request() -> FetchRequest<Tagged> {
        var r = FetchRequest<Tagged>(entityName: "Tagged", sortDescriptors: [SortDescriptor("label")])
        r.returnsObjectsAsFaults = false
        return r
    }

    @Test("every row becomes a filled object in order; awakeFromFetch runs once each, in order, after the read", arguments: StoreKind.allCases)
    func orderAndAwake(kind: StoreKind) throws {
        let stack = try Self.filledStack(kind)
        let ctx = stack.newContext()
        try ctx.performAndWait {
            let items = try ctx.fetch(Self.request())
            #expect(items.count == 700)
            #expect(items.map(\.label) == (0..<700).map { String(format: "item %04d", $0) })
            #expect(items.allSatisfy { !$0.isFault && $0.awakeCount == 1 })
            #expect(zip(items, items.dropFirst()).allSatisfy { $0.awokeAt < $1.awokeAt })
            #expect(items.enumerated().allSatisfy { i, t in t.ownerNameAtAwake == "owner \(i % 10)" })
            #expect(items.allSatisfy { $0.lastAccessorError == nil })
        }
        #expect(stack.coordinator.rowCacheCount >= 710)
    }

    @Test("awakeFromFetch runs as each object is filled: one that reads an object later in the result fills it from the row cache, awake once, before the next row's", arguments: StoreKind.allCases)
    func awakeReadsLaterObject(kind: StoreKind) throws {
        let stack = try Self.filledStack(kind)
        let reader = stack.newContext("ids")
        let lastID = try reader.performAndWait { try #require(try reader.fetch(Self.request()).last).objectID }
        let ctx = stack.newContext()
        peekAtAwake.withLock { $0[lastID.storeIdentifier] = lastID }
        try ctx.performAndWait {
            let items = try ctx.fetch(Self.request())
            #expect(items.count == 700)
            #expect(items[0].peekedLabel == "item 0699")
            #expect(items[699].objectID == lastID)
            #expect(items[699].label == "item 0699")
            #expect(items.allSatisfy { $0.awakeCount == 1 })
            // Awoken while the first object's awakeFromFetch read it: after the first, before the second.
            #expect(items[0].awokeAt < items[699].awokeAt && items[699].awokeAt < items[1].awokeAt)
        }
    }

    @Test("objects already registered keep their unsaved changes and are not awoken again", arguments: StoreKind.allCases)
    func registeredObjectsKeepChanges(kind: StoreKind) throws {
        let stack = try Self.filledStack(kind)
        let ctx = stack.newContext()
        try ctx.performAndWait {
            let first = try ctx.fetch(Self.request())
            first[300].label = "changed"
            var again = Self.request()
            again.includesPendingChanges = false
            let second = try ctx.fetch(again)
            #expect(second.count == 700)
            #expect(second[300] === first[300])
            #expect(second[300].label == "changed")
            #expect(second[300].isUpdated)
            #expect(second.allSatisfy { $0.awakeCount == 1 })
        }
    }

    @Test("a request typed for another class throws a type mismatch", arguments: StoreKind.allCases)
    func typeMismatch(kind: StoreKind) throws {
        let stack = try Self.filledStack(kind)
        let ctx = stack.newContext()
        ctx.performAndWait {
            var r = FetchRequest<TagOwner>(entityName: "Tagged")
            r.returnsObjectsAsFaults = false
            #expect(throws: CoreStackError.typeMismatch(
                entity: "Tagged", key: "(fetch)", expected: "TagOwner", got: "an object of class Tagged")) {
                _ = try ctx.fetch(r)
            }
        }
    }

    @Test("the SQLite store hands rows over in chunks of at most 256, the same rows as a plain fetch")
    func storeChunks() throws {
        let stack = try Self.filledStack(.sqlite)
        let store = try #require(stack.coordinator.persistentStore)
        let entity = try #require(stack.coordinator.managedObjectModel.entity(named: "Tagged"))
        let request = StoreFetchRequest(entity: entity, sortDescriptors: [SortDescriptor("label")])
        var sizes: [Int] = []
        var streamed: [StoreRow] = []
        var expectations: [Int] = []
        try store.fetch(request) { rows, expected in
            sizes.append(rows.count)
            expectations.append(expected)
            streamed.append(contentsOf: rows)
        }
        #expect(sizes == [256, 256, 188])
        #expect(expectations.allSatisfy { $0 >= 700 })
        let plain = try store.fetch(request)
        #expect(streamed.map(\.objectID) == plain.map(\.objectID))
        #expect(streamed.map(\.snapshot) == plain.map(\.snapshot))
    }

    @Test("the row-count estimate follows Z_MAX, the fetch limit and a cap, and gives up on predicates")
    func estimate() throws {
        let stack = try Self.filledStack(.sqlite)
        let store = try #require(stack.coordinator.persistentStore as? SQLiteStore)
        let entity = try #require(stack.coordinator.managedObjectModel.entity(named: "Tagged"))
        #expect(try store.expectedCount(StoreFetchRequest(entity: entity)) == 700)
        #expect(try store.expectedCount(StoreFetchRequest(entity: entity, fetchLimit: 10)) == 10)
        #expect(try store.expectedCount(StoreFetchRequest(entity: entity, fetchOffset: 650)) == 50)
        #expect(try store.expectedCount(StoreFetchRequest(entity: entity, predicate: .key("label") == "x")) == 0)
        // Keys handed out and never used (as after deletions): Z_MAX runs far past the rows, and
        // the estimate (what a fetch reserves room for) stops at the cap.
        _ = try store.newPrimaryKeys(for: entity, count: 2 * SQLiteStore.maximumExpectedCount)
        #expect(try store.expectedCount(StoreFetchRequest(entity: entity)) == SQLiteStore.maximumExpectedCount)
        let ctx = stack.newContext()
        let count = try ctx.performAndWait { try ctx.fetch(Self.request()).count }
        #expect(count == 700)
    }
}
