import Foundation

@testable import CoreStack

/// A library model with inheritance (GraphicNovel < Book), a many-to-many (Author.books ↔
/// Book.authors), an ordered to-many (Book.chapters ↔ Chapter.book), a one-to-one (Book.cover ↔
/// Cover.book), a to-one (Book.publisher ↔ Publisher.books), a uniqueness constraint and a fetch
/// index; and helpers that write rows into a fresh SQLite store of it.
///
/// Entity numbers: Author 1, Book 2, GraphicNovel 3, Chapter 4, Cover 5, Publisher 6.
final class LibraryStore {
    let folder: URL
    let url: URL
    let store: SQLiteStore
    var model: ManagedObjectModel { store.model }

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionName: "Library 1", versionIdentifiers: ["v1"]) {
            EntityDescription("Author", uniquenessConstraints: [["name"]]) {
                AttributeDescription("name", .string)
                AttributeDescription("born", .date)
                AttributeDescription("id", .uuid)
                AttributeDescription("scratch", .string, isTransient: true)
                RelationshipDescription("books", destination: "Book", inverse: "authors", toMany: true)
            }
            EntityDescription(
                "Book", fetchIndexes: [FetchIndexDescription(name: "byTitle", elements: [.init(property: "title")])]
            ) {
                AttributeDescription("title", .string)
                AttributeDescription("pages", .integer32)
                AttributeDescription("price", .decimal)
                AttributeDescription("rating", .double)
                AttributeDescription("published", .date)
                AttributeDescription("isbn", .uuid)
                AttributeDescription("inPrint", .boolean)
                AttributeDescription("site", .uri)
                AttributeDescription("blurb", .binaryData)
                RelationshipDescription("authors", destination: "Author", inverse: "books", toMany: true)
                RelationshipDescription("publisher", destination: "Publisher", inverse: "books")
                RelationshipDescription("chapters", destination: "Chapter", inverse: "book", toMany: true, isOrdered: true)
                RelationshipDescription("cover", destination: "Cover", inverse: "book")
            }
            EntityDescription("GraphicNovel", parent: "Book") {
                AttributeDescription("illustrator", .string)
            }
            EntityDescription("Chapter") {
                AttributeDescription("title", .string)
                AttributeDescription("number", .integer16)
                RelationshipDescription("book", destination: "Book", inverse: "chapters")
            }
            EntityDescription("Cover") {
                AttributeDescription("color", .string)
                RelationshipDescription("book", destination: "Book", inverse: "cover")
            }
            EntityDescription("Publisher") {
                AttributeDescription("name", .string)
                RelationshipDescription("books", destination: "Book", inverse: "publisher", toMany: true)
            }
        }
    }

    init(model: ManagedObjectModel? = nil) throws {
        folder = try Fixtures.temporaryFolder()
        url = folder.appendingPathComponent("Library.sqlite")
        store = try SQLiteStore(url: url, model: try model ?? Self.model())
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    func entity(_ name: String) -> EntityDescription {
        model.entity(named: name) ?? model.entities[0]
    }

    /// A full row change for `entity` from named values.
    func change(
        _ id: ManagedObjectID, _ values: [String: AttributeValue], toOne: [String: ManagedObjectID] = [:],
        expectedVersion: Int64 = 0, toMany: [ToManyChange] = []
    ) -> StoreRowChange {
        let e = id.entity
        var v = e.allAttributes.map(\.defaultValue)
        for (k, value) in values { if let slot = e.attributeSlots[k] { v[slot] = value } }
        var t = [ManagedObjectID?](repeating: nil, count: e.allRelationships.count)
        for (k, value) in toOne { if let slot = e.relationshipSlots[k] { t[slot] = value } }
        return StoreRowChange(objectID: id, values: v, toOne: t, expectedVersion: expectedVersion, toMany: toMany)
    }

    /// Inserts one object and returns its ID.
    @discardableResult
    func insert(_ entityName: String, _ values: [String: AttributeValue], toOne: [String: ManagedObjectID] = [:]) throws -> ManagedObjectID {
        let e = entity(entityName)
        let pk = try store.newPrimaryKeys(for: e, count: 1)[0]
        let id = ManagedObjectID(entity: e, storeIdentifier: store.identifier, primaryKey: pk)
        _ = try store.save(StoreSaveRequest(inserted: [change(id, values, toOne: toOne)]))
        return id
    }

    /// Links many-to-many destinations (both sides, as a context would report them).
    func link(_ source: ManagedObjectID, _ relationship: String, to destinations: [ManagedObjectID]) throws {
        let row = try requireRow(source)
        let slot = source.entity.relationshipSlots[relationship] ?? 0
        var c = StoreRowChange(objectID: source, values: row.snapshot.values, toOne: row.snapshot.toOne, expectedVersion: row.snapshot.version)
        c.toMany = [ToManyChange(slot: slot, current: destinations, added: destinations, removed: [])]
        _ = try store.save(StoreSaveRequest(updated: [c]))
    }

    func row(_ id: ManagedObjectID) throws -> StoreRow? { try store.rows(for: [id]).first }

    func requireRow(_ id: ManagedObjectID) throws -> StoreRow {
        guard let r = try row(id) else { throw CoreStackError.objectNotFound("\(id)") }
        return r
    }

    /// Values of a fetch, as strings, for compact expectations.
    func titles(_ entityName: String, _ predicate: CoreStack.Predicate?, key: String = "title", sort: [CoreStack.SortDescriptor] = [], limit: Int = 0, offset: Int = 0) throws -> [String] {
        let e = entity(entityName)
        let slot = e.attributeSlots[key] ?? 0
        let rows = try store.fetch(StoreFetchRequest(entity: e, predicate: predicate, sortDescriptors: sort, fetchLimit: limit, fetchOffset: offset))
        return rows.map { $0.snapshot.values[slot].description }
    }
}
