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
        #expect(info.notUnderstood == "1 column read raw (ZBOOK.ZADDEDLATER); 1 table not read (NOTES)")
        #expect(info.unexplainedTables == ["NOTES"])
        let counts = Dictionary(uniqueKeysWithValues: info.entities.map { ($0.name, $0.count) })
        #expect(counts == (try StoreOwnModelTests.sqliteCounts(url)))
        let text = InfoCommand.renderText(info, schema: true)
        #expect(text.contains("Not understood:    1 column read raw (ZBOOK.ZADDEDLATER); 1 table not read (NOTES)"))
        #expect(text.split(separator: "\n").contains { $0.contains("ZADDEDLATER") && $0.contains("raw column ZADDEDLATER") })
        let json = try #require(try TestSupport.parseJSON(InfoCommand.renderJSON(info)) as? [String: Any])
        #expect(json["unexplainedTables"] as? [String] == ["NOTES"])
        #expect(try TestSupport.checksum(url) == before)
    }

    @Test("when neither the model cache nor inference can read the store, the error names both reasons: the cache's damage and the columns inference could not place")
    func errorNamesTheReasons() throws {
        let url = try StoreOwnModelTests.copy(["bnr-CoreDataStack/TestModel.sqlite"])
        _ = try StoreOwnModelTests.sqlite3(
            #"UPDATE Z_MODELCACHE SET Z_CONTENT = x'FFFFFFFF'; ALTER TABLE ZBOOK ADD COLUMN "odd name" TEXT;"#, url, readOnly: false)
        do {
            _ = try StoreSession.open(storePath: url.path, modelPath: nil)
            Issue.record("the store opened")
        } catch let error as StackScopeError {
            guard case let .noReadableModel(_, reasons) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(reasons.count == 2)
            #expect(reasons.first?.contains("model cache cannot be read") == true)
            #expect(reasons.last?.contains("ZBOOK.odd name") == true)
            #expect(error.description.contains("pass --model"))
        }
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
    }
}
