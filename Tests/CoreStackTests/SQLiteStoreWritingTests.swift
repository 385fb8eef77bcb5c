import Foundation
import Testing

@testable import CoreStack

/// Saving into stores CoreStack writes: value encoding, versions, keys, relationships, conflicts.
@Suite struct SQLiteStoreWritingTests {
    @Test func valuesAreStoredAsCoreDataStoresThem() throws {
        let lib = try LibraryStore()
        let isbn = UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF") ?? UUID()
        let published = Date(timeIntervalSinceReferenceDate: 123_456.5)
        let book = try lib.insert("Book", [
            "title": "Dune", "pages": 412, "price": .decimal(Decimal(string: "9.99") ?? 0), "rating": 4.5,
            "published": .date(published), "isbn": .uuid(isbn), "inPrint": true,
            "site": .url(URL(string: "https://example.com/dune") ?? URL(fileURLWithPath: "/")), "blurb": .data(Data([1, 2, 3])),
        ])
        let raw = try #require(try RawSQLite.run(
            "SELECT typeof(ZPUBLISHED) AS t, ZPUBLISHED AS d, hex(ZISBN) AS u, length(ZISBN) AS n, ZINPRINT AS b, typeof(ZPRICE) AS pt, ZSITE AS s, Z_OPT AS opt, Z_ENT AS ent FROM ZBOOK",
            in: lib.url
        ).first)
        #expect(raw["t"] as? String == "real")
        #expect((raw["d"] as? NSNumber)?.doubleValue == 123_456.5)
        #expect(raw["u"] as? String == "00112233445566778899AABBCCDDEEFF")
        #expect((raw["n"] as? NSNumber)?.intValue == 16)
        #expect((raw["b"] as? NSNumber)?.intValue == 1)
        #expect(raw["pt"] as? String == "real")
        #expect(raw["s"] as? String == "https://example.com/dune")
        #expect((raw["opt"] as? NSNumber)?.intValue == 1)
        #expect((raw["ent"] as? NSNumber)?.intValue == 2)
        let row = try lib.requireRow(book)
        let e = lib.entity("Book")
        func v(_ k: String) -> AttributeValue { row.snapshot.values[e.attributeSlots[k] ?? 0] }
        #expect(v("title") == "Dune")
        #expect(v("pages") == 412)
        #expect(v("price") == .decimal(Decimal(string: "9.99") ?? 0))
        #expect(v("rating") == 4.5)
        #expect(v("published") == .date(published))
        #expect(v("isbn") == .uuid(isbn))
        #expect(v("inPrint") == true)
        #expect(v("site") == .url(URL(string: "https://example.com/dune") ?? URL(fileURLWithPath: "/")))
        #expect(v("blurb") == .data(Data([1, 2, 3])))
        #expect(row.objectID.uriRepresentation().absoluteString == "x-coredata://\(lib.store.identifier)/Book/p1")
        // Transient attributes come back with their default value.
        let author = try lib.insert("Author", ["name": "Herbert", "scratch": "not saved"])
        #expect(try lib.requireRow(author).snapshot.values[lib.entity("Author").attributeSlots["scratch"] ?? 0] == .null)
    }

    @Test func versionsPrimaryKeysAndZMax() throws {
        let lib = try LibraryStore()
        let book = lib.entity("Book"), novel = lib.entity("GraphicNovel")
        #expect(try lib.store.newPrimaryKeys(for: book, count: 3) == [1, 2, 3])
        // Sub-entities draw from their root's Z_MAX.
        #expect(try lib.store.newPrimaryKeys(for: novel, count: 2) == [4, 5])
        #expect(try lib.store.newPrimaryKeys(for: book, count: 0) == [])
        let id = ManagedObjectID(entity: novel, storeIdentifier: lib.store.identifier, primaryKey: 40)
        let versions = try lib.store.save(StoreSaveRequest(inserted: [lib.change(id, ["title": "Maus", "illustrator": "Spiegelman"])]))
        // Every row got expectedVersion + 1, so nothing is listed (the stored Z_OPT is checked below).
        #expect(versions.isEmpty)
        // Z_MAX is kept at least as large as every inserted key.
        #expect(try RawSQLite.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 2", in: lib.url) == 40)
        #expect(try RawSQLite.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 3", in: lib.url) == 0)
        #expect(try lib.store.newPrimaryKeys(for: book, count: 1) == [41])
        let row = try lib.requireRow(id)
        #expect(row.objectID.entity === novel)
        #expect(row.snapshot.version == 1)
        let updated = try lib.store.save(StoreSaveRequest(updated: [lib.change(id, ["title": "Maus II"], expectedVersion: 1)]))
        #expect(updated.isEmpty)
        #expect(try RawSQLite.scalar("SELECT Z_OPT FROM ZBOOK WHERE Z_PK = 40", in: lib.url) == 2)
        #expect(try lib.requireRow(id).snapshot.values[novel.attributeSlots["title"] ?? 0] == "Maus II")
    }

    @Test func optimisticLockingConflictWritesNothing() throws {
        let lib = try LibraryStore()
        let a = try lib.insert("Book", ["title": "A"])
        let b = try lib.insert("Book", ["title": "B"])
        let c = try lib.insert("Book", ["title": "C"])
        _ = try lib.store.save(StoreSaveRequest(updated: [lib.change(b, ["title": "B2"], expectedVersion: 1)]))  // b now 2
        let newID = ManagedObjectID(entity: lib.entity("Book"), storeIdentifier: lib.store.identifier, primaryKey: 99)
        let request = StoreSaveRequest(
            inserted: [lib.change(newID, ["title": "new"])],
            updated: [lib.change(a, ["title": "A2"], expectedVersion: 1), lib.change(b, ["title": "B3"], expectedVersion: 1)],
            deleted: [StoreRowDeletion(objectID: c, expectedVersion: 7)])
        #expect(throws: CoreStackError.mergeConflict([
            MergeConflict(objectID: b, expectedVersion: 1, storeVersion: 2),
            MergeConflict(objectID: c, expectedVersion: 7, storeVersion: 1),
        ])) {
            try lib.store.save(request)
        }
        #expect(try lib.titles("Book", nil, sort: [.init("title")]) == ["A", "B2", "C"])
        #expect(try RawSQLite.scalar("SELECT Z_OPT FROM ZBOOK WHERE Z_PK = \(a.primaryKey ?? 0)", in: lib.url) == 1)
        #expect(try RawSQLite.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 2", in: lib.url) == 3)
        // A row deleted meanwhile conflicts with store version 0.
        _ = try lib.store.save(StoreSaveRequest(deleted: [StoreRowDeletion(objectID: a, expectedVersion: 1)]))
        #expect(throws: CoreStackError.mergeConflict([MergeConflict(objectID: a, expectedVersion: 1, storeVersion: 0)])) {
            try lib.store.save(StoreSaveRequest(updated: [lib.change(a, ["title": "A3"], expectedVersion: 1)]))
        }
    }

    @Test func relationshipsManyToManyOrderedAndOneToOne() throws {
        let lib = try LibraryStore()
        let book = lib.entity("Book"), author = lib.entity("Author")
        let pub = try lib.insert("Publisher", ["name": "Ace"])
        let dune = try lib.insert("Book", ["title": "Dune"], toOne: ["publisher": pub])
        let maus = try lib.insert("GraphicNovel", ["title": "Maus"], toOne: ["publisher": pub])
        let herbert = try lib.insert("Author", ["name": "Herbert"])
        let spiegelman = try lib.insert("Author", ["name": "Spiegelman"])
        try lib.link(herbert, "books", to: [dune, maus])
        try lib.link(maus, "authors", to: [spiegelman, herbert])  // herbert–maus already there: ignored
        #expect(try RawSQLite.scalar("SELECT COUNT(*) FROM Z_1BOOKS", in: lib.url) == 3)
        let authors = try lib.store.relatedObjectIDs(for: [dune, maus], relationshipSlot: book.relationshipSlots["authors"] ?? 0)
        #expect(authors[dune] == [herbert])
        #expect(Set(authors[maus] ?? []) == [herbert, spiegelman])
        let books = try lib.store.relatedObjectIDs(for: [herbert], relationshipSlot: author.relationshipSlots["books"] ?? 0)
        #expect(books[herbert] == [dune, maus])
        #expect(books[herbert]?.last?.entity.name == "GraphicNovel")
        let published = try lib.store.relatedObjectIDs(for: [pub], relationshipSlot: lib.entity("Publisher").relationshipSlots["books"] ?? 0)
        #expect(published[pub] == [dune, maus])
        // To-one to an entity with sub-entities records the destination's Z_ENT.
        let ch1 = try lib.insert("Chapter", ["title": "One"], toOne: ["book": maus])
        let ch2 = try lib.insert("Chapter", ["title": "Two"], toOne: ["book": maus])
        let ch3 = try lib.insert("Chapter", ["title": "Three"], toOne: ["book": maus])
        #expect(try RawSQLite.scalar("SELECT Z2_BOOK FROM ZCHAPTER WHERE Z_PK = \(ch1.primaryKey ?? 0)", in: lib.url) == 3)
        #expect(try lib.requireRow(ch1).snapshot.toOne[lib.entity("Chapter").relationshipSlots["book"] ?? 0] == maus)
        // Ordered: the order keys are rewritten from `current`, with gaps.
        let mausRow = try lib.requireRow(maus)
        let slot = book.relationshipSlots["chapters"] ?? 0
        var change = StoreRowChange(objectID: maus, values: mausRow.snapshot.values, toOne: mausRow.snapshot.toOne, expectedVersion: mausRow.snapshot.version)
        change.toMany = [ToManyChange(slot: slot, current: [ch3, ch1, ch2], added: [ch1, ch2, ch3], removed: [])]
        _ = try lib.store.save(StoreSaveRequest(updated: [change]))
        #expect(try RawSQLite.scalar("SELECT Z_FOK_BOOK FROM ZCHAPTER WHERE Z_PK = \(ch3.primaryKey ?? 0)", in: lib.url) == 1024)
        #expect(try RawSQLite.scalar("SELECT Z_FOK_BOOK FROM ZCHAPTER WHERE Z_PK = \(ch2.primaryKey ?? 0)", in: lib.url) == 3072)
        #expect(try lib.store.relatedObjectIDs(for: [maus], relationshipSlot: slot)[maus] == [ch3, ch1, ch2])
        // One-to-one: both sides keep a key.
        let cover = try lib.insert("Cover", ["color": "red"], toOne: ["book": dune])
        let duneRow = try lib.requireRow(dune)
        _ = try lib.store.save(StoreSaveRequest(updated: [lib.change(dune, ["title": "Dune"], toOne: ["cover": cover, "publisher": pub], expectedVersion: duneRow.snapshot.version)]))
        #expect(try lib.requireRow(dune).snapshot.toOne[book.relationshipSlots["cover"] ?? 0] == cover)
        #expect(try lib.requireRow(cover).snapshot.toOne[lib.entity("Cover").relationshipSlots["book"] ?? 0] == dune)
        // Removing from a many-to-many, then deleting an object, removes its join rows.
        let herbertRow = try lib.requireRow(herbert)
        var unlink = StoreRowChange(objectID: herbert, values: herbertRow.snapshot.values, toOne: herbertRow.snapshot.toOne, expectedVersion: herbertRow.snapshot.version)
        unlink.toMany = [ToManyChange(slot: author.relationshipSlots["books"] ?? 0, current: [maus], added: [], removed: [dune])]
        _ = try lib.store.save(StoreSaveRequest(updated: [unlink]))
        #expect(try RawSQLite.scalar("SELECT COUNT(*) FROM Z_1BOOKS", in: lib.url) == 2)
        let mausNow = try lib.requireRow(maus)
        _ = try lib.store.save(StoreSaveRequest(deleted: [StoreRowDeletion(objectID: maus, expectedVersion: mausNow.snapshot.version)]))
        #expect(try RawSQLite.scalar("SELECT COUNT(*) FROM Z_1BOOKS", in: lib.url) == 0)
        #expect(try lib.store.rows(for: [maus, dune]).map(\.objectID) == [dune])
    }

    @Test func rowsInBatchesAndMissingRowsLeftOut() throws {
        let lib = try LibraryStore()
        let book = lib.entity("Book")
        let keys = try lib.store.newPrimaryKeys(for: book, count: 1200)
        let ids = keys.map { ManagedObjectID(entity: book, storeIdentifier: lib.store.identifier, primaryKey: $0) }
        _ = try lib.store.save(StoreSaveRequest(inserted: ids.map { lib.change($0, ["title": .string("b\($0.primaryKey ?? 0)")]) }))
        let missing = ManagedObjectID(entity: book, storeIdentifier: lib.store.identifier, primaryKey: 99_999)
        let rows = try lib.store.rows(for: ids + [missing])
        #expect(rows.count == 1200)
        #expect(Set(rows.map(\.objectID)) == Set(ids))
        #expect(try lib.store.count(StoreFetchRequest(entity: book)) == 1200)
    }

    @Test func concurrentCallsAreSerialised() async throws {
        let lib = try LibraryStore()
        let store = lib.store
        let book = lib.entity("Book")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for t in 0..<8 {
                group.addTask {
                    for i in 0..<20 {
                        let pk = try store.newPrimaryKeys(for: book, count: 1)[0]
                        let id = ManagedObjectID(entity: book, storeIdentifier: store.identifier, primaryKey: pk)
                        var values = book.allAttributes.map(\.defaultValue)
                        values[book.attributeSlots["title"] ?? 0] = .string("t\(t)-\(i)")
                        _ = try store.save(StoreSaveRequest(inserted: [StoreRowChange(objectID: id, values: values, toOne: Array(repeating: nil, count: book.allRelationships.count), expectedVersion: 0)]))
                        _ = try store.count(StoreFetchRequest(entity: book))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try store.count(StoreFetchRequest(entity: book)) == 160)
    }

    @Test func insertingManyRowsIsFast() throws {
        let lib = try LibraryStore()
        let book = lib.entity("Book")
        let n = 20_000
        let keys = try lib.store.newPrimaryKeys(for: book, count: n)
        let changes = keys.map { pk in
            lib.change(ManagedObjectID(entity: book, storeIdentifier: lib.store.identifier, primaryKey: pk),
                       ["title": .string("Book \(pk)"), "pages": .integer(pk), "rating": .double(Double(pk) / 3)])
        }
        let start = Date()
        _ = try lib.store.save(StoreSaveRequest(inserted: changes))
        let elapsed = Date().timeIntervalSince(start)
        #expect(try lib.store.count(StoreFetchRequest(entity: book)) == n)
        #expect(elapsed < 5, "inserting \(n) rows took \(elapsed)s")
    }
}
