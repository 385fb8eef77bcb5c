import Foundation
import TestSupportKit
import Testing

@testable import CoreStack

/// Reading to-many relationships: the `@ToMany` wrapper, destinations loaded by prefetching
/// (small sets built without the general initialiser), and the rows of an entity with
/// to-many relationships only (one shared, all-nil to-one list).
@Suite struct ToManyReadTests {
    /// Saves 3 books with 0, 2 and 9 authors; returns the books' (permanent) IDs.
    static func library(_ stack: TestStack) throws -> [ManagedObjectID] {
        try stack.context.performAndWait {
            var books: [Book] = []
            for (i, count) in [0, 2, 9].enumerated() {
                let b = try Book(context: stack.context)
                b.title = "B\(i)"
                for j in 0..<count {
                    let a = try Author(context: stack.context)
                    a.name = "A\(i).\(j)"
                    b.authors.insert(a)
                }
                books.append(b)
            }
            try stack.context.save()
            return books.map(\.objectID)  // permanent now
        }
    }

    @Test("@ToMany reads the same set from a fault, from a prefetch and after a change", arguments: StoreKind.allCases)
    func wrapperReads(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ids = try Self.library(stack)
        for prefetching in [false, true] {
            let fresh = stack.newContext()
            try fresh.performAndWait {
                var r = FetchRequest<Book>(entityName: "Book", sortDescriptors: [SortDescriptor("title")])
                if prefetching { r.relationshipKeyPathsForPrefetching = ["authors"] }
                let books = try fresh.fetch(r)
                #expect(books.map(\.objectID) == ids)
                #expect(books.map { $0.authors.count } == [0, 2, 9])
                #expect(Set(books[1].authors.map(\.name)) == ["A1.0", "A1.1"])
                #expect(books[2].authors.allSatisfy { $0.books.map(\.objectID) == [ids[2]] })
                let extra = try Author(context: fresh)
                extra.name = "New"
                books[1].authors.insert(extra)
                #expect(books[1].authors.count == 3)
                #expect(extra.books.map(\.objectID) == [ids[1]])
            }
        }
    }

    @Test("a loaded to-many of up to 8 and of more: in the store's order, duplicates dropped, committed state the same")
    func loadedSets() throws {
        let stack = try TestStack(.inMemory)
        let ids = try Self.library(stack)
        try stack.context.performAndWait {
            let book = try stack.context.existingObject(with: ids[0])
            let slot = try #require(book.entity.relationshipSlots["authors"])
            let author = try #require(stack.model.entity(named: "Author"))
            let a = (1...12).map { ManagedObjectID(entity: author, storeIdentifier: "s", primaryKey: $0) }
            let cases: [[ManagedObjectID]] = [[], [a[2], a[0]], [a[0], a[1], a[0]], Array(a[0..<8]), a + [a[3]], [a[5]] + Array(a[0..<8])]
            for given in cases {
                book.setLoadedToMany(given, slot: slot)
                var expected: [ManagedObjectID] = []
                for id in given where !expected.contains(id) { expected.append(id) }
                guard case let .toMany(set) = book.relations[slot] else {
                    Issue.record("not loaded")
                    continue
                }
                #expect(Array(set) == expected)
                #expect(book.committedToMany[slot].map { Array($0) } == expected)
            }
        }
    }

    @Test("rows of an entity whose relationships are all to-many carry one nil to-one per relationship")
    func toManyOnlyRows() throws {
        let dir = try TemporaryRoot.folder("sqlite")
        let model = try LibraryModel.make()
        let stack = try TestStack(model: model) { try SQLiteStore(url: dir.appendingPathComponent("T.sqlite"), model: $0) }
        let ids = try Self.library(stack)
        let store = try #require(stack.coordinator.persistentStore as? SQLiteStore)
        let authorSlot = try #require(model.entity(named: "Book")?.relationshipSlots["authors"])
        let authors = try store.relatedObjectIDs(for: ids, relationshipSlot: authorSlot).values.flatMap { $0 }
        #expect(authors.count == 11)
        let rows = try store.rows(for: authors)
        #expect(rows.count == 11)
        for row in rows {
            #expect(row.snapshot.toOne.count == 1)
            #expect(row.snapshot.toOne.allSatisfy { $0 == nil })
        }
        // A book (which has a to-one) still reads its own.
        let bookRows = try store.rows(for: ids)
        #expect(bookRows.allSatisfy { $0.snapshot.toOne.count == 3 })
    }
}
