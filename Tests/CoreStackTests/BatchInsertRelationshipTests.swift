import Foundation
import Testing
@testable import CoreStack

@Suite("Batch inserts with relationships set by object ID")
struct BatchInsertRelationshipTests {
    @Test("to-one, many-to-many and ordered one-to-many links written by a batch insert read back both ways", arguments: StoreKind.allCases)
    func linksReadBack(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ctx = stack.context
        let (novelID, bookID, chapters) = try ctx.performAndWait { () throws -> (ManagedObjectID, ManagedObjectID, [ManagedObjectID]) in
            let publisher = try ctx.executeBatchInsert(BatchInsertRequest(entityName: "Publisher", objects: [["name": .string("P")]]))
            let authors = try ctx.executeBatchInsert(BatchInsertRequest(entityName: "Author", objects: [["name": .string("A1")], ["name": .string("A2")]]))
            // Chapters in shuffled title order; the books list them in their own order.
            let chapters = try ctx.executeBatchInsert(BatchInsertRequest(
                entityName: "Chapter", objects: ["c3", "c1", "c2", "d2", "d1"].map { ["title": .string($0)] }))
            #expect(chapters.objectIDs.count == 5)
            #expect(chapters.objectIDs.compactMap(\.primaryKey) == chapters.objectIDs.compactMap(\.primaryKey).sorted())
            let c = chapters.objectIDs
            let novels = try ctx.executeBatchInsert(BatchInsertRequest(
                entityName: "GraphicNovel", objects: [["title": .string("Novel"), "illustrator": .string("I")]],
                relationships: [["publisher": publisher.objectIDs, "authors": authors.objectIDs, "chapters": [c[1], c[2], c[0]]]]))
            let books = try ctx.executeBatchInsert(BatchInsertRequest(
                entityName: "Book", objects: [["title": .string("Plain")], ["title": .string("Alone")]],
                relationships: [["authors": [authors.objectIDs[1]], "chapters": [c[4], c[3]]]]))
            #expect(Set(novels.updatedObjectIDs) == Set([c[0], c[1], c[2]]))
            #expect(novels.changes.inserted == Set(novels.objectIDs) && novels.changes.updated.count == 3)
            return (novels.objectIDs[0], books.objectIDs[0], c)
        }
        let reader = stack.newContext("reader")
        try reader.performAndWait {
            let novel = try #require(try reader.existingObject(with: novelID) as? GraphicNovel)
            #expect(novel.illustrator == "I")
            #expect(novel.publisher?.name == "P")
            #expect(novel.authors.map(\.name).sorted() == ["A1", "A2"])
            #expect(novel.chapters.map(\.title) == ["c1", "c2", "c3"])
            #expect(novel.chapters.allSatisfy { $0.book === novel })
            let book = try #require(try reader.existingObject(with: bookID) as? Book)
            #expect(book.publisher == nil)
            #expect(book.chapters.map(\.title) == ["d1", "d2"])
            let a2 = try #require(book.authors.first)
            #expect(a2.name == "A2" && a2.books.count == 2)
            #expect(novel.publisher?.books.map(\.title) == ["Novel"])
            let alone = try reader.fetch(FetchRequest<Book>(entityName: "Book", predicate: .key("title") == "Alone"))
            #expect(alone.count == 1 && alone.first?.authors.isEmpty == true && alone.first?.chapters.isEmpty == true)
            let chapter = try #require(try reader.existingObject(with: chapters[2]) as? Chapter)
            #expect(chapter.book?.title == "Novel")
        }
    }

    @Test("the destinations of a one-to-many count as updated: merged, a context holding one sees its new owner", arguments: StoreKind.allCases)
    func mergedDestinations(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ctx = stack.context
        let chapterID = try ctx.performAndWait {
            try ctx.executeBatchInsert(BatchInsertRequest(entityName: "Chapter", objects: [["title": .string("c")]])).objectIDs[0]
        }
        let reader = stack.newContext("reader")
        let held = try reader.performAndWait { () throws -> Chapter in
            let c = try #require(try reader.existingObject(with: chapterID) as? Chapter)
            #expect(c.book == nil)
            return c
        }
        let changes = try ctx.performAndWait {
            try ctx.execute(BatchInsertRequest(entityName: "Book", objects: [["title": .string("B")]], relationships: [["chapters": [chapterID]]]))
        }
        #expect(changes.updated == [chapterID] && changes.inserted.count == 1)
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [reader])
        try reader.performAndWait {
            #expect(held.book?.title == "B")
            // The merged chapter carries the row's new version: changing and saving it works.
            held.title = "changed"
            try reader.save()
        }
    }

    @Test("a destination named by a new owner's one-to-many leaves its old owner", arguments: StoreKind.allCases)
    func movesDestination(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ctx = stack.context
        let (a, b) = try ctx.performAndWait { () throws -> (ManagedObjectID, ManagedObjectID) in
            let c = try ctx.executeBatchInsert(BatchInsertRequest(entityName: "Chapter", objects: [["title": .string("c1")], ["title": .string("c2")]])).objectIDs
            let a = try ctx.executeBatchInsert(BatchInsertRequest(entityName: "Book", objects: [["title": .string("A")]], relationships: [["chapters": c]]))
            let b = try ctx.executeBatchInsert(BatchInsertRequest(entityName: "Book", objects: [["title": .string("B")]], relationships: [["chapters": [c[1]]]]))
            return (a.objectIDs[0], b.objectIDs[0])
        }
        let reader = stack.newContext("reader")
        try reader.performAndWait {
            let bookA = try #require(try reader.existingObject(with: a) as? Book)
            let bookB = try #require(try reader.existingObject(with: b) as? Book)
            #expect(bookA.chapters.map(\.title) == ["c1"])
            #expect(bookB.chapters.map(\.title) == ["c2"])
            #expect(bookB.chapters.first?.book === bookB)
        }
    }

    @Test("bad relationships are refused before anything is written")
    func refusals() throws {
        let stack = try TestStack(.sqlite)
        let ctx = stack.context
        try ctx.performAndWait {
            let publisher = try ctx.executeBatchInsert(BatchInsertRequest(entityName: "Publisher", objects: [["name": .string("P")]])).objectIDs
            let authors = try ctx.executeBatchInsert(BatchInsertRequest(entityName: "Author", objects: [["name": .string("A")], ["name": .string("B")]])).objectIDs
            let book = try ctx.executeBatchInsert(BatchInsertRequest(entityName: "Book", objects: [["title": .string("B")]])).objectIDs
            func insertBook(_ links: [String: [ManagedObjectID]]) throws {
                try ctx.executeBatchInsert(BatchInsertRequest(entityName: "Book", objects: [["title": .string("x")]], relationships: [links]))
            }
            #expect(throws: CoreStackError.unknownKey(entity: "Book", key: "nope")) { try insertBook(["nope": publisher]) }
            #expect(throws: CoreStackError.typeMismatch(entity: "Book", key: "publisher", expected: "Publisher", got: "Author")) {
                try insertBook(["publisher": [authors[0]]])
            }
            #expect(throws: CoreStackError.typeMismatch(entity: "Book", key: "publisher", expected: "at most one Publisher", got: "2 objects")) {
                try insertBook(["publisher": publisher + publisher])
            }
            // A to-one into an ordered inverse would leave the chapter without a position.
            #expect(throws: CoreStackError.self) {
                try ctx.executeBatchInsert(BatchInsertRequest(entityName: "Chapter", objects: [["title": .string("c")]], relationships: [["book": book]]))
            }
            #expect(throws: CoreStackError.self) {
                try ctx.executeBatchInsert(BatchInsertRequest(entityName: "Book", objects: [], relationships: [[:]]))
            }
            let temporary = try Publisher(context: ctx)
            temporary.name = "unsaved"
            #expect(throws: CoreStackError.self) { try insertBook(["publisher": [temporary.objectID]]) }
            ctx.rollback()
            #expect(try ctx.count(for: FetchRequest<Book>(entityName: "Book")) == 1)
        }
    }

    @Test("the IDs come back in the request's order, the objects in SQL as the request gave them")
    func idsInOrder() throws {
        let stack = try TestStack(.sqlite)
        let ctx = stack.context
        try ctx.performAndWait {
            let titles = (0..<300).map { "T\(($0 * 7) % 300)" }
            let ids = try ctx.executeBatchInsert(BatchInsertRequest(entityName: "Book", objects: titles.map { ["title": .string($0)] })).objectIDs
            #expect(ids.count == 300)
            let read = try ids.map { try #require(try ctx.existingObject(with: $0) as? Book).title }
            #expect(read == titles)
        }
    }
}
