import Foundation
import Testing

@testable import CoreStack

/// Members of an ordered to-many kept by foreign keys (`Book.chapters` ↔ `Chapter.book`) get
/// their order key (`Z_FOK_BOOK`) in their own INSERT when they are inserted in the same save;
/// members already stored get it by UPDATE.
@Suite struct OrderKeyInsertTests {
    static func fok(_ lib: LibraryStore, _ id: ManagedObjectID) throws -> Int? {
        let rows = try RawSQLite.run("SELECT Z_FOK_BOOK AS k FROM ZCHAPTER WHERE Z_PK = \(id.primaryKey ?? 0)", in: lib.url)
        return (rows.first?["k"] as? NSNumber)?.intValue
    }

    func newID(_ lib: LibraryStore, _ entity: String) throws -> ManagedObjectID {
        let e = lib.entity(entity)
        return ManagedObjectID(entity: e, storeIdentifier: lib.store.identifier, primaryKey: try lib.store.newPrimaryKeys(for: e, count: 1)[0])
    }

    @Test("a book and its chapters inserted in one save: each chapter's order key in the file, in the book's order; a chapter of no book in the same save keeps NULL (no key left over from the row before)")
    func insertedTogether() throws {
        let lib = try LibraryStore()
        let slot = lib.entity("Book").relationshipSlots["chapters"] ?? 0
        let book = try newID(lib, "Book")
        let chapters = try (0..<3).map { _ in try newID(lib, "Chapter") }
        let loose = try newID(lib, "Chapter")
        var bookChange = lib.change(book, ["title": "Dune"])
        let order = [chapters[2], chapters[0], chapters[1]]
        bookChange.toMany = [ToManyChange(slot: slot, current: order, added: order, removed: [])]
        var inserted = [bookChange]
        inserted += chapters.map { lib.change($0, ["title": "c"], toOne: ["book": book]) }
        inserted.append(lib.change(loose, ["title": "loose"]))  // after the chapters: same cached statement
        _ = try lib.store.save(StoreSaveRequest(inserted: inserted))
        #expect(try Self.fok(lib, chapters[2]) == 1024)
        #expect(try Self.fok(lib, chapters[0]) == 2048)
        #expect(try Self.fok(lib, chapters[1]) == 3072)
        #expect(try Self.fok(lib, loose) == nil)
        #expect(try lib.store.relatedObjectIDs(for: [book], relationshipSlot: slot)[book] == order)
    }

    @Test("a stored chapter moved into a new book's list gets its key by UPDATE beside the new ones inserted with theirs")
    func storedAndInsertedMembers() throws {
        let lib = try LibraryStore()
        let slot = lib.entity("Book").relationshipSlots["chapters"] ?? 0
        let old = try lib.insert("Chapter", ["title": "stored"])
        #expect(try Self.fok(lib, old) == nil)
        let book = try newID(lib, "Book")
        let fresh = try newID(lib, "Chapter")
        let order = [fresh, old]
        var bookChange = lib.change(book, ["title": "Dune"])
        bookChange.toMany = [ToManyChange(slot: slot, current: order, added: order, removed: [])]
        let oldRow = try lib.requireRow(old)
        let moved = lib.change(old, ["title": "stored"], toOne: ["book": book], expectedVersion: oldRow.snapshot.version)
        _ = try lib.store.save(StoreSaveRequest(
            inserted: [bookChange, lib.change(fresh, ["title": "new"], toOne: ["book": book])], updated: [moved]))
        #expect(try Self.fok(lib, fresh) == 1024)
        #expect(try Self.fok(lib, old) == 2048)
        #expect(try lib.store.relatedObjectIDs(for: [book], relationshipSlot: slot)[book] == order)
    }

    @Test("through a context: chapters inserted with their book read back in order from a fresh context", arguments: StoreKind.allCases)
    func throughContext(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        try stack.context.performAndWait {
            let b = try Book(context: stack.context)
            b.title = "Dune"
            b.chapters = try (0..<5).map { i in
                let c = try Chapter(context: stack.context)
                c.title = "C\(i)"
                return c
            }.reversed()
            try stack.context.save()
        }
        let fresh = stack.newContext()
        try fresh.performAndWait {
            let books = try fresh.fetch(FetchRequest<Book>(entityName: "Book"))
            #expect(books.first?.chapters.map(\.title) == ["C4", "C3", "C2", "C1", "C0"])
        }
    }
}
