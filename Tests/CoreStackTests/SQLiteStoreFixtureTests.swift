import Foundation
import Testing

@testable import CoreStack

/// Stores written by Apple's Core Data, opened with their Xcode models and compared value by value
/// with what the `sqlite3` command-line tool reads from the same file.
@Suite struct SQLiteStoreFixtureTests {
    struct Pair: CustomTestStringConvertible, Sendable {
        var store: String
        var bundle: String
        var expectedVersion: String
        var testDescription: String { store }
    }

    static let pairs: [Pair] = [
        Pair(store: "bnr-CoreDataStack/TestModel.sqlite", bundle: "bnr-CoreDataStack-2015/TestModel.xcdatamodeld", expectedVersion: "TestModel"),
        Pair(store: "apple-iPhoneCoreDataRecipes-2018/Recipes.sqlite", bundle: "apple-iPhoneCoreDataRecipes-2018/Recipes.xcdatamodeld", expectedVersion: "Recipes"),
        Pair(store: "wibosco-CoreDataMigration-Example/CoreDataMigration_Example_1.sqlite", bundle: "wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld", expectedVersion: "CoreDataMigration_Example"),
        Pair(store: "wibosco-CoreDataMigration-Example/CoreDataMigration_Example_2.sqlite", bundle: "wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld", expectedVersion: "CoreDataMigration_Example 2"),
        Pair(store: "wibosco-CoreDataMigration-Example/CoreDataMigration_Example_3.sqlite", bundle: "wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld", expectedVersion: "CoreDataMigration_Example 3"),
        Pair(store: "wibosco-CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite", bundle: "wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld", expectedVersion: "CoreDataMigration_Example 4"),
        Pair(store: "alemar11-CoreDataPlus/SampleModel_V1.sqlite", bundle: "alemar11-CoreDataPlus/SampleModel.xcdatamodeld", expectedVersion: "SampleModel"),
        // SampleModel2 is built in code in CoreDataPlus (no Xcode model): see `sampleModel2Bundle`.
        Pair(store: "alemar11-CoreDataPlus/SampleModel2_V1.sqlite", bundle: "code:SampleModel2", expectedVersion: "SampleModel2_V1"),
        Pair(store: "alemar11-CoreDataPlus/SampleModel2_V2.sqlite", bundle: "code:SampleModel2", expectedVersion: "SampleModel2_V2"),
        Pair(store: "alemar11-CoreDataPlus/SampleModel3_V1.sqlite", bundle: "alemar11-CoreDataPlus/SampleModel3.xcdatamodeld", expectedVersion: "SampleModel3"),
    ]

    @Test(arguments: pairs)
    func opensWithItsModelAndEveryValueMatchesSQLite(_ pair: Pair) throws {
        let url = try Fixtures.copyStore("stores/" + pair.store)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let bundle = pair.bundle == "code:SampleModel2"
            ? try Self.sampleModel2Bundle() : try XcodeModelReader.readBundle(at: Fixtures.url("models/" + pair.bundle))
        let store = try SQLiteStore.open(url: url, bundle: bundle, readOnly: true)
        #expect(store.model.versionName == pair.expectedVersion)
        #expect(store.isReadOnly)
        #expect(store.metadata.storeType == "SQLite")
        #expect((store.metadata.frameworkVersion ?? 0) > 100)
        var checked = 0
        for entity in store.model.entities {
            let rows = try store.fetch(StoreFetchRequest(entity: entity, includesSubentities: false))
            #expect(try store.count(StoreFetchRequest(entity: entity, includesSubentities: false)) == rows.count)
            let raw = try RawSQLite.rows(of: entity, in: url, store: store)
            #expect(rows.count == raw.count, "\(pair.store) \(entity.name): \(rows.count) rows, sqlite3 says \(raw.count)")
            let rawByPK = Dictionary(raw.map { ($0.pk, $0) }, uniquingKeysWith: { a, _ in a })
            for row in rows {
                guard let pk = row.objectID.primaryKey, let expected = rawByPK[pk] else {
                    Issue.record("\(pair.store) \(entity.name): row \(row.objectID) not found by sqlite3")
                    continue
                }
                #expect(row.objectID.entity === entity)
                #expect(row.snapshot.version == expected.opt)
                for (slot, attribute) in entity.allAttributes.enumerated() where !attribute.isTransient {
                    let value = row.snapshot.values[slot]
                    let rawValue = expected.values[attribute.name] ?? .null
                    #expect(
                        RawSQLite.same(value, rawValue, type: attribute.type),
                        "\(pair.store) \(entity.name).\(attribute.name) p\(pk): fetched \(value), sqlite3 \(rawValue)")
                    checked += 1
                }
                for (slot, relationship) in entity.allRelationships.enumerated() where !relationship.isToMany {
                    let fk = expected.values[relationship.name] ?? .null
                    let id = row.snapshot.toOne[slot]
                    #expect(id?.primaryKey == fk.integerValue, "\(entity.name).\(relationship.name) p\(pk)")
                    checked += 1
                }
            }
        }
        #expect(checked > 0 || store.model.entities.allSatisfy { (try? store.count(StoreFetchRequest(entity: $0))) == 0 })
    }

    /// CoreDataPlus's SampleModel2, rebuilt from what its stores hold (the project defines it in
    /// code, not in an Xcode model): V2 renamed Book.cover to frontCover and dropped Writer.siteURL.
    static func sampleModel2(version: Int) throws -> ManagedObjectModel {
        try ManagedObjectModel(versionName: "SampleModel2_V\(version)") {
            EntityDescription("Book", uniquenessConstraints: [["uniqueID"]]) {
                AttributeDescription("uniqueID", .uuid)
                AttributeDescription("title", .string)
                AttributeDescription("price", .decimal)
                AttributeDescription(version == 1 ? "cover" : "frontCover", .transformable)
                AttributeDescription("publishedAt", .date)
                AttributeDescription("pagesCount", .integer64)
                RelationshipDescription("author", destination: "Author", inverse: "books")
                RelationshipDescription("pages", destination: "Page", inverse: "book", toMany: true)
            }
            EntityDescription("GraphicNovel", parent: "Book") {
                AttributeDescription("isBlackAndWhite", .boolean)
            }
            EntityDescription("Feedback") {
                AttributeDescription("bookID", .uuid)
                AttributeDescription("authorAlias", .string)
                AttributeDescription("comment", .string)
                AttributeDescription("rating", .double)
            }
            EntityDescription("Page") {
                AttributeDescription("isBookmarked", .boolean)
                AttributeDescription("number", .integer32)
                AttributeDescription("content", .transformable)
                RelationshipDescription("book", destination: "Book", inverse: "pages")
            }
            EntityDescription("Writer", isAbstract: true) {
                AttributeDescription("age", .integer16)
                AttributeDescription("alias", .string)
                if version == 1 { AttributeDescription("siteURL", .uri) }
            }
            EntityDescription("Author", parent: "Writer", uniquenessConstraints: [["alias"]]) {
                RelationshipDescription("books", destination: "Book", inverse: "author", toMany: true)
            }
        }
    }

    static func sampleModel2Bundle() throws -> ManagedObjectModelBundle {
        let v1 = try sampleModel2(version: 1), v2 = try sampleModel2(version: 2)
        return ManagedObjectModelBundle(name: "SampleModel2", versions: [v1, v2], currentVersion: v2)
    }

    @Test func sampleModelV2MatchesItsSecondVersionThroughTheRenamedEntity() throws {
        // SampleModel_V2.sqlite was migrated to SampleModel2, which renames ExpensiveSportCar to
        // LuxuryCar (renaming identifier ExpensiveSportCar); Core Data kept the old name in
        // Z_PRIMARYKEY, so the entity is matched through its renaming identifier.
        let url = try Fixtures.copyStore("stores/alemar11-CoreDataPlus/SampleModel_V2.sqlite")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let bundle = try XcodeModelReader.readBundle(at: Fixtures.url("models/alemar11-CoreDataPlus/SampleModel.xcdatamodeld"))
        let store = try SQLiteStore.open(url: url, bundle: bundle, readOnly: true)
        #expect(store.model.versionName == "SampleModel2")
        #expect(try SQLiteStore.entities(at: url).contains { $0.name == "ExpensiveSportCar" })
        let luxury = try #require(store.model.entity(named: "LuxuryCar"))
        #expect(try store.schema.mapping(for: luxury).number == 3)
        // The SampleModel version (no rename) does not fit: it has Car.color and Person.id columns.
        let v1 = try #require(bundle.version(named: "SampleModel"))
        #expect(throws: CoreStackError.self) { try SQLiteStore(url: url, model: v1, readOnly: true) }
    }

    @Test func olderVersionOpenedForWritingNeedsMigration() throws {
        let url = try Fixtures.copyStore("stores/alemar11-CoreDataPlus/SampleModel2_V1.sqlite")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let before = try Data(contentsOf: url)
        #expect(throws: CoreStackError.migrationRequired(path: url.path, storeVersion: "SampleModel2_V1", currentVersion: "SampleModel2_V2")) {
            try SQLiteStore.open(url: url, bundle: try Self.sampleModel2Bundle(), readOnly: false)
        }
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func bnrToManyThroughJoinTable() throws {
        let url = try Fixtures.copyStore("stores/bnr-CoreDataStack/TestModel.sqlite")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let bundle = try XcodeModelReader.readBundle(at: Fixtures.url("models/bnr-CoreDataStack-2015/TestModel.xcdatamodeld"))
        let store = try SQLiteStore.open(url: url, bundle: bundle, readOnly: true)
        let author = try #require(store.model.entity(named: "Author"))
        let authors = try store.fetch(StoreFetchRequest(entity: author))
        let slot = try #require(author.relationshipSlots["books"])
        let related = try store.relatedObjectIDs(for: authors.map(\.objectID), relationshipSlot: slot)
        let joinCount = try RawSQLite.scalar("SELECT COUNT(*) FROM Z_1BOOKS", in: url)
        #expect(related.values.reduce(0) { $0 + $1.count } == joinCount)
    }

    @Test func recipesIngredientsThroughForeignKey() throws {
        let url = try Fixtures.copyStore("stores/apple-iPhoneCoreDataRecipes-2018/Recipes.sqlite")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let bundle = try XcodeModelReader.readBundle(at: Fixtures.url("models/apple-iPhoneCoreDataRecipes-2018/Recipes.xcdatamodeld"))
        let store = try SQLiteStore.open(url: url, bundle: bundle, readOnly: true)
        let recipe = try #require(store.model.entity(named: "Recipe"))
        let recipes = try store.fetch(StoreFetchRequest(entity: recipe))
        let slot = try #require(recipe.relationshipSlots["ingredients"])
        let related = try store.relatedObjectIDs(for: recipes.map(\.objectID), relationshipSlot: slot)
        let expected = try RawSQLite.scalar("SELECT COUNT(*) FROM ZINGREDIENT WHERE ZRECIPE IS NOT NULL", in: url)
        #expect(related.values.reduce(0) { $0 + $1.count } == expected)
        #expect(expected > 0)
    }

    @Test func walFixtureReadOnlySeesWALRowsAndLeavesTheFileAlone() throws {
        let url = try Fixtures.copyStore("stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let before = try Data(contentsOf: url)
        let walBefore = try Data(contentsOf: URL(fileURLWithPath: url.path + "-wal"))
        // The main file alone holds no posts: they live in the -wal.
        let mainOnly = try Fixtures.temporaryFolder().appendingPathComponent("main.sqlite")
        defer { try? FileManager.default.removeItem(at: mainOnly.deletingLastPathComponent()) }
        try before.write(to: mainOnly)
        #expect(try RawSQLite.scalar("SELECT COUNT(*) FROM ZPOST", in: mainOnly) == 0)
        let bundle = try XcodeModelReader.readBundle(at: Fixtures.url("models/wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld"))
        do {
            let store = try SQLiteStore.open(url: url, bundle: bundle, readOnly: true)
            let post = try #require(store.model.entity(named: "Post"))
            #expect(try store.count(StoreFetchRequest(entity: post)) == 84)
            #expect(throws: CoreStackError.self) { try store.newPrimaryKeys(for: post, count: 1) }
        }
        #expect(try Data(contentsOf: url) == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: url.path + "-wal")) == walBefore)
    }

    @Test func metadataAndEntitiesWithoutAModel() throws {
        let url = try Fixtures.copyStore("stores/alemar11-CoreDataPlus/SampleModel2_V1.sqlite")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let before = try Data(contentsOf: url)
        let metadata = try SQLiteStore.metadata(at: url)
        #expect(metadata.storeUUID == "C9CB0B35-ED6A-4042-BE5C-1B911AC00B2A")
        #expect(metadata.frameworkVersion == 1344)
        #expect(metadata.versionHashes.count == 6)
        #expect(metadata.versionHashes.values.allSatisfy { $0.count == 32 })
        let entities = try SQLiteStore.entities(at: url)
        #expect(entities.first { $0.name == "GraphicNovel" } == SQLiteStoreEntity(name: "GraphicNovel", number: 2, superNumber: 1, maxPrimaryKey: 0))
        #expect(entities.first { $0.name == "Book" }?.maxPrimaryKey == 52)
        #expect(entities.contains { $0.number == 16001 })
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func appleStoreOpensForWritingAndDerivedAttributeTriggersRun() throws {
        let url = try Fixtures.copyStore("stores/alemar11-CoreDataPlus/SampleModel2_V1.sqlite")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let store = try SQLiteStore(url: url, model: try Self.sampleModel2(version: 1))
        let page = try #require(store.model.entity(named: "Page"))
        let book = try #require(store.model.entity(named: "Book"))
        let books = try store.fetch(StoreFetchRequest(entity: book, fetchLimit: 1))
        let target = try #require(books.first)
        let pk = try #require(try store.newPrimaryKeys(for: page, count: 1).first)
        let id = ManagedObjectID(entity: page, storeIdentifier: store.identifier, primaryKey: pk)
        var values = page.allAttributes.map(\.defaultValue)
        if let n = page.attributeSlots["number"] { values[n] = .integer(9999) }
        var toOne = [ManagedObjectID?](repeating: nil, count: page.allRelationships.count)
        if let b = page.relationshipSlots["book"] { toOne[b] = target.objectID }
        _ = try store.save(StoreSaveRequest(inserted: [StoreRowChange(objectID: id, values: values, toOne: toOne, expectedVersion: 0)]))
        let countSlot = try #require(book.attributeSlots["pagesCount"])
        let countBefore = target.snapshot.values[countSlot].integerValue ?? 0
        let saved = try #require(try store.rows(for: [id]).first)
        // Core Data's derived-attribute trigger ran (it calls the no-op function CoreStack registers).
        let bookAfter = try #require(try store.rows(for: [target.objectID]).first)
        #expect(bookAfter.snapshot.values[countSlot].integerValue == countBefore + 1)
        #expect(saved.snapshot.version == 1)
        #expect(saved.snapshot.toOne[page.relationshipSlots["book"] ?? 0] == target.objectID)
    }
}

/// Reads a store with the `sqlite3` command-line tool, independently of CoreStack's SQL.
enum RawSQLite {
    struct RawRow {
        var pk: Int64
        var opt: Int64
        /// Property name → value as sqlite3 printed it (blobs as hex strings, to-ones as keys).
        var values: [String: AttributeValue]
    }

    static func run(_ sql: String, in url: URL) throws -> [[String: Any]] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = ["-readonly", "-json", url.path, sql]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if data.isEmpty { return [] }
        return (try JSONSerialization.jsonObject(with: data) as? [[String: Any]]) ?? []
    }

    static func scalar(_ sql: String, in url: URL) throws -> Int {
        let rows = try run(sql, in: url)
        return (rows.first?.values.first as? NSNumber)?.intValue ?? 0
    }

    static func rows(of entity: EntityDescription, in url: URL, store: SQLiteStore) throws -> [RawRow] {
        let mapping = try store.schema.mapping(for: entity)
        var select = ["Z_PK AS pk", "Z_OPT AS opt"]
        var names: [String] = []
        for (slot, a) in entity.allAttributes.enumerated() {
            guard let column = mapping.attributeColumns[slot] else { continue }
            let blob = [.uuid, .binaryData, .transformable].contains(a.type)
            select.append(blob ? "CASE WHEN \(column) IS NULL THEN NULL ELSE hex(\(column)) END AS c\(names.count)" : "\(column) AS c\(names.count)")
            names.append(a.name)
        }
        for (slot, r) in entity.allRelationships.enumerated() {
            guard let t = mapping.toOne[slot] else { continue }
            select.append("\(t.column) AS c\(names.count)")
            names.append(r.name)
        }
        let rows = try run("SELECT \(select.joined(separator: ", ")) FROM \(mapping.table) WHERE Z_ENT = \(mapping.number)", in: url)
        return rows.map { row in
            var values: [String: AttributeValue] = [:]
            for (i, name) in names.enumerated() {
                switch row["c\(i)"] {
                case let s as String: values[name] = .string(s)
                case let n as NSNumber:
                    let d = n.doubleValue
                    values[name] = d.rounded() == d && abs(d) < 9e15 && !"\(n)".contains(".") ? .integer(n.int64Value) : .double(d)
                default: values[name] = .null
                }
            }
            return RawRow(pk: (row["pk"] as? NSNumber)?.int64Value ?? 0, opt: (row["opt"] as? NSNumber)?.int64Value ?? 0, values: values)
        }
    }

    private static func hex(_ d: Data) -> String { d.map { String(format: "%02X", $0) }.joined() }

    private static func close(_ a: Double, _ b: Double) -> Bool { a == b || abs(a - b) <= 1e-9 * max(abs(a), abs(b)) }

    /// Whether a fetched value is what sqlite3 printed.
    static func same(_ value: AttributeValue, _ raw: AttributeValue, type: AttributeType) -> Bool {
        if case .null = raw { return value.isNull || (type.sqlColumnType == "BLOB" && value == .data(Data())) }
        switch (type, value) {
        case (.string, .string(let s)): return raw.stringValue == s || raw.description == s
        case (.uri, .url(let u)): return raw.stringValue == u.absoluteString
        case (.integer16, .integer(let i)), (.integer32, .integer(let i)), (.integer64, .integer(let i)): return raw.integerValue == i
        case (.boolean, .bool(let b)): return raw.integerValue == (b ? 1 : 0)
        case (.double, .double(let d)), (.float, .double(let d)): return raw.doubleValue.map { close($0, d) } ?? false
        case (.decimal, .decimal(let d)): return raw.doubleValue.map { close($0, NSDecimalNumber(decimal: d).doubleValue) } ?? false
        case (.date, .date(let d)): return raw.doubleValue.map { close($0, d.timeIntervalSinceReferenceDate) } ?? false
        case (.uuid, .uuid(let u)): return raw.stringValue == hex(SQLiteValueCodec.uuidData(u))
        case (.binaryData, .data(let d)), (.transformable, .data(let d)), (.uuid, .data(let d)): return raw.stringValue == hex(d)
        default: return false
        }
    }
}
