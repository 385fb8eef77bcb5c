import Foundation
import GRDB
import Testing

@testable import CoreStack

/// Stores with no model cache whose tables hold what Apple's larger stores hold: ordered
/// one-to-many and many-to-many relationships (`Z_FOK_` columns), R-tree indexes, persistent
/// history and CloudKit mirroring tables, and columns and tables nothing explains.
@Suite("schema inference on stores like Apple's system stores")
struct ForeignSchemaInferenceTests {
    /// A Core Data-style store made table by table (no Z_MODELCACHE): Album (1), Asset (2),
    /// Keyword (3); Asset.ALBUM is the foreign key of Album's ordered to-many (`Z_FOK_ALBUM`, no
    /// index), Asset ⇄ Keyword an ordered many-to-many; Core Data's own tables for history,
    /// CloudKit and an R-tree index; a stray order column `Z_FOK_GHOST` and a column `extra` in
    /// ZASSET; two tables no model explains (`NOTES`, `Z_9STRANGE`).
    static func makeStore() throws -> URL {
        let url = try Fixtures.temporaryFolder().appendingPathComponent("System.sqlite")
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            let plist = try PropertyListSerialization.data(
                fromPropertyList: ["NSStoreType": "SQLite", "NSPersistenceFrameworkVersion": 1_340] as [String: Any], format: .binary, options: 0)
            try db.execute(sql: """
                CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
                CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
                INSERT INTO Z_PRIMARYKEY VALUES (1, 'Album', 0, 2), (2, 'Asset', 0, 3), (3, 'Keyword', 0, 2),
                    (16001, 'NSCKRecordMetadata', 0, 0), (16002, 'Transaction', 0, 0), (16003, 'Change', 0, 0);
                CREATE TABLE ZALBUM (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTITLE VARCHAR);
                CREATE TABLE ZASSET (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZALBUM INTEGER, Z_FOK_ALBUM INTEGER,
                    Z_FOK_GHOST INTEGER, ZFILENAME VARCHAR, extra TEXT);
                CREATE TABLE ZKEYWORD (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR);
                CREATE TABLE Z_2KEYWORDS (Z_2ASSETS INTEGER, Z_3KEYWORDS INTEGER, Z_FOK_3KEYWORDS INTEGER, PRIMARY KEY (Z_2ASSETS, Z_3KEYWORDS));
                CREATE VIRTUAL TABLE Z_RT_Asset_location USING rtree (Z_PK, ZLATITUDE_MIN, ZLATITUDE_MAX);
                CREATE TABLE ATRANSACTION (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHOR VARCHAR, ZTIMESTAMP FLOAT);
                CREATE TABLE ACHANGE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER);
                CREATE TABLE ATRANSACTIONSTRING (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR);
                CREATE TABLE ANSCKRECORDMETADATA (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZENTITYID INTEGER, ZCKRECORDNAME VARCHAR);
                CREATE TABLE ANSCKMIRROREDRELATIONSHIP (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZRECORDNAME VARCHAR);
                CREATE TABLE Y_UBKVS_STORE (ZKEY VARCHAR, ZVALUE BLOB);
                CREATE TABLE NOTES (id INTEGER PRIMARY KEY, body TEXT);
                CREATE TABLE Z_9STRANGE (Z_1A INTEGER, Z_2B INTEGER, Z_3C INTEGER);
                INSERT INTO ZALBUM VALUES (1, 1, 1, 'Holidays'), (2, 1, 1, 'Empty');
                INSERT INTO ZASSET VALUES (1, 2, 1, 1, 2048, NULL, 'b.jpg', 'x'), (2, 2, 1, 1, 1024, 7, 'a.jpg', NULL),
                    (3, 2, 1, NULL, NULL, NULL, 'c.jpg', NULL);
                INSERT INTO ZKEYWORD VALUES (1, 3, 1, 'sea'), (2, 3, 1, 'sun');
                INSERT INTO Z_2KEYWORDS VALUES (1, 2, 1024), (1, 1, 2048), (2, 1, 1024);
                INSERT INTO Z_RT_Asset_location VALUES (1, 45.0, 45.0);
                """)
            try db.execute(sql: "INSERT INTO Z_METADATA VALUES (1, 'A1B2C3D4-0000-0000-0000-000000000001', ?)", arguments: [plist])
        }
        try queue.close()
        return url
    }

    @Test("ordered one-to-many from a Z_FOK_ column, ordered many-to-many from a join table; Core Data's own tables are never entities")
    func orderedRelationshipsAndOwnTables() throws {
        let url = try Self.makeStore()
        let model = try SQLiteStore.inferredModel(at: url)
        #expect(model.entities.map(\.name) == ["Album", "Asset", "Keyword"])
        let asset = try #require(model.entity(named: "Asset"))
        #expect(asset.relationship(named: "ALBUM")?.destinationEntityName == "Album")
        let assets = try #require(model.entity(named: "Album")?.relationship(named: "ASSETS"))
        #expect(assets.isToMany && assets.isOrdered && assets.inverseName == "ALBUM")
        let keywords = try #require(asset.relationship(named: "KEYWORDS"))
        #expect(keywords.isToMany && keywords.isOrdered && keywords.destinationEntityName == "Keyword")
        #expect(model.entity(named: "Keyword")?.relationship(named: "ASSETS")?.inverseName == "KEYWORDS")

        let store = try SQLiteStore(url: url, model: model, readOnly: true)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(store)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait {
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Album")) == 2)
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Asset")) == 3)
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Keyword")) == 2)
            let albums = try context.fetch(FetchRequest<ManagedObject>(entityName: "Album", sortDescriptors: [SortDescriptor("TITLE")]))
            let holidays = try #require(albums.last)
            // In Z_FOK_ALBUM order: a.jpg (1024) before b.jpg (2048).
            #expect(try holidays.objects(forKey: "ASSETS").map { try $0.value(forKey: "FILENAME") as? String } == ["a.jpg", "b.jpg"])
            let first = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Asset", sortDescriptors: [SortDescriptor("FILENAME")])).last { try $0.value(forKey: "FILENAME") as? String == "b.jpg" })
            #expect(try first.objects(forKey: "KEYWORDS").map { try $0.value(forKey: "NAME") as? String } == ["sun", "sea"])
        }
        try coordinator.remove(store)
        store.close()
    }

    @Test("columns nothing explains are raw attributes, read as they are; unexplained tables are reported; a read-write open refuses the model naming the columns")
    func rawColumnsAndUnexplainedTables() throws {
        let url = try Self.makeStore()
        let before = try Data(contentsOf: url)
        let model = try SQLiteStore.inferredModel(at: url)
        let asset = try #require(model.entity(named: "Asset"))
        let raw = asset.attributes.filter(\.isRaw)
        #expect(raw.map(\.name) == ["Z_FOK_GHOST", "extra"])
        #expect(raw.map(\.rawColumn) == ["Z_FOK_GHOST", "extra"])
        #expect(raw.map(\.type) == [.integer64, .string])
        #expect(!model.entities.flatMap(\.attributes).contains { $0.isRaw && !raw.contains($0) })

        let report = try SQLiteStore.schemaReport(model: model, at: url)
        #expect(report.rawColumns == ["ZASSET.Z_FOK_GHOST", "ZASSET.extra"])
        #expect(report.unexplainedTables == ["NOTES", "Z_9STRANGE"])
        for own in ["ACHANGE", "ANSCKMIRROREDRELATIONSHIP", "ANSCKRECORDMETADATA", "ATRANSACTION", "ATRANSACTIONSTRING", "Y_UBKVS_STORE",
                    "Z_METADATA", "Z_PRIMARYKEY", "Z_RT_Asset_location", "Z_RT_Asset_location_node", "Z_RT_Asset_location_parent", "Z_RT_Asset_location_rowid"] {
            #expect(report.coreDataTables.contains(own), "\(own)")
        }
        #expect(report.summary == "2 columns read raw (ZASSET.Z_FOK_GHOST, ZASSET.extra); 2 tables outside the model (NOTES, Z_9STRANGE)")

        let store = try SQLiteStore(url: url, model: model, readOnly: true)
        #expect(try store.schemaReport() == report)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(store)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait {
            let rows = try context.fetch(FetchRequest<ManagedObject>(entityName: "Asset", sortDescriptors: [SortDescriptor("FILENAME")]))
            #expect(try rows.map { try $0.value(forKey: "extra") as? String } == [nil, "x", nil])
            #expect(try rows.map { try $0.value(forKey: "Z_FOK_GHOST") as? Int64 } == [7, nil, nil])
            // Raw attributes filter and sort like any other.
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Asset", predicate: .key("extra") == "x")) == 1)
            let byGhost = try context.fetch(FetchRequest<ManagedObject>(entityName: "Asset", sortDescriptors: [SortDescriptor("Z_FOK_GHOST", ascending: false)]))
            #expect(try byGhost.first?.value(forKey: "FILENAME") as? String == "a.jpg")
        }
        try coordinator.remove(store)
        store.close()

        #expect(throws: CoreStackError.self) { try SQLiteStore(url: url, model: model) }
        do {
            _ = try SQLiteStore(url: url, model: model)
        } catch let CoreStackError.modelMismatch(_, differences) {
            #expect(differences.contains { $0.contains("column Z_FOK_GHOST is read raw") })
            #expect(differences.contains { $0.contains("column extra is read raw") })
        }
        #expect(try Data(contentsOf: url) == before)
    }

    @Test("a model cache that does not explain every column reads the rest raw through readingModel(for:at:)")
    func storedModelWithExtraColumns() throws {
        let url = try Fixtures.copyStore("stores/bnr-CoreDataStack/TestModel.sqlite")
        let stored = try #require(try SQLiteStore.storedModel(at: url))
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            try db.execute(sql: "ALTER TABLE ZBOOK ADD COLUMN ZADDEDLATER VARCHAR")
            try db.execute(sql: "UPDATE ZBOOK SET ZADDEDLATER = 'later'")
        }
        try queue.close()
        #expect(throws: CoreStackError.self) { try SQLiteStore(url: url, model: stored, readOnly: true) }
        let reading = try SQLiteStore.readingModel(for: stored, at: url)
        #expect(reading.entity(named: "Book")?.attribute(named: "ZADDEDLATER")?.rawColumn == "ZADDEDLATER")
        #expect(reading.origin == .storeModelCache)
        let store = try SQLiteStore(url: url, model: reading, readOnly: true)
        #expect(try store.schemaReport().rawColumns == ["ZBOOK.ZADDEDLATER"])
        store.close()
        // Nothing to add: the same model back.
        let plain = try Fixtures.copyStore("stores/bnr-CoreDataStack/TestModel.sqlite")
        let own = try #require(try SQLiteStore.storedModel(at: plain))
        #expect(try SQLiteStore.readingModel(for: own, at: plain) === own)
    }

    @Test("a model cache with entities the store does not hold (a store of one configuration): they are left out of the reading model, with the relationships to them, and reported")
    func entitiesNotInStoreAreLeftOut() throws {
        let folder = try Fixtures.temporaryFolder()
        let url = folder.appendingPathComponent("Local.sqlite")
        let local = try ManagedObjectModel {
            EntityDescription("Album") { AttributeDescription("name", .string) }
        }
        let full = try ManagedObjectModel {
            EntityDescription("Album") {
                AttributeDescription("name", .string)
                RelationshipDescription("ghosts", destination: "Ghost", inverse: "album", toMany: true)
            }
            EntityDescription("Ghost") {
                AttributeDescription("name", .string)
                RelationshipDescription("album", destination: "Album", inverse: "ghosts")
            }
        }
        let created = try SQLiteStore(url: url, model: local)
        created.close()
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO ZALBUM (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (1, 1, 1, 'a'), (2, 1, 1, 'b')")
            try db.execute(sql: "UPDATE Z_MODELCACHE SET Z_CONTENT = ?", arguments: [try full.archivedModelCache()])
            try db.execute(sql: "UPDATE Z_METADATA SET Z_PLIST = ?", arguments: [try ModelCacheMetadataTests.applePlist()])
        }
        try queue.close()
        let stored = try #require(try SQLiteStore.storedModel(at: url))
        #expect(throws: CoreStackError.self) { try SQLiteStore(url: url, model: stored, readOnly: true) }
        let report = try SQLiteStore.schemaReport(model: stored, at: url)
        #expect(report.entitiesNotInStore == ["Ghost"])
        #expect(report.summary == "1 entity of the model not in the store (Ghost)")
        let reading = try SQLiteStore.readingModel(for: stored, at: url)
        #expect(reading.entities.map(\.name) == ["Album"])
        #expect(reading.entity(named: "Album")?.relationship(named: "ghosts") == nil)
        let store = try SQLiteStore(url: url, model: reading, readOnly: true)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: reading)
        try coordinator.addPersistentStore(store)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        #expect(try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Album")) } == 2)
        try coordinator.remove(store)
        store.close()
    }
}

extension ForeignSchemaInferenceTests {
    @Test("every Apple-written fixture store is understood whole by its model cache and by inference: no raw column, no unexplained table")
    func fixturesUnderstoodBothWays() throws {
        for (path, _) in ModelArchiveTests.stores {
            let url = try Fixtures.copyStore(path)
            let stored = try #require(try SQLiteStore.storedModel(at: url))
            let fromCache = try SQLiteStore.schemaReport(model: stored, at: url)
            #expect(fromCache.isComplete, "\(path) with its cache: \(fromCache.summary ?? "")")
            let inferred = try SQLiteStore.inferredModel(at: url)
            let fromTables = try SQLiteStore.schemaReport(model: inferred, at: url)
            #expect(fromTables.isComplete, "\(path) inferred: \(fromTables.summary ?? "")")
            #expect(inferred.entities.flatMap(\.attributes).filter(\.isRaw).isEmpty, "\(path)")
        }
    }
}

extension ForeignSchemaInferenceTests {
    @Test("an attribute of the model cache whose column the store lacks is left out of the reading model and reported; the rest reads")
    func attributeWithoutColumnIsLeftOut() throws {
        let url = try Fixtures.copyStore("stores/bnr-CoreDataStack/TestModel.sqlite")
        let stored = try #require(try SQLiteStore.storedModel(at: url))
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in try db.execute(sql: "ALTER TABLE ZBOOK DROP COLUMN ZTITLE") }
        try queue.close()
        #expect(throws: CoreStackError.self) { try SQLiteStore(url: url, model: stored, readOnly: true) }
        let report = try SQLiteStore.schemaReport(model: stored, at: url)
        #expect(report.missingColumns == ["ZBOOK.ZTITLE"])
        #expect(report.summary == "1 attribute of the model without a column (ZBOOK.ZTITLE)")
        let reading = try SQLiteStore.readingModel(for: stored, at: url)
        #expect(reading.entity(named: "Book")?.attribute(named: "title") == nil)
        #expect(reading.entity(named: "Book")?.relationship(named: "authors") != nil)
        let store = try SQLiteStore(url: url, model: reading, readOnly: true)
        store.close()
    }
}
