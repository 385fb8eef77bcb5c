import CoreStack
import Foundation
import StackScope
import Testing

@Suite("stores written by Apple's Core Data")
struct AppleStoreTests {
    static let folder = "stores/wibosco-CoreDataMigration-Example"
    static let model = "models/wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld"

    /// Copies fixture files into a temporary folder (opening a WAL store may add side files).
    func copy(_ names: [String]) throws -> URL {
        let dir = try TestSupport.temporaryDirectory()
        for name in names {
            try FileManager.default.copyItem(
                at: TestSupport.fixture("\(Self.folder)/\(name)"), to: dir.appendingPathComponent(name))
        }
        return dir.appendingPathComponent(names[0])
    }

    @Test("info with --model picks the store's version and counts its rows")
    func info() throws {
        let url = try copy(["CoreDataMigration_Example_1.sqlite"])
        let before = try TestSupport.checksum(url)
        let info = try InfoCommand.info(storePath: url.path, modelPath: TestSupport.fixture(Self.model).path)
        #expect(info.modelVersion == "CoreDataMigration_Example")
        #expect(info.storeUUID == "292CEC8D-C7B1-4073-9B55-56A1A663FA59")
        #expect(info.frameworkVersion == 847)
        #expect(info.entities.map(\.name) == ["Post"])
        #expect(info.entities.first?.count == 1001)
        #expect(try TestSupport.checksum(url) == before)
        // Without --model the store opens with the model it carries (Z_MODELCACHE).
        let own = try InfoCommand.info(storePath: url.path)
        #expect(own.entities == info.entities)
        // info says where the model came from, in text and JSON.
        #expect(info.modelSource == "file CoreDataMigration_Example.xcdatamodeld version CoreDataMigration_Example")
        #expect(own.modelSource == "stored in the store (Z_MODELCACHE)")
        #expect(InfoCommand.renderText(own).contains("Model:             stored in the store (Z_MODELCACHE)"))
        #expect(InfoCommand.renderJSON(own).contains("\"model\": \"stored in the store (Z_MODELCACHE)\""))
        #expect(try TestSupport.checksum(url) == before)
    }

    @Test("rows that live only in the -wal file are counted and dumped, and neither file changes")
    func walStore() throws {
        let url = try copy(["CoreDataMigration_Example_WAL.sqlite", "CoreDataMigration_Example_WAL.sqlite-wal"])
        let wal = URL(fileURLWithPath: url.path + "-wal")
        let (main, log) = (try TestSupport.checksum(url), try TestSupport.checksum(wal))
        let model = TestSupport.fixture(Self.model).path
        let info = try InfoCommand.info(storePath: url.path, modelPath: model)
        #expect(info.modelVersion == "CoreDataMigration_Example 4")
        #expect(Dictionary(uniqueKeysWithValues: info.entities.map { ($0.name, $0.count) }) == ["Color": 84, "Post": 84])
        let text = try DumpCommand.run(
            storePath: url.path, modelPath: model, query: DumpQuery(entityName: "Post", limit: 2), json: true)
        let posts = try #require(try TestSupport.parseJSON(text) as? [[String: Any]])
        #expect(posts.count == 2)
        #expect(posts.first?["objectID"] as? String == "x-coredata://\(info.storeUUID)/Post/p1")
        #expect(try TestSupport.checksum(url) == main)
        #expect(try TestSupport.checksum(wal) == log)
    }
}
