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
}
