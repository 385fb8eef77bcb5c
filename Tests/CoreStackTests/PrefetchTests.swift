import Foundation
import Testing
@testable import CoreStack

@Suite("Prefetching and fault options")
struct PrefetchTests {
    @Test("relationship key paths are loaded with the fetch; returnsObjectsAsFaults false materialises", arguments: StoreKind.allCases)
    func prefetch(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try stack.context.performAndWait {
            let p = try Publisher(context: stack.context)
            p.name = "Vintage"
            for i in 0..<3 {
                let b = try Book(context: stack.context)
                b.title = "B\(i)"
                b.publisher = p
                let a = try Author(context: stack.context)
                a.name = "A\(i)"
                b.authors = [a]
            }
            try stack.context.save()
        }
        let fresh = stack.newContext()
        try fresh.performAndWait {
            var r = FetchRequest<Book>(entityName: "Book", sortDescriptors: [SortDescriptor("title")])
            let plain = try fresh.fetch(r)
            #expect(plain.filter { !$0.isFault }.isEmpty)
            fresh.reset()
            r.returnsObjectsAsFaults = false
            let materialised = try fresh.fetch(r)
            #expect(materialised.filter(\.isFault).isEmpty)
            fresh.reset()
            r.returnsObjectsAsFaults = true
            r.relationshipKeyPathsForPrefetching = ["authors", "publisher"]
            let books = try fresh.fetch(r)
            let authorsSlot = try #require(books.first?.entity.relationshipSlots["authors"])
            for b in books {
                #expect(!b.isFault)
                guard case let .toMany(ids) = b.relations[authorsSlot] else {
                    Issue.record("authors not loaded for \(b.objectID)")
                    continue
                }
                #expect(ids.count == 1)
                let author = try #require(fresh.registeredObject(for: ids[0]))
                #expect(!author.isFault)
            }
            let publisher = try #require(books.first?.publisher)
            #expect(!publisher.isFault)
            #expect(books.map { ($0.authors.first?.name ?? "") } == ["A0", "A1", "A2"])
            var bad = r
            bad.relationshipKeyPathsForPrefetching = ["nope"]
            #expect(throws: CoreStackError.unknownKey(entity: "Book", key: "nope")) { try fresh.fetch(bad) }
        }
    }

    @Test("a prefetched to-many shared by many objects reads each destination's row once, and follows it once down the path", arguments: StoreKind.allCases)
    func sharedDestinationsReadOnce(kind: StoreKind) throws {
        final class CountingStore: ForwardingStore, @unchecked Sendable {
            var rowIDs: [ManagedObjectID] = []
            override func rows(for ids: [ManagedObjectID]) throws -> [StoreRow] { rowIDs += ids; return try inner.rows(for: ids) }
        }
        let model = try LibraryModel.make()
        let inner = try TestStack(kind, model: model).coordinator.persistentStore
        let store = CountingStore(try #require(inner))
        let stack = try TestStack(model: model) { _ in store }
        try stack.context.performAndWait {
            let p = try Publisher(context: stack.context)
            p.name = "Vintage"
            let authors = try (0..<3).map { i in
                let a = try Author(context: stack.context)
                a.name = "A\(i)"
                return a
            }
            for i in 0..<12 {
                let b = try Book(context: stack.context)
                b.title = "B\(i)"
                b.authors = Set(authors)  // every book by the same three authors
                b.publisher = p
            }
            try stack.context.save()
        }
        let fresh = stack.newContext()
        try fresh.performAndWait {
            stack.coordinator.invalidateRowCache()
            var r = FetchRequest<Book>(entityName: "Book", sortDescriptors: [SortDescriptor("title")])
            r.returnsObjectsAsFaults = false
            r.relationshipKeyPathsForPrefetching = ["authors.books"]
            store.rowIDs = []
            let books = try fresh.fetch(r)
            #expect(books.count == 12)
            // Three authors, each read once (not once per book: 36); their books are already
            // registered and filled, so the second step reads nothing.
            #expect(store.rowIDs.count == 3, "\(store.rowIDs.count) rows read")
            #expect(Set(store.rowIDs).count == store.rowIDs.count)
            for b in books {
                #expect(b.authors.count == 3)
                #expect(b.authors.allSatisfy { !$0.isFault && $0.books.count == 12 })
            }
        }
    }
}
