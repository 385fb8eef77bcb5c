import CoreStack
import Foundation
import StackScope
import Testing

/// Opening Apple-written stores with no model file: the model they carry in Z_MODELCACHE.
@Suite("stores opened with their own model")
struct StoreOwnModelTests {
    /// Every Apple-written fixture store (with its -wal when it has one).
    static let stores: [[String]] = [
        ["alemar11-CoreDataPlus/SampleModel_V1.sqlite"],
        ["alemar11-CoreDataPlus/SampleModel_V2.sqlite"],
        ["alemar11-CoreDataPlus/SampleModel2_V1.sqlite"],
        ["alemar11-CoreDataPlus/SampleModel2_V2.sqlite"],
        ["alemar11-CoreDataPlus/SampleModel3_V1.sqlite"],
        ["apple-iPhoneCoreDataRecipes-2018/Recipes.sqlite"],
        ["bnr-CoreDataStack/TestModel.sqlite"],
        ["wibosco-CoreDataMigration-Example/CoreDataMigration_Example_1.sqlite"],
        ["wibosco-CoreDataMigration-Example/CoreDataMigration_Example_2.sqlite"],
        ["wibosco-CoreDataMigration-Example/CoreDataMigration_Example_3.sqlite"],
        ["wibosco-CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite", "wibosco-CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite-wal"],
    ]

    /// Copies fixture store files into a fresh temporary folder; returns the first one's copy.
    static func copy(_ names: [String]) throws -> URL {
        let dir = try TestSupport.temporaryDirectory()
        for name in names {
            let destination = dir.appendingPathComponent((name as NSString).lastPathComponent)
            try FileManager.default.copyItem(at: TestSupport.fixture("stores/\(name)"), to: destination)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: destination.path)
        }
        return dir.appendingPathComponent((names[0] as NSString).lastPathComponent)
    }

    /// Runs SQL with the `sqlite3` tool (independent of CoreStack); returns its output lines.
    static func sqlite3(_ sql: String, _ url: URL, readOnly: Bool = true) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = (readOnly ? ["-readonly"] : []) + [url.path, sql]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Objects per entity (its sub-entities' rows included) counted by `Z_ENT` with sqlite3.
    static func sqliteCounts(_ url: URL) throws -> [String: Int] {
        let rows = try sqlite3("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY WHERE Z_ENT < 16000", url).map {
            $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        }
        var parent: [Int: Int] = [:], name: [Int: String] = [:]
        for r in rows where r.count == 3 {
            guard let n = Int(r[0]), let p = Int(r[2]) else { continue }
            parent[n] = p
            name[n] = r[1]
        }
        func chain(_ n: Int) -> [Int] {
            var out = [n], cur = n
            while let p = parent[cur], p != 0, !out.contains(p) { out.append(p); cur = p }
            return out
        }
        var counts: [String: Int] = [:]
        for (n, entityName) in name {
            let members = name.keys.filter { chain($0).contains(n) }.map(String.init).joined(separator: ",")
            let table = "Z" + (name[chain(n).last ?? n] ?? "").uppercased()
            counts[entityName] = Int(try sqlite3("SELECT COUNT(*) FROM \(table) WHERE Z_ENT IN (\(members))", url).first ?? "") ?? -1
        }
        return counts
    }

    @Test("info opens every Apple-written fixture store with no --model, counts as sqlite3 does, and changes no file")
    func everyStoreOpens() throws {
        for names in Self.stores {
            let url = try Self.copy(names)
            let files = [url] + names.dropFirst().map { url.deletingLastPathComponent().appendingPathComponent(($0 as NSString).lastPathComponent) }
            let before = try files.map(TestSupport.checksum)
            let session = try StoreSession.open(storePath: url.path, modelPath: nil)
            #expect(session.modelSource == "stored in the store (Z_MODELCACHE)")
            #expect(session.warnings.isEmpty)
            let info = try InfoCommand.info(storePath: url.path)
            var expected = try Self.sqliteCounts(url)
            // The CoreDataPlus V2 store keeps the old name of the renamed entity in Z_PRIMARYKEY.
            if session.model.entity(named: "LuxuryCar") != nil, let old = expected.removeValue(forKey: "ExpensiveSportCar") {
                expected["LuxuryCar"] = old
            }
            #expect(Dictionary(uniqueKeysWithValues: info.entities.map { ($0.name, $0.count) }) == expected, "\(names[0])")
            #expect(try files.map(TestSupport.checksum) == before, "\(names[0]) changed")
        }
    }

    @Test("dump lists objects of an Apple-written store with no --model")
    func dumpWithoutModel() throws {
        let url = try Self.copy(["wibosco-CoreDataMigration-Example/CoreDataMigration_Example_3.sqlite"])
        let text = try DumpCommand.run(
            storePath: url.path, modelPath: nil, query: DumpQuery(entityName: "Post", limit: 3), json: true)
        let posts = try #require(try TestSupport.parseJSON(text) as? [[String: Any]])
        #expect(posts.count == 3)
        let ids = try Self.sqlite3("SELECT Z_PK FROM ZPOST ORDER BY Z_PK LIMIT 3", url)
        #expect(posts.compactMap { ($0["objectID"] as? String)?.components(separatedBy: "/p").last } == ids)
    }

    @Test("a .xcdatamodeld none of whose versions matches the store falls back to the store's own model, with a warning")
    func mismatchedBundleFallsBack() throws {
        let url = try Self.copy(["alemar11-CoreDataPlus/SampleModel2_V1.sqlite"])
        let model = TestSupport.fixture("models/alemar11-CoreDataPlus/SampleModel.xcdatamodeld").path
        let session = try StoreSession.open(storePath: url.path, modelPath: model)
        #expect(session.modelSource == "stored in the store (Z_MODELCACHE)")
        #expect(session.warnings.count == 1)
        #expect(session.warnings.first?.hasPrefix("no version of SampleModel.xcdatamodeld matches the store") == true)
        #expect(session.warnings.first?.hasSuffix("opened with the model stored in the file") == true)
        #expect(session.model.entity(named: "Book") != nil)
    }

    @Test("a matching .xcdatamodeld is used, and says which version")
    func matchingBundle() throws {
        let url = try Self.copy(["wibosco-CoreDataMigration-Example/CoreDataMigration_Example_3.sqlite"])
        let model = TestSupport.fixture("models/wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld").path
        let session = try StoreSession.open(storePath: url.path, modelPath: model)
        #expect(session.modelSource == "file CoreDataMigration_Example.xcdatamodeld version CoreDataMigration_Example 3")
        #expect(session.warnings.isEmpty)
    }

    @Test("--model accepts a compiled .momd folder and a single .mom file")
    func compiledModel() throws {
        let url = try Self.copy(["alemar11-CoreDataPlus/SampleModel3_V1.sqlite"])
        let momd = TestSupport.fixture("compiled/alemar11-CoreDataPlus/SampleModel3.momd")
        let session = try StoreSession.open(storePath: url.path, modelPath: momd.path)
        #expect(session.modelSource == "file SampleModel3.momd version SampleModel3")
        #expect(session.model.origin == .compiledModel)
        let info = try InfoCommand.info(storePath: url.path, modelPath: momd.appendingPathComponent("SampleModel3.mom").path)
        #expect(info.entities.map(\.name) == ["User"])
        #expect(info.entities.first?.count == 12)
    }

    @Test("a store with no model cache opens with a model inferred from its schema, with a warning, counting as sqlite3 does")
    func noCacheInfers() throws {
        for names in Self.stores {
            let url = try Self.copy(names)
            _ = try Self.sqlite3("DELETE FROM Z_MODELCACHE", url, readOnly: false)
            #expect(try Self.sqlite3("SELECT COUNT(*) FROM Z_MODELCACHE", url) == ["0"])
            let before = try TestSupport.checksum(url)
            let session = try StoreSession.open(storePath: url.path, modelPath: nil)
            #expect(session.modelSource == "inferred from the schema")
            #expect(session.warnings.first?.contains("the store has no model cache (Z_MODELCACHE)") == true)
            let info = try InfoCommand.info(storePath: url.path)
            #expect(Dictionary(uniqueKeysWithValues: info.entities.map { ($0.name, $0.count) }) == (try Self.sqliteCounts(url)), "\(names[0])")
            #expect(try TestSupport.checksum(url) == before)
        }
    }

    @Test("a damaged model cache falls back to the inferred model and says why")
    func damagedCacheInfers() throws {
        let url = try Self.copy(["wibosco-CoreDataMigration-Example/CoreDataMigration_Example_3.sqlite"])
        _ = try Self.sqlite3("UPDATE Z_MODELCACHE SET Z_CONTENT = X'00112233445566778899'", url, readOnly: false)
        let session = try StoreSession.open(storePath: url.path, modelPath: nil)
        #expect(session.modelSource == "inferred from the schema")
        #expect(session.warnings.first?.contains("the store's model cache cannot be read (deflate stream:") == true)
        #expect(Set(session.model.entities.map(\.name)) == ["Color", "Post"])
        #expect(session.model.entity(named: "Post")?.relationship(named: "COLOR")?.destinationEntityName == "Color")
    }
}
