import CoreStack
import Foundation
import StackScope
import Testing

/// What a store holds that its model does not explain never stops a read-only open: info says it
/// in one line, `--schema` marks raw columns; when nothing can read the store the error names why.
@Suite("stores with columns and tables nothing explains")
struct NotUnderstoodTests {
    @Test("every Apple-written fixture store is understood whole: no raw column, no unexplained table")
    func fixturesUnderstood() throws {
        for names in StoreOwnModelTests.stores {
            let url = try StoreOwnModelTests.copy(names)
            let session = try StoreSession.open(storePath: url.path, modelPath: nil)
            #expect(session.notUnderstood == nil, "\(names[0]): \(session.notUnderstood ?? "")")
            #expect(session.schemaReport?.coreDataTables.contains("Z_PRIMARYKEY") == true)
            session.close()
        }
    }

    @Test("a column the model cache does not explain is read raw and a stray table reported; counts stay those of sqlite3; the file is unchanged")
    func rawColumnAndStrayTable() throws {
        let url = try StoreOwnModelTests.copy(["bnr-CoreDataStack/TestModel.sqlite"])
        _ = try StoreOwnModelTests.sqlite3(
            "ALTER TABLE ZBOOK ADD COLUMN ZADDEDLATER VARCHAR; UPDATE ZBOOK SET ZADDEDLATER = 'later'; CREATE TABLE NOTES (body TEXT);",
            url, readOnly: false)
        let before = try TestSupport.checksum(url)
        let info = try InfoCommand.info(storePath: url.path)
        #expect(info.modelSource == "stored in the store (Z_MODELCACHE)")
        #expect(info.notUnderstood == "1 column read raw (ZBOOK.ZADDEDLATER); 1 table outside the model (NOTES)")
        #expect(info.unexplainedTables == ["NOTES"])
        let counts = Dictionary(uniqueKeysWithValues: info.entities.map { ($0.name, $0.count) })
        #expect(counts == (try StoreOwnModelTests.sqliteCounts(url)))
        let text = InfoCommand.renderText(info, schema: true)
        #expect(text.contains("Not understood:    1 column read raw (ZBOOK.ZADDEDLATER); 1 table outside the model (NOTES)"))
        #expect(text.split(separator: "\n").contains { $0.contains("ZADDEDLATER") && $0.contains("raw column ZADDEDLATER") })
        let json = try #require(try TestSupport.parseJSON(InfoCommand.renderJSON(info)) as? [String: Any])
        #expect(json["unexplainedTables"] as? [String] == ["NOTES"])
        #expect(try TestSupport.checksum(url) == before)
    }

    @Test("when neither the model cache nor inference can read the store, the error names both reasons: the cache's damage and what in the tables the inferred model does not fit")
    func errorNamesTheReasons() throws {
        // A store CoreStack wrote is matched by its version hashes, which an inferred model never has.
        let url = try TestSupport.temporaryDirectory().appendingPathComponent("Written.sqlite")
        let model = try ManagedObjectModel { EntityDescription("Note") { AttributeDescription("body", .string) } }
        try SQLiteStore(url: url, model: model).close()
        _ = try StoreOwnModelTests.sqlite3("UPDATE Z_MODELCACHE SET Z_CONTENT = x'FFFFFFFF';", url, readOnly: false)
        do {
            _ = try StoreSession.open(storePath: url.path, modelPath: nil)
            Issue.record("the store opened")
        } catch let error as StackScopeError {
            guard case let .noReadableModel(_, reasons) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(reasons.count == 2)
            #expect(reasons.first?.contains("model cache cannot be read (deflate stream") == true)
            #expect(reasons.last?.contains("the model inferred from its tables does not fit them (entity Note: its version hash differs") == true)
            #expect(error.description.contains("pass --model"))
        }
    }

    @Test("a column whose name is no SQL identifier (a space, a quote) is read raw too, quoted")
    func oddColumnNameIsReadRaw() throws {
        let url = try StoreOwnModelTests.copy(["wibosco-CoreDataMigration-Example/CoreDataMigration_Example_3.sqlite"])
        _ = try StoreOwnModelTests.sqlite3(#"ALTER TABLE ZPOST ADD COLUMN "odd ""name" TEXT; UPDATE ZPOST SET "odd ""name" = 'odd';"#, url, readOnly: false)
        let session = try StoreSession.open(storePath: url.path, modelPath: nil)
        #expect(session.modelSource == "stored in the store (Z_MODELCACHE)")
        #expect(session.notUnderstood == #"1 column read raw (ZPOST.odd "name)"#)
        let values = try session.context.performAndWait {
            try session.context.fetch(FetchRequest<ManagedObject>(entityName: "Post")).map { try $0.value(forKey: #"odd "name"#) as? String }
        }
        #expect(!values.isEmpty && values.allSatisfy { $0 == "odd" })
        session.close()
    }

    @Test("a model cache that does not fit the store's tables: opened with an inferred model, the warning says which table or column did not fit")
    func unfitCacheSaysWhy() throws {
        let url = try StoreOwnModelTests.copy(["bnr-CoreDataStack/TestModel.sqlite"])
        // The cache of another model: its one entity has none of the store's tables.
        let model = try ManagedObjectModel { EntityDescription("Book") { AttributeDescription("title", .string) } }
        let hex = try model.archivedModelCache().map { String(format: "%02X", $0) }.joined()
        _ = try StoreOwnModelTests.sqlite3("UPDATE Z_MODELCACHE SET Z_CONTENT = x'\(hex)';", url, readOnly: false)
        let session = try StoreSession.open(storePath: url.path, modelPath: nil)
        #expect(session.modelSource == "inferred from the schema")
        #expect(session.warnings.first?.contains("the store's model cache does not fit its tables (") == true)
        #expect(session.warnings.first?.contains("Author") == true)
        session.close()
    }

    @Test("a model cache with an entity the store does not hold opens without it, with a warning naming it, and the same counts")
    func cacheWithAnEntityTheStoreLacks() throws {
        let url = try StoreOwnModelTests.copy(["bnr-CoreDataStack/TestModel.sqlite"])
        let own = try #require(try SQLiteStore.storedModel(at: url))
        let ghost = EntityDescription("Ghost") { AttributeDescription("name", .string) }
        let larger = try ManagedObjectModel(entities: own.entities + [ghost])
        let hex = try larger.archivedModelCache().map { String(format: "%02X", $0) }.joined()
        _ = try StoreOwnModelTests.sqlite3("UPDATE Z_MODELCACHE SET Z_CONTENT = x'\(hex)';", url, readOnly: false)
        let session = try StoreSession.open(storePath: url.path, modelPath: nil)
        #expect(session.modelSource == "stored in the store (Z_MODELCACHE)")
        #expect(session.warnings == ["opened with the model stored in the file, without the entities the store does not hold (Ghost)"])
        #expect(session.model.entity(named: "Ghost") == nil)
        session.close()
        let info = try InfoCommand.info(storePath: url.path)
        #expect(Dictionary(uniqueKeysWithValues: info.entities.map { ($0.name, $0.count) }) == (try StoreOwnModelTests.sqliteCounts(url)))
    }

    @Test("the browser marks a raw column in the table header (≈), shows its value and what it is in the detail pane, and the status bar says what was not understood")
    func browserMarksRawColumns() throws {
        let url = try StoreOwnModelTests.copy(["wibosco-CoreDataMigration-Example/CoreDataMigration_Example_3.sqlite"])
        _ = try StoreOwnModelTests.sqlite3("ALTER TABLE ZPOST ADD COLUMN ZADDEDLATER VARCHAR; UPDATE ZPOST SET ZADDEDLATER = 'later';", url, readOnly: false)
        let session = try BrowserSession.open(storePath: url.path, modelPath: nil, readOnly: true)
        #expect(session.notes.contains("not understood: 1 column read raw (ZPOST.ZADDEDLATER)"))
        let h = try BrowserHarness(session: session, size: Size(width: 260, height: 36), open: "Post")
        #expect(h.waitUntil { $0.table.columns.contains { $0.name == "ZADDEDLATER" && $0.isRaw } })
        #expect(h.state.table.columns.filter(\.isRaw).map(\.name) == ["ZADDEDLATER"])
        #expect(h.line(containing: "ZADDEDLATER≈") != nil)
        #expect(h.screen.contains("not understood: 1 column read raw (ZPOST.ZADDEDLATER)"))
        // The detail pane: the value as stored, and the type line saying the column is raw.
        #expect(h.waitUntil { state in
            state.detail.snapshot?.properties.contains { p in
                guard case let .attribute(type) = p.kind else { return false }
                return p.name == "ZADDEDLATER" && type.contains("raw column ZADDEDLATER") && p.value.contains("later")
            } == true
        })
        // Its name is marked there as in the header.
        #expect(h.state.detail.snapshot?.properties.filter(\.isRaw).map(\.name) == ["ZADDEDLATER"])
        #expect(h.lines.contains { $0.contains("ZADDEDLATER≈") && $0.contains("later") })
    }
}

extension NotUnderstoodTests {
    @Test("a 70-entity store with no model cache and ordered one-to-manys in every other entity opens by inference, with sqlite3's counts and the order columns understood")
    func seventyEntitiesByInference() throws {
        let names = (0..<70).map { String(format: "Entity%02d", $0) }
        let entities = names.indices.map { i in
            EntityDescription(names[i]) {
                AttributeDescription("title", .string)
                AttributeDescription("count", .integer32)
                AttributeDescription("when", .date)
                // Named after its destination, as most to-ones are: with every table holding keys 1…3,
                // the name is the only evidence of which entity the foreign key points to.
                if i > 0 { RelationshipDescription(names[i - 1].lowercased(), destination: names[i - 1], inverse: "children") }
                if i < names.count - 1 {
                    RelationshipDescription(
                        "children", destination: names[i + 1], inverse: names[i].lowercased(), toMany: true, isOrdered: i % 2 == 0)
                }
            }
        }
        let model = try ManagedObjectModel(entities: entities)
        let url = try TestSupport.temporaryDirectory().appendingPathComponent("Seventy.sqlite")
        let store = try SQLiteStore(url: url, model: model)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(store)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait {
            var previous: [ManagedObject] = []
            for name in names {
                var made: [ManagedObject] = []
                for k in 0..<3 {
                    let o = try context.insertObject(forEntityName: name)
                    try o.setValue("\(name) \(k)", forKey: "title")
                    if let parent = previous.first, let key = o.entity.relationships.first(where: { !$0.isToMany })?.name {
                        try o.setValue(parent, forKey: key)
                    }
                    made.append(o)
                }
                previous = made
            }
            try context.save()
        }
        try coordinator.remove(store)
        store.close()
        // As Apple's Core Data leaves it for this test: no model cache, no CoreStack version name.
        let plist = try PropertyListSerialization.data(
            fromPropertyList: ["NSStoreType": "SQLite", "NSPersistenceFrameworkVersion": 1_340] as [String: Any], format: .binary, options: 0)
        let hex = plist.map { String(format: "%02X", $0) }.joined()
        _ = try StoreOwnModelTests.sqlite3("DELETE FROM Z_MODELCACHE; UPDATE Z_METADATA SET Z_PLIST = x'\(hex)';", url, readOnly: false)

        let start = Date()
        let session = try StoreSession.open(storePath: url.path, modelPath: nil)
        let elapsed = Date().timeIntervalSince(start)
        print("70-entity store opened by inference in \(Int(elapsed * 1000)) ms (debug build)")
        #expect(session.modelSource == "inferred from the schema")
        #expect(session.model.entities.count == 70)
        #expect(session.notUnderstood == nil, "\(session.notUnderstood ?? "")")
        let first = try #require(session.model.entity(named: "Entity00")?.relationships.first { $0.isToMany })
        #expect(first.isOrdered && first.destinationEntityName == "Entity01")
        let second = try #require(session.model.entity(named: "Entity01")?.relationships.first { $0.isToMany })
        #expect(!second.isOrdered)
        session.close()
        let info = try InfoCommand.info(storePath: url.path)
        #expect(Dictionary(uniqueKeysWithValues: info.entities.map { ($0.name, $0.count) }) == (try StoreOwnModelTests.sqliteCounts(url)))
        #expect(info.entities.allSatisfy { $0.count == 3 })
    }
}

extension NotUnderstoodTests {
    @Test("a model cache attribute whose column the store lacks: opened without it, with a warning naming it")
    func cacheAttributeWithoutColumn() throws {
        let url = try StoreOwnModelTests.copy(["bnr-CoreDataStack/TestModel.sqlite"])
        _ = try StoreOwnModelTests.sqlite3("ALTER TABLE ZBOOK DROP COLUMN ZTITLE;", url, readOnly: false)
        let session = try StoreSession.open(storePath: url.path, modelPath: nil)
        #expect(session.modelSource == "stored in the store (Z_MODELCACHE)")
        #expect(session.warnings == ["opened with the model stored in the file, without the attributes that have no column (Book.title)"])
        session.close()
    }
}
