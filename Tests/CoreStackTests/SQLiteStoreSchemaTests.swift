import Foundation
import Testing

@testable import CoreStack

/// The exact schema CoreStack writes for the library model, and its bookkeeping tables.
@Suite struct SQLiteStoreSchemaTests {
    private func master(_ url: URL) throws -> [String: String] {
        var result: [String: String] = [:]
        for row in try RawSQLite.run("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'", in: url) {
            if let name = row["name"] as? String, let type = row["type"] as? String { result[name] = type }
        }
        return result
    }

    private func columns(_ table: String, _ url: URL) throws -> [String] {
        try RawSQLite.run("SELECT name, type FROM pragma_table_info('\(table)') ORDER BY cid", in: url)
            .map { "\($0["name"] as? String ?? "?") \($0["type"] as? String ?? "?")" }
    }

    @Test func tablesColumnsAndIndexes() throws {
        let lib = try LibraryStore()
        let url = lib.url
        #expect(try master(url) == [
            "ZAUTHOR": "table", "ZBOOK": "table", "ZCHAPTER": "table", "ZCOVER": "table", "ZPUBLISHER": "table",
            "Z_1BOOKS": "table", "Z_PRIMARYKEY": "table", "Z_METADATA": "table", "Z_MODELCACHE": "table",
            "Z_1BOOKS_Z_2BOOKS_INDEX": "index", "ZBOOK_ZCOVER_INDEX": "index", "ZBOOK_ZPUBLISHER_INDEX": "index",
            "ZBOOK_Z_ENT_INDEX": "index", "ZCHAPTER_ZBOOK_INDEX": "index", "ZCOVER_ZBOOK_INDEX": "index",
            "Z_Author_UNIQUE_name": "index", "Z_Book_byTitle": "index",
        ])
        #expect(try columns("ZAUTHOR", url) == [
            "Z_PK INTEGER", "Z_ENT INTEGER", "Z_OPT INTEGER", "ZBORN TIMESTAMP", "ZNAME VARCHAR", "ZID BLOB",
        ])
        // GraphicNovel's illustrator lives in Book's table; transient Author.scratch has no column.
        #expect(try columns("ZBOOK", url) == [
            "Z_PK INTEGER", "Z_ENT INTEGER", "Z_OPT INTEGER", "ZCOVER INTEGER", "ZINPRINT INTEGER", "ZPAGES INTEGER",
            "ZPUBLISHER INTEGER", "ZRATING FLOAT", "ZPUBLISHED TIMESTAMP", "ZPRICE DECIMAL", "ZSITE VARCHAR",
            "ZTITLE VARCHAR", "ZILLUSTRATOR VARCHAR", "ZBLURB BLOB", "ZISBN BLOB",
        ])
        // Book has a sub-entity: the to-one keeps the destination's Z_ENT in Z2_BOOK; the ordered
        // to-many Book.chapters keeps its order in Z_FOK_BOOK.
        #expect(try columns("ZCHAPTER", url) == [
            "Z_PK INTEGER", "Z_ENT INTEGER", "Z_OPT INTEGER", "ZBOOK INTEGER", "Z2_BOOK INTEGER", "ZNUMBER INTEGER",
            "Z_FOK_BOOK INTEGER", "ZTITLE VARCHAR",
        ])
        // One-to-one: a column on both sides.
        #expect(try columns("ZCOVER", url) == [
            "Z_PK INTEGER", "Z_ENT INTEGER", "Z_OPT INTEGER", "ZBOOK INTEGER", "Z2_BOOK INTEGER", "ZCOLOR VARCHAR",
        ])
        #expect(try columns("Z_1BOOKS", url) == ["Z_1AUTHORS INTEGER", "Z_2BOOKS INTEGER"])
        let sql = try RawSQLite.run("SELECT name, sql FROM sqlite_master WHERE type = 'index'", in: url)
            .reduce(into: [String: String]()) { $0[$1["name"] as? String ?? ""] = $1["sql"] as? String }
        #expect(sql["Z_1BOOKS_Z_2BOOKS_INDEX"] == "CREATE INDEX Z_1BOOKS_Z_2BOOKS_INDEX ON Z_1BOOKS (Z_2BOOKS, Z_1AUTHORS)")
        #expect(sql["Z_Author_UNIQUE_name"] == "CREATE UNIQUE INDEX Z_Author_UNIQUE_name ON ZAUTHOR (ZNAME COLLATE BINARY ASC)")
        #expect(sql["ZBOOK_Z_ENT_INDEX"] == "CREATE INDEX ZBOOK_Z_ENT_INDEX ON ZBOOK (Z_ENT)")
        let pk = try RawSQLite.run("SELECT sql FROM sqlite_master WHERE name = 'Z_1BOOKS'", in: url).first?["sql"] as? String
        #expect(pk?.contains("PRIMARY KEY (Z_1AUTHORS, Z_2BOOKS)") == true)
        #expect(try RawSQLite.scalar("PRAGMA auto_vacuum", in: url) == 2)
        let journal = try RawSQLite.run("PRAGMA journal_mode", in: url).first?.values.first as? String
        #expect(journal == "wal")
    }

    @Test func primaryKeyTableNumbersEntitiesLikeCoreData() throws {
        let lib = try LibraryStore()
        let rows = try RawSQLite.run("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT", in: lib.url)
        let text = rows.map { "\($0["Z_ENT"] ?? "") \($0["Z_NAME"] ?? "") \($0["Z_SUPER"] ?? "") \($0["Z_MAX"] ?? "")" }
        #expect(text == ["1 Author 0 0", "2 Book 0 0", "3 GraphicNovel 2 0", "4 Chapter 0 0", "5 Cover 0 0", "6 Publisher 0 0"])
        #expect(try lib.store.storeEntities().map(\.name) == ["Author", "Book", "GraphicNovel", "Chapter", "Cover", "Publisher"])
    }

    @Test func metadataPlist() throws {
        let lib = try LibraryStore()
        let row = try RawSQLite.run("SELECT Z_VERSION, Z_UUID, hex(Z_PLIST) AS plist FROM Z_METADATA", in: lib.url)
        let first = try #require(row.first)
        #expect((first["Z_VERSION"] as? NSNumber)?.intValue == 1)
        let uuid = try #require(first["Z_UUID"] as? String)
        #expect(uuid == uuid.uppercased() && UUID(uuidString: uuid) != nil)
        #expect(uuid == lib.store.identifier)
        let hex = try #require(first["plist"] as? String)
        var bytes = [UInt8]()
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 2)
            bytes.append(UInt8(hex[i..<j], radix: 16) ?? 0)
            i = j
        }
        #expect(bytes.starts(with: Array("bplist00".utf8)))
        var format = PropertyListSerialization.PropertyListFormat.xml
        let plist = try #require(try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: &format) as? [String: Any])
        #expect(format == .binary)
        #expect(plist["NSStoreType"] as? String == "SQLite")
        #expect((plist["NSPersistenceFrameworkVersion"] as? NSNumber)?.intValue == SQLiteStore.frameworkVersion)
        #expect((plist["NSStoreModelVersionHashesVersion"] as? NSNumber)?.intValue == 3)
        #expect(plist["_NSAutoVacuumLevel"] as? String == "2")
        #expect(plist["NSStoreModelVersionIdentifiers"] as? [String] == ["v1"])
        #expect(plist["CoreStackModelVersionName"] as? String == "Library 1")
        #expect(plist["NSStoreUUID"] == nil)
        let hashes = try #require(plist["NSStoreModelVersionHashes"] as? [String: Any])
        #expect(Set(hashes.keys) == Set(lib.model.entities.map(\.name)))
        for e in lib.model.entities {
            let h = hashes[e.name] as? Data
            #expect(h == e.versionHash)
            #expect(h?.count == 32)
        }
        let metadata = try SQLiteStore.metadata(at: lib.url)
        #expect(metadata == lib.store.metadata)
        #expect(metadata.versionHashes == lib.model.entityVersionHashes)
    }

    @Test func reopensWithTheSameModelAndRefusesAnother() throws {
        let lib = try LibraryStore()
        let author = try lib.insert("Author", ["name": "Le Guin"])
        let reopened = try SQLiteStore(url: lib.url, model: try LibraryStore.model())
        #expect(reopened.identifier == lib.store.identifier)
        #expect(try reopened.count(StoreFetchRequest(entity: try reopened.model.requireEntity("Author"))) == 1)
        _ = author
        let other = try ManagedObjectModel(versionName: "Other") {
            EntityDescription("Author") { AttributeDescription("name", .string) }
        }
        #expect {
            try SQLiteStore(url: lib.url, model: other)
        } throws: { error in
            guard case let CoreStackError.modelMismatch(path, differences) = error else { return false }
            return path == lib.url.path && differences.contains { $0.contains("Author") } && differences.contains { $0.contains("Book") }
        }
        // A bundle whose current version matches opens it; one with only another version does not.
        let bundle = ManagedObjectModelBundle(name: "Library", versions: [other, try LibraryStore.model()], currentVersion: try LibraryStore.model())
        #expect(try SQLiteStore.open(url: lib.url, bundle: bundle, readOnly: true).model.versionName == "Library 1")
        let stale = ManagedObjectModelBundle(name: "Library", versions: [try LibraryStore.model(), other], currentVersion: other)
        #expect(throws: CoreStackError.migrationRequired(path: lib.url.path, storeVersion: "Library 1", currentVersion: "Other")) {
            try SQLiteStore.open(url: lib.url, bundle: stale, readOnly: false)
        }
    }

    @Test func coreStackStoresAreMatchedByVersionHash() throws {
        let v1 = try ManagedObjectModel(versionName: "Notes 1") {
            EntityDescription("Note") { AttributeDescription("text", .string) }
        }
        // Same tables and columns, another version hash (the attribute became required).
        let v2 = try ManagedObjectModel(versionName: "Notes 2") {
            EntityDescription("Note") { AttributeDescription("text", .string, isOptional: false) }
        }
        let lib = try LibraryStore(model: v1)
        #expect {
            try SQLiteStore(url: lib.url, model: v2)
        } throws: { error in
            guard case let CoreStackError.modelMismatch(_, differences) = error else { return false }
            return differences == ["entity Note: its version hash differs from the store's"]
        }
        let bundle = ManagedObjectModelBundle(name: "Notes", versions: [v1, v2], currentVersion: v2)
        #expect(try SQLiteStore.open(url: lib.url, bundle: bundle, readOnly: true).model === v1)
    }

    @Test func orderedManyToManyKeepsItsOrderInTheJoinTable() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Playlist") {
                AttributeDescription("name", .string)
                RelationshipDescription("songs", destination: "Song", inverse: "playlists", toMany: true, isOrdered: true)
            }
            EntityDescription("Song") {
                AttributeDescription("title", .string)
                RelationshipDescription("playlists", destination: "Playlist", inverse: "songs", toMany: true)
            }
        }
        let lib = try LibraryStore(model: model)
        #expect(try columns("Z_1SONGS", lib.url) == ["Z_1PLAYLISTS INTEGER", "Z_2SONGS INTEGER", "Z_FOK_2SONGS INTEGER"])
        let list = try lib.insert("Playlist", ["name": "mix"])
        let a = try lib.insert("Song", ["title": "a"]), b = try lib.insert("Song", ["title": "b"]), c = try lib.insert("Song", ["title": "c"])
        try lib.link(list, "songs", to: [c, a, b])
        let playlist = try #require(model.entity(named: "Playlist")), song = try #require(model.entity(named: "Song"))
        #expect(try lib.store.relatedObjectIDs(for: [list], relationshipSlot: playlist.relationshipSlots["songs"] ?? 0)[list] == [c, a, b])
        #expect(try lib.store.relatedObjectIDs(for: [a], relationshipSlot: song.relationshipSlots["playlists"] ?? 0)[a] == [list])
        #expect(try RawSQLite.scalar("SELECT Z_FOK_2SONGS FROM Z_1SONGS WHERE Z_2SONGS = \(b.primaryKey ?? 0)", in: lib.url) == 3072)
    }

    @Test func newStoreFromABundleUsesTheCurrentVersion() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("New.sqlite")
        let store = try SQLiteStore.open(url: url, bundle: ManagedObjectModelBundle(model: try LibraryStore.model()), readOnly: false)
        #expect(store.model.versionName == "Library 1")
        #expect(FileManager.default.fileExists(atPath: url.path))
        #expect(throws: CoreStackError.self) {
            try SQLiteStore.open(url: folder.appendingPathComponent("Missing.sqlite"), bundle: ManagedObjectModelBundle(model: try LibraryStore.model()), readOnly: true)
        }
        #expect(throws: CoreStackError.self) {
            try SQLiteStore(url: folder.appendingPathComponent("no/such/folder/X.sqlite"), model: try LibraryStore.model())
        }
    }

    @Test func collidingColumnNamesGetDigitSuffixes() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Item", isAbstract: true) { AttributeDescription("name", .string) }
            EntityDescription("Film", parent: "Item") { AttributeDescription("title", .string) }
            EntityDescription("Song", parent: "Item") {
                AttributeDescription("title", .integer32)
                AttributeDescription("Name2", .string)
            }
            EntityDescription("Tag") {
                AttributeDescription("label", .string)
                AttributeDescription("Label", .string)
                RelationshipDescription("related", destination: "Tag", inverse: "related", toMany: true)
                RelationshipDescription("children", destination: "Tag", toMany: true, isOrdered: true)
            }
        }
        let lib = try LibraryStore(model: model)
        let url = lib.url
        #expect(try columns("ZITEM", url) == [
            "Z_PK INTEGER", "Z_ENT INTEGER", "Z_OPT INTEGER", "ZTITLE2 INTEGER", "ZNAME VARCHAR", "ZTITLE1 VARCHAR", "ZNAME2 VARCHAR",
        ])
        #expect(try columns("ZTAG", url) == ["Z_PK INTEGER", "Z_ENT INTEGER", "Z_OPT INTEGER", "ZLABEL1 VARCHAR", "ZLABEL2 VARCHAR"])
        // A relationship that is its own inverse; a to-many without an inverse (CoreStack's mapping).
        #expect(try columns("Z_4RELATED", url) == ["REFLEXIVE INTEGER", "Z_4RELATED INTEGER"])
        #expect(try columns("Z_4CHILDREN", url) == ["Z_4SOURCE INTEGER", "Z_4CHILDREN INTEGER", "Z_FOK_4CHILDREN INTEGER"])
        let film = try #require(model.entity(named: "Film"))
        let song = try #require(model.entity(named: "Song"))
        let f = try lib.insert("Film", ["name": "Alien", "title": "Alien (1979)"])
        let s = try lib.insert("Song", ["name": "Hurt", "title": 3])
        #expect(try lib.requireRow(f).snapshot.values[film.attributeSlots["title"] ?? 0] == "Alien (1979)")
        #expect(try lib.requireRow(s).snapshot.values[song.attributeSlots["title"] ?? 0] == 3)
        let tag = try #require(model.entity(named: "Tag"))
        let a = try lib.insert("Tag", ["label": "a"]), b = try lib.insert("Tag", ["label": "b"]), c = try lib.insert("Tag", ["label": "c"])
        try lib.link(a, "children", to: [c, b])
        try lib.link(a, "related", to: [b])
        let children = try lib.store.relatedObjectIDs(for: [a, b], relationshipSlot: tag.relationshipSlots["children"] ?? 0)
        #expect(children[a] == [c, b])
        #expect(children[b] == [])
        let related = try lib.store.relatedObjectIDs(for: [a], relationshipSlot: tag.relationshipSlots["related"] ?? 0)
        #expect(related[a] == [b])
    }
}
