import CoreStack
import Foundation
import StackScope
import Testing

@Suite("info and dump")
struct CommandTests {
    @Test("info --json reports the store UUID, model version and the counts inserted")
    func infoJSON() throws {
        let (url, summary) = try TestSupport.demoStore()
        let text = try InfoCommand.run(storePath: url.path, modelPath: nil, json: true)
        let json = try #require(try TestSupport.parseJSON(text) as? [String: Any])
        #expect(json["storeUUID"] as? String == (try SQLiteStore.metadata(at: url)).storeUUID)
        #expect(json["modelVersion"] as? String == "DemoLibrary")
        #expect(json["frameworkVersion"] as? Int == SQLiteStore.frameworkVersion)
        let entities = try #require(json["entities"] as? [[String: Any]])
        #expect(entities.compactMap { $0["name"] as? String } == TestSupport.demoEntities)
        func entry(_ name: String) -> [String: Any]? { entities.first { $0["name"] as? String == name } }
        let c = summary.counts
        #expect(entry("Book")?["count"] as? Int == (c["Book"] ?? 0) + (c["GraphicNovel"] ?? 0))
        #expect(entry("GraphicNovel")?["count"] as? Int == c["GraphicNovel"])
        #expect(entry("Person")?["count"] as? Int == (c["Author"] ?? 0) + (c["Editor"] ?? 0))
        #expect(entry("Chapter")?["count"] as? Int == c["Chapter"])
        #expect(entry("Publisher")?["count"] as? Int == c["Publisher"])
        #expect(entry("GraphicNovel")?["superentity"] as? String == "Book")
        #expect(entry("Author")?["superentity"] as? String == "Person")
        #expect(entry("Book")?["superentity"] is NSNull)
    }

    @Test("info text lists every entity with its count")
    func infoText() throws {
        let (url, summary) = try TestSupport.demoStore(size: 80)
        let text = try InfoCommand.run(storePath: url.path, modelPath: nil, json: false)
        #expect(text.contains("Model version:     DemoLibrary"))
        let chapterLine = text.split(separator: "\n").first { $0.hasPrefix("Chapter ") }
        #expect(chapterLine?.contains(" \(summary.counts["Chapter"] ?? -1) ") == true)
        #expect(text.contains("Person (abstract)"))
    }

    @Test("dump --json gives objects with typed attribute values and relationship URIs")
    func dumpJSON() throws {
        let (url, _) = try TestSupport.demoStore()
        let uuid = try SQLiteStore.metadata(at: url).storeUUID
        let text = try DumpCommand.run(
            storePath: url.path, modelPath: nil, query: DumpQuery(entityName: "Book", limit: 3), json: true)
        let objects = try #require(try TestSupport.parseJSON(text) as? [[String: Any]])
        #expect(objects.count == 3)
        let first = objects[0]
        #expect(first["objectID"] as? String == "x-coredata://\(uuid)/Book/p1")
        #expect(first["entity"] as? String == "Book")
        let attrs = try #require(first["attributes"] as? [String: Any])
        #expect(attrs["title"] as? String == "L’Écume des jours 📚")
        let published = try #require(attrs["published"] as? String)
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        #expect(iso.date(from: published) != nil)
        let cover = try #require(attrs["cover"] as? String)
        #expect((Data(base64Encoded: cover)?.count ?? 0) >= 8)
        #expect(UUID(uuidString: attrs["uuid"] as? String ?? "") != nil)
        #expect(attrs["price"] is NSNumber)
        #expect(attrs["pages"] as? Int ?? 0 >= 48)
        #expect(attrs["inPrint"] is Bool)
        let rels = try #require(first["relationships"] as? [String: Any])
        let chapters = try #require(rels["chapters"] as? [String])
        #expect(!chapters.isEmpty && chapters.allSatisfy { $0.hasPrefix("x-coredata://\(uuid)/Chapter/p") })
        #expect((rels["publisher"] as? String)?.hasPrefix("x-coredata://\(uuid)/Publisher/p") == true)
        #expect(rels["authors"] is [String])

        // The chapter URIs, dumped, come back numbered 1, 2, 3… in that order.
        let chapterDump = try DumpCommand.dump(storePath: url.path, query: DumpQuery(entityName: "Chapter"))
        let numberByURI = Dictionary(uniqueKeysWithValues: chapterDump.map { o in
            (o.objectID.uriRepresentation().absoluteString, o.attributes.first { $0.name == "number" }?.value.integerValue ?? 0)
        })
        #expect(chapters.map { numberByURI[$0] ?? 0 } == Array(1...Int64(chapters.count)))
    }

    @Test("dump sorts by --sort then primary key, applies --limit, and includes sub-entities")
    func dumpSortAndLimit() throws {
        let (url, summary) = try TestSupport.demoStore()
        let people = try DumpCommand.dump(storePath: url.path, query: DumpQuery(entityName: "Person", sortKey: "name"))
        #expect(people.count == (summary.counts["Author"] ?? 0) + (summary.counts["Editor"] ?? 0))
        let names = people.compactMap { $0.attributes.first { $0.name == "name" }?.value.stringValue }
        #expect(names == names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        #expect(Set(people.map(\.entityName)) == ["Author", "Editor"])
        let limited = try DumpCommand.dump(storePath: url.path, query: DumpQuery(entityName: "Chapter", limit: 5))
        #expect(limited.compactMap(\.objectID.primaryKey) == [1, 2, 3, 4, 5])
        let text = try DumpCommand.run(
            storePath: url.path, modelPath: nil, query: DumpQuery(entityName: "Genre", sortKey: "code", limit: 2), json: false)
        #expect(text.contains("Genre p1") && text.contains("\"Science Fiction\""))
        #expect(text.hasSuffix("2 objects of Genre, sorted by code, limit 2\n"))
    }

    @Test("info and dump open the store read-only and leave the file unchanged")
    func readOnly() throws {
        let (url, _) = try TestSupport.demoStore()
        let before = try TestSupport.checksum(url)
        let bytes = try Data(contentsOf: url)
        _ = try InfoCommand.run(storePath: url.path, modelPath: nil, json: true)
        _ = try InfoCommand.run(storePath: url.path, modelPath: nil, json: false)
        for entity in TestSupport.demoEntities {
            _ = try DumpCommand.run(storePath: url.path, modelPath: nil, query: DumpQuery(entityName: entity), json: true)
        }
        #expect(try TestSupport.checksum(url) == before)
        #expect(try Data(contentsOf: url) == bytes)
    }

    @Test("a store of another model opens with --model, and with the model it carries without")
    func otherModel() throws {
        let bundleURL = TestSupport.fixture("models/bnr-CoreDataStack/Sample.xcdatamodeld")
        let bundle = try XcodeModelReader.readBundle(at: bundleURL)
        let url = try TestSupport.temporaryDirectory().appendingPathComponent("sample.sqlite")
        do {
            let store = try SQLiteStore(url: url, model: bundle.currentVersion)
            let coordinator = PersistentStoreCoordinator(managedObjectModel: bundle.currentVersion)
            try coordinator.addPersistentStore(store)
            coordinator.removePersistentStore()
        }
        // CoreStack stores carry their model (Z_MODELCACHE): without --model it is used.
        let own = try StoreSession.open(storePath: url.path, modelPath: nil)
        #expect(own.modelSource == "stored in the store (Z_MODELCACHE)")
        #expect(own.model.entityVersionHashes == bundle.currentVersion.entityVersionHashes)
        let info = try InfoCommand.info(storePath: url.path, modelPath: bundleURL.path)
        #expect(info.entities.map(\.name) == bundle.currentVersion.entities.map(\.name))
        #expect(info.entities.allSatisfy { $0.count == 0 })
        #expect(info.modelVersion == bundle.currentVersion.versionName)
    }
}

@Suite("errors")
struct ErrorTests {
    @Test("a missing file")
    func missing() throws {
        let path = try TestSupport.temporaryDirectory().appendingPathComponent("none.sqlite").path
        #expect(throws: StackScopeError.storeNotFound(path: path)) { try InfoCommand.info(storePath: path) }
        #expect(StackScopeErrorMessage.line(for: StackScopeError.storeNotFound(path: path)) == "no store at \(path): the file does not exist")
    }

    @Test("a directory, and a file that is not a store")
    func notAStore() throws {
        let dir = try TestSupport.temporaryDirectory()
        #expect(throws: StackScopeError.notAFile(path: dir.path)) { try InfoCommand.info(storePath: dir.path) }
        let text = dir.appendingPathComponent("notes.txt")
        try Data("hello, not a database\n".utf8).write(to: text)
        let error = #expect(throws: CoreStackError.self) { try InfoCommand.info(storePath: text.path) }
        guard case .notAStore(let path, _) = error else {
            Issue.record("expected notAStore, got \(String(describing: error))")
            return
        }
        #expect(path == text.path)
        #expect(try Data(contentsOf: text) == Data("hello, not a database\n".utf8))
    }

    @Test("a model that does not fit the store")
    func wrongModel() throws {
        let (url, _) = try TestSupport.demoStore(size: 40)
        let bundle = TestSupport.fixture("models/bnr-CoreDataStack/Sample.xcdatamodeld").path
        // The store carries its model: the session falls back to it and says why.
        let session = try StoreSession.open(storePath: url.path, modelPath: bundle)
        #expect(session.modelSource == "stored in the store (Z_MODELCACHE)")
        #expect(session.warnings.first?.hasPrefix("no version of Sample.xcdatamodeld matches the store") == true)
        // Without a model of its own, the mismatch is the error.
        _ = try StoreOwnModelTests.sqlite3("DELETE FROM Z_MODELCACHE", url, readOnly: false)
        let error = #expect(throws: CoreStackError.self) { try InfoCommand.info(storePath: url.path, modelPath: bundle) }
        guard case .modelMismatch = error else {
            Issue.record("expected modelMismatch, got \(String(describing: error))")
            return
        }
        let line = StackScopeErrorMessage.line(for: try #require(error))
        #expect(!line.contains("\n") && line.contains("does not match the model") && line.contains("more differences"))
        #expect(throws: StackScopeError.unsupportedModelPath(path: "/tmp/model.json")) {
            try InfoCommand.info(storePath: url.path, modelPath: "/tmp/model.json")
        }
    }

    @Test("an unknown entity, an unknown sort key, a bad limit")
    func badQuery() throws {
        let (url, _) = try TestSupport.demoStore(size: 40)
        let entities = TestSupport.demoEntities
        #expect(throws: StackScopeError.unknownEntity(name: "Bok", available: entities)) {
            try DumpCommand.dump(storePath: url.path, query: DumpQuery(entityName: "Bok"))
        }
        let error = #expect(throws: StackScopeError.self) {
            try DumpCommand.dump(storePath: url.path, query: DumpQuery(entityName: "Book", sortKey: "author"))
        }
        guard case let .unknownSortKey(key, entity, available) = error else {
            Issue.record("expected unknownSortKey, got \(String(describing: error))")
            return
        }
        #expect(key == "author" && entity == "Book" && available.contains("title"))
        #expect(throws: StackScopeError.invalidOption(name: "--limit", reason: "0 is not a positive number")) {
            try DumpCommand.dump(storePath: url.path, query: DumpQuery(entityName: "Book", limit: 0))
        }
    }

    @Test("demo create replaces a demo store but refuses to overwrite any other file")
    func overwrite() throws {
        let (url, first) = try TestSupport.demoStore(size: 20)
        let oldUUID = try SQLiteStore.metadata(at: url).storeUUID
        let second = try DemoLibrary.create(at: url, size: 40)
        #expect(second.total > first.total)
        #expect(try SQLiteStore.metadata(at: url).storeUUID != oldUUID)
        #expect(try InfoCommand.info(storePath: url.path).entities.first { $0.name == "Chapter" }?.count == second.counts["Chapter"])

        let other = url.deletingLastPathComponent().appendingPathComponent("notes.txt")
        try Data("keep me".utf8).write(to: other)
        #expect(throws: StackScopeError.fileExists(path: other.path)) { try DemoLibrary.create(at: other, size: 20) }
        #expect(try Data(contentsOf: other) == Data("keep me".utf8))
    }
}
