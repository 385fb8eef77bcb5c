import Foundation
import Testing

@testable import CoreStack

/// `SQLiteStore.rows(for:)` reads a run of consecutive keys with one `BETWEEN` and groups IDs by
/// table only when the entity changes: the rows it returns are exactly those asked for, whatever
/// the order, gaps, duplicates or mix of entities.
@Suite struct RowsByKeyRangeTests {
    /// Ten books with consecutive keys and two authors, saved.
    private func library() throws -> (LibraryStore, books: [ManagedObjectID], authors: [ManagedObjectID]) {
        let lib = try LibraryStore()
        var books: [ManagedObjectID] = []
        for i in 0..<10 { books.append(try lib.insert("Book", ["title": .string("b\(i)")])) }
        let authors = [try lib.insert("Author", ["name": "Le Guin"]), try lib.insert("Author", ["name": "Herbert"])]
        return (lib, books, authors)
    }

    @Test func aRunReadsExactlyItsKeys() throws {
        let (lib, books, _) = try library()
        let keys = books.compactMap(\.primaryKey)
        #expect(SQLiteStore.isRun(keys[...]))
        // The neighbours of the run are in the table but not asked for.
        let rows = try lib.store.rows(for: Array(books[2...6]))
        #expect(rows.map(\.objectID) == Array(books[2...6]))
        let titles = rows.map { $0.snapshot.values[lib.entity("Book").attributeSlots["title"] ?? 0] }
        #expect(titles == (2...6).map { .string("b\($0)") })
    }

    @Test func aRunOverADeletedRowLeavesItOut() throws {
        let (lib, books, _) = try library()
        let gone = try lib.requireRow(books[4])
        _ = try lib.store.save(StoreSaveRequest(deleted: [StoreRowDeletion(objectID: books[4], expectedVersion: gone.snapshot.version)]))
        let rows = try lib.store.rows(for: Array(books[2...6]))
        #expect(rows.map(\.objectID) == [books[2], books[3], books[5], books[6]])
    }

    @Test func keysOutOfOrderWithGapsOrRepeatedReadEachRowOnce() throws {
        let (lib, books, _) = try library()
        for ids in [[books[6], books[5], books[4]], [books[1], books[3], books[5]], [books[2], books[2], books[3]]] {
            let keys = ids.compactMap(\.primaryKey)
            #expect(!SQLiteStore.isRun(keys[...]))
            #expect(Set(try lib.store.rows(for: ids).map(\.objectID)) == Set(ids))
            #expect(try lib.store.rows(for: ids).count == Set(ids).count)
        }
    }

    @Test func entitiesInterleavedAreGroupedByTable() throws {
        let (lib, books, authors) = try library()
        let novel = try lib.insert("GraphicNovel", ["title": "Maus"])
        // Book, Author, GraphicNovel (Book's table), Book, Author: two tables.
        let ids = [books[0], authors[0], novel, books[1], authors[1]]
        let rows = try lib.store.rows(for: ids)
        #expect(rows.count == 5)
        #expect(Set(rows.map(\.objectID)) == Set(ids))
        // Tables in order of first appearance: Book's rows, then Author's.
        #expect(Set(rows.prefix(3).map(\.objectID)) == [books[0], novel, books[1]])
    }

    @Test func runsAtTheEndsOfTheKeyRange() {
        #expect(SQLiteStore.isRun([Int64.max - 1, Int64.max][...]))
        #expect(!SQLiteStore.isRun([Int64.max, Int64.max][...]))
        #expect(SQLiteStore.isRun([Int64.min, Int64.min + 1][...]))
        #expect(SQLiteStore.isRun([7][...]))
        #expect(!SQLiteStore.isRun([Int64]()[...]))
    }
}
