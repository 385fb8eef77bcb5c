import Foundation
import TestSupportKit
import Testing
@testable import CoreStack

@Suite("Batch inserts under reserved IDs, several requests in one save")
struct BatchInsertReservedIDTests {
    @Test("reserved IDs are unique, ascending, above the existing rows, and raise Z_MAX")
    func reservedIDsRaiseZMax() throws {
        let url = try TemporaryRoot.folder("reserve").appendingPathComponent("Test.sqlite")
        let stack = try TestStack { try SQLiteStore(url: url, model: $0) }
        let ctx = stack.context
        let (existing, first, second, novels) = try ctx.performAndWait {
            () throws -> ([ManagedObjectID], [ManagedObjectID], [ManagedObjectID], [ManagedObjectID]) in
            let existing = try ctx.executeBatchInsert(BatchInsertRequest(
                entityName: "Book", objects: [["title": .string("a")], ["title": .string("b")]])).objectIDs
            let first = try ctx.reserveObjectIDs(forEntityName: "Book", count: 3)
            let second = try ctx.reserveObjectIDs(forEntityName: "Book", count: 2)
            // GraphicNovel shares Book's keys (one table, one Z_MAX for the tree).
            let novels = try ctx.reserveObjectIDs(forEntityName: "GraphicNovel", count: 1)
            #expect(try ctx.reserveObjectIDs(forEntityName: "Book", count: 0).isEmpty)
            return (existing, first, second, novels)
        }
        let keys = (first + second + novels).compactMap(\.primaryKey)
        #expect(keys == [3, 4, 5, 6, 7, 8])
        #expect(Set(keys).count == keys.count)
        #expect(keys.allSatisfy { k in existing.allSatisfy { ($0.primaryKey ?? 0) < k } })
        #expect((first + second).allSatisfy { $0.entity.name == "Book" && !$0.isTemporaryID } && novels[0].entity.name == "GraphicNovel")
        #expect(try RawSQLite.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Book'", in: url) == 8)
        // A later insert without reserved IDs goes above them.
        let later = try ctx.performAndWait {
            try ctx.executeBatchInsert(BatchInsertRequest(entityName: "Book", objects: [["title": .string("c")]])).objectIDs
        }
        #expect(later.first?.primaryKey == 9)
    }

    @Test("bad reservations are typed errors")
    func badReservations() throws {
        let stack = try TestStack(.sqlite)
        let ctx = stack.context
        ctx.performAndWait {
            #expect(throws: CoreStackError.unknownEntity("Nope")) { try ctx.reserveObjectIDs(forEntityName: "Nope", count: 1) }
            #expect(throws: CoreStackError.self) { try ctx.reserveObjectIDs(forEntityName: "Book", count: -1) }
        }
        let bare = PersistentStoreCoordinator(managedObjectModel: stack.model)
        let lonely = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: bare, name: "no store")
        let error = lonely.performAndWait {
            #expect(throws: CoreStackError.self) { try lonely.reserveObjectIDs(forEntityName: "Book", count: 1) }
        }
        if case .noStore = error {} else { Issue.record("expected noStore, got \(String(describing: error))") }
    }

    @Test("several requests in one call link to each other by reserved ID and read back through a fetch", arguments: StoreKind.allCases)
    func linkedRequestsReadBack(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ctx = stack.context
        let (novelID, bookID, chapterIDs, results) = try ctx.performAndWait {
            () throws -> (ManagedObjectID, ManagedObjectID, [ManagedObjectID], [BatchInsertResult]) in
            let publisher = try ctx.reserveObjectIDs(forEntityName: "Publisher", count: 1)
            let books = try ctx.reserveObjectIDs(forEntityName: "Book", count: 1)
            let novels = try ctx.reserveObjectIDs(forEntityName: "GraphicNovel", count: 1)
            let chapters = try ctx.reserveObjectIDs(forEntityName: "Chapter", count: 6)
            // Chapters inserted in shuffled order; the novel lists c1, c2, c3 (its order), the
            // book gets d1, d2 from the chapters' own to-one (in row order).
            let results = try ctx.executeBatchInsert([
                BatchInsertRequest(
                    entityName: "Chapter", objects: ["c3", "d1", "c1", "d2", "c2", "loose"].map { ["title": .string($0)] },
                    relationships: [[:], ["book": books], [:], ["book": books]], objectIDs: chapters),
                BatchInsertRequest(
                    entityName: "GraphicNovel", objects: [["title": .string("Novel"), "illustrator": .string("I")]],
                    relationships: [["publisher": publisher, "chapters": [chapters[2], chapters[4], chapters[0]]]], objectIDs: novels),
                BatchInsertRequest(entityName: "Book", objects: [["title": .string("Plain")]], relationships: [["publisher": publisher]], objectIDs: books),
                BatchInsertRequest(entityName: "Publisher", objects: [["name": .string("P")]], objectIDs: publisher),
            ])
            #expect(results.map(\.objectIDs) == [chapters, novels, books, publisher])
            // The chapters are inserted with their owners, not updated afterwards.
            #expect(results.allSatisfy { $0.updatedObjectIDs.isEmpty })
            return (novels[0], books[0], chapters, results)
        }
        #expect(results.count == 4)
        let reader = stack.newContext("reader")
        try reader.performAndWait {
            let novel = try #require(try reader.existingObject(with: novelID) as? GraphicNovel)
            #expect(novel.illustrator == "I")
            #expect(novel.publisher?.name == "P")
            #expect(novel.chapters.map(\.title) == ["c1", "c2", "c3"])
            #expect(novel.chapters.allSatisfy { $0.book === novel })
            let book = try #require(try reader.existingObject(with: bookID) as? Book)
            #expect(book.chapters.map(\.title) == ["d1", "d2"])
            #expect(Set(book.publisher?.books.map(\.title) ?? []) == ["Novel", "Plain"])
            let fetched = try reader.fetch(FetchRequest<Chapter>(entityName: "Chapter", predicate: .key("title") == "c2"))
            #expect(fetched.count == 1 && fetched.first?.book?.title == "Novel" && fetched.first?.objectID == chapterIDs[4])
            let loose = try reader.fetch(FetchRequest<Chapter>(entityName: "Chapter", predicate: .key("title") == "loose"))
            #expect(loose.count == 1 && loose.first?.book == nil)
            #expect(try reader.count(for: FetchRequest<Chapter>(entityName: "Chapter")) == 6)
        }
    }

    @Test("a request refused in the middle of a call writes nothing of any request", arguments: StoreKind.allCases)
    func failingRequestWritesNothing(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ctx = stack.context
        try ctx.performAndWait {
            let books = try ctx.reserveObjectIDs(forEntityName: "Book", count: 1)
            #expect(throws: CoreStackError.unknownKey(entity: "Chapter", key: "nope")) {
                try ctx.executeBatchInsert([
                    BatchInsertRequest(entityName: "Book", objects: [["title": .string("B")]], objectIDs: books),
                    BatchInsertRequest(entityName: "Chapter", objects: [["title": .string("c"), "nope": .integer(1)]]),
                    BatchInsertRequest(entityName: "Publisher", objects: [["name": .string("P")]]),
                ])
            }
            // A to-one with an ordered inverse whose destination is not in the call is refused too.
            let existing = try ctx.executeBatchInsert(BatchInsertRequest(entityName: "Book", objects: [["title": .string("E")]])).objectIDs
            #expect(throws: CoreStackError.self) {
                try ctx.executeBatchInsert([
                    BatchInsertRequest(entityName: "Publisher", objects: [["name": .string("P")]]),
                    BatchInsertRequest(entityName: "Chapter", objects: [["title": .string("c")]], relationships: [["book": existing]]),
                ])
            }
            #expect(try ctx.count(for: FetchRequest<Book>(entityName: "Book")) == 1)
            #expect(try ctx.count(for: FetchRequest<Chapter>(entityName: "Chapter")) == 0)
            #expect(try ctx.count(for: FetchRequest<Publisher>(entityName: "Publisher")) == 0)
        }
    }

    @Test("reserved IDs of the wrong number or entity are typed errors", arguments: StoreKind.allCases)
    func mismatchedReservedIDs(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ctx = stack.context
        try ctx.performAndWait {
            let books = try ctx.reserveObjectIDs(forEntityName: "Book", count: 2)
            let error = #expect(throws: CoreStackError.self) {
                try ctx.executeBatchInsert(BatchInsertRequest(entityName: "Book", objects: [["title": .string("B")]], objectIDs: books))
            }
            if case .invalidFetchRequest(let message) = error {
                #expect(message.contains("2 reserved object IDs for 1 objects"))
            } else {
                Issue.record("expected invalidFetchRequest, got \(String(describing: error))")
            }
            #expect(throws: CoreStackError.typeMismatch(entity: "Chapter", key: "objectIDs", expected: "Chapter", got: "Book")) {
                try ctx.executeBatchInsert(BatchInsertRequest(
                    entityName: "Chapter", objects: [["title": .string("a")], ["title": .string("b")]], objectIDs: books))
            }
            // A sub-entity's IDs are not the parent's either.
            let novels = try ctx.reserveObjectIDs(forEntityName: "GraphicNovel", count: 1)
            #expect(throws: CoreStackError.typeMismatch(entity: "Book", key: "objectIDs", expected: "Book", got: "GraphicNovel")) {
                try ctx.executeBatchInsert(BatchInsertRequest(entityName: "Book", objects: [["title": .string("B")]], objectIDs: novels))
            }
            #expect(try ctx.count(for: FetchRequest<Book>(entityName: "Book")) == 0)
        }
    }
}

@Suite("A reserved ID inserted twice")
struct BatchInsertReusedIDTests {
    @Test("a second insert under a reserved ID is refused by every store, naming the ID, and writes nothing", arguments: StoreKind.allCases)
    func reusedReservedID(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ctx = stack.context
        let book = try ctx.performAndWait {
            let book = try ctx.reserveObjectIDs(forEntityName: "Book", count: 1)
            try ctx.executeBatchInsert(BatchInsertRequest(entityName: "Book", objects: [["title": .string("first")]], objectIDs: book))
            // Again, after another request of the same call: the whole call is refused.
            #expect(throws: CoreStackError.rowExists(book[0])) {
                try ctx.executeBatchInsert([
                    BatchInsertRequest(entityName: "Publisher", objects: [["name": .string("P")]]),
                    BatchInsertRequest(entityName: "Book", objects: [["title": .string("second")]], objectIDs: book),
                ])
            }
            // Twice in one call, the store holding neither yet.
            let twice = try ctx.reserveObjectIDs(forEntityName: "Book", count: 1)
            #expect(throws: CoreStackError.rowExists(twice[0])) {
                try ctx.executeBatchInsert([
                    BatchInsertRequest(entityName: "Book", objects: [["title": .string("a")]], objectIDs: twice),
                    BatchInsertRequest(entityName: "Book", objects: [["title": .string("b")]], objectIDs: twice),
                ])
            }
            return book[0]
        }
        // A fresh context reads what the store holds: the first row only, unchanged.
        let reader = stack.newContext()
        try reader.performAndWait {
            let books = try reader.fetch(FetchRequest<Book>(entityName: "Book"))
            #expect(books.map(\.title) == ["first"])
            #expect(try reader.count(for: FetchRequest<Publisher>(entityName: "Publisher")) == 0)
        }
        // The error says what and where: the entity, the ID, why.
        guard case let .validation(entity, property, objectID, reason) = CoreStackError.rowExists(book) else {
            Issue.record("rowExists is not a validation error")
            return
        }
        #expect(entity == "Book" && property == nil && objectID == "\(book)" && reason.contains("already has a row with this ID"))
    }
}
