import Foundation
import Testing

@testable import CoreStack

/// The model a store carries (Z_MODELCACHE) and compiled `.mom` files, decoded from Apple's own files.
@Suite("models archived by Core Data: Z_MODELCACHE and .mom")
struct ModelArchiveTests {
    /// Every Apple-written store fixture with its entities (Z_PRIMARYKEY names, as the model names them).
    static let stores: [(path: String, entities: [String])] = [
        ("stores/alemar11-CoreDataPlus/SampleModel_V1.sqlite", ["Car", "SportCar", "ExpensiveSportCar", "Person"]),
        ("stores/alemar11-CoreDataPlus/SampleModel_V2.sqlite", ["Car", "SportCar", "LuxuryCar", "Person"]),
        ("stores/alemar11-CoreDataPlus/SampleModel2_V1.sqlite", ["Book", "GraphicNovel", "Feedback", "Page", "Writer", "Author"]),
        ("stores/alemar11-CoreDataPlus/SampleModel2_V2.sqlite", ["Book", "GraphicNovel", "Feedback", "Page", "Writer", "Author"]),
        ("stores/alemar11-CoreDataPlus/SampleModel3_V1.sqlite", ["User"]),
        ("stores/apple-iPhoneCoreDataRecipes-2018/Recipes.sqlite", ["Image", "Ingredient", "Recipe", "RecipeType"]),
        ("stores/bnr-CoreDataStack/TestModel.sqlite", ["Author", "Book"]),
        ("stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_1.sqlite", ["Post"]),
        ("stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_2.sqlite", ["Post"]),
        ("stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_3.sqlite", ["Color", "Post"]),
        ("stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite", ["Color", "Post"]),
    ]

    /// What two models must share: entities, their parents, and every stored property's shape.
    static func shape(_ model: ManagedObjectModel) -> [String] {
        model.entities.flatMap { e -> [String] in
            ["entity \(e.name) < \(e.superentity?.name ?? "-") abstract:\(e.isAbstract)"]
                + e.attributes.sorted { $0.name < $1.name }.map { a in
                    "  \(e.name).\(a.name): \(a.type) optional:\(a.isOptional) transient:\(a.isTransient) default:\(a.defaultValue)"
                }
                + e.relationships.sorted { $0.name < $1.name }.map { r in
                    "  \(e.name).\(r.name) -> \(r.destinationEntityName) inverse:\(r.inverseName ?? "-") toMany:\(r.isToMany) ordered:\(r.isOrdered) optional:\(r.isOptional) rule:\(r.deleteRule.rawValue) min:\(r.minCount)"
                }
        }
    }

    @Test("every Apple-written fixture store carries its model, and opens with it alone, unchanged")
    func everyStoreOpensWithItsStoredModel() throws {
        for (path, entities) in Self.stores {
            let url = try Fixtures.copyStore(path)
            let before = try Data(contentsOf: url)
            let model = try #require(try SQLiteStore.storedModel(at: url), "\(path)")
            #expect(model.origin == .storeModelCache)
            #expect(Set(model.entities.map(\.name)) == Set(entities), "\(path)")
            let store = try SQLiteStore(url: url, model: model, readOnly: true)
            #expect(store.model === model)
            #expect(try Data(contentsOf: url) == before, "\(path) changed")
        }
    }

    /// (Recipes.sqlite is left out: its cache is an older revision of the sample's model than the
    /// `.xcdatamodeld` beside it, with the same tables but other optionality, defaults and min counts.)
    @Test("a store's model cache has the same entities, attributes and relationships as the Xcode model version it matches")
    func storedModelMatchesXcodeModel() throws {
        let pairs: [(store: String, bundle: String)] = [
            ("stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_1.sqlite", "models/wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld"),
            ("stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_2.sqlite", "models/wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld"),
            ("stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_3.sqlite", "models/wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld"),
            ("stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite", "models/wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld"),
            ("stores/alemar11-CoreDataPlus/SampleModel_V1.sqlite", "models/alemar11-CoreDataPlus/SampleModel.xcdatamodeld"),
            ("stores/alemar11-CoreDataPlus/SampleModel3_V1.sqlite", "models/alemar11-CoreDataPlus/SampleModel3.xcdatamodeld"),
        ]
        for (storePath, bundlePath) in pairs {
            let url = try Fixtures.copyStore(storePath)
            let xcode = try SQLiteStore.open(url: url, bundle: try XcodeModelReader.readBundle(at: Fixtures.url(bundlePath)), readOnly: true).model
            let stored = try #require(try SQLiteStore.storedModel(at: url))
            #expect(Self.shape(stored) == Self.shape(xcode), "\(storePath) vs \(bundlePath) version \(xcode.versionName ?? "")")
        }
    }

    @Test("the model cache keeps inheritance, renaming identifiers, uniqueness constraints, fetch indexes and version identifiers")
    func storedModelDetails() throws {
        let v2 = try #require(try SQLiteStore.storedModel(at: try Fixtures.copyStore("stores/alemar11-CoreDataPlus/SampleModel_V2.sqlite")))
        let luxury = try #require(v2.entity(named: "LuxuryCar"))
        #expect(luxury.superentity?.name == "SportCar")
        #expect(luxury.superentity?.superentity?.name == "Car")
        #expect(luxury.renamingIdentifier == "ExpensiveSportCar")
        #expect(v2.versionIdentifiers == ["2"])
        let car = try #require(v2.entity(named: "Car"))
        #expect(car.uniquenessConstraints == [["numberPlate"]])
        #expect(car.attributes.map(\.name).contains("numberPlate"))
        // Sub-entities list only their own properties; inherited ones come from the parent.
        #expect(luxury.attributes.allSatisfy { car.attribute(named: $0.name) == nil })
        #expect(luxury.attribute(named: "numberPlate")?.isOptional == false)
        let v1 = try #require(try SQLiteStore.storedModel(at: try Fixtures.copyStore("stores/alemar11-CoreDataPlus/SampleModel_V1.sqlite")))
        let v1Car = try #require(v1.entity(named: "Car"))
        #expect(v1Car.attribute(named: "currentDrivingSpeed")?.isTransient == true)
        #expect(v1Car.attribute(named: "color")?.type == .transformable)
        #expect(v1Car.attribute(named: "color")?.valueTransformerName == "ColorTransformer")
        #expect(v1.entity(named: "ExpensiveSportCar")?.attribute(named: "isLimitedEdition")?.defaultValue == .bool(false))
        #expect(v1.entity(named: "Person")?.attribute(named: "id")?.type == .uuid)
        let owner = try #require(car.relationship(named: "owner"))
        #expect(owner.destinationEntityName == "Person" && owner.inverseName == "cars" && !owner.isToMany)
        let cars = try #require(v2.entity(named: "Person")?.relationship(named: "cars"))
        #expect(cars.isToMany && cars.deleteRule == .nullify)

        let recipes = try #require(try SQLiteStore.storedModel(at: try Fixtures.copyStore("stores/apple-iPhoneCoreDataRecipes-2018/Recipes.sqlite")))
        #expect(recipes.entity(named: "Ingredient")?.attribute(named: "name")?.defaultValue == .string("Ingredient Name"))
        let ingredients = try #require(recipes.entity(named: "Recipe")?.relationship(named: "ingredients"))
        #expect(ingredients.deleteRule == .cascade && ingredients.isToMany)
    }

    @Test("compiled .mom files decode to the same model as their .xcdatamodel versions; a .momd picks VersionInfo's current version")
    func compiledModels() throws {
        for (momd, xcdatamodeld) in [
            ("compiled/alemar11-CoreDataPlus/SampleModel.momd", "models/alemar11-CoreDataPlus/SampleModel.xcdatamodeld"),
            ("compiled/alemar11-CoreDataPlus/SampleModel3.momd", "models/alemar11-CoreDataPlus/SampleModel3.xcdatamodeld"),
        ] {
            let compiled = try CompiledModelReader.readBundle(at: Fixtures.url(momd))
            let xcode = try XcodeModelReader.readBundle(at: Fixtures.url(xcdatamodeld))
            #expect(compiled.versions.map(\.versionName) == xcode.versions.map(\.versionName))
            #expect(compiled.currentVersion.versionName == xcode.currentVersion.versionName)
            for (c, x) in zip(compiled.versions, xcode.versions) {
                #expect(c.origin == .compiledModel)
                #expect(Self.shape(c) == Self.shape(x), "\(momd) \(c.versionName ?? "")")
                #expect(c.versionIdentifiers == x.versionIdentifiers)
            }
        }
        let one = try CompiledModelReader.readModel(at: Fixtures.url("compiled/alemar11-CoreDataPlus/SampleModel3.momd/SampleModel3_v2.mom"))
        #expect(one.versionName == "SampleModel3_v2")
    }

    // MARK: - Damaged and hostile caches

    /// The real model cache of a fixture store.
    static func realCache() throws -> Data {
        try #require(try SQLiteStore.storedModelCache(at: try Fixtures.copyStore("stores/alemar11-CoreDataPlus/SampleModel_V1.sqlite")))
    }

    /// The cache's archive as plain property-list values, references spelled `{"CF$UID": n}`, to edit.
    static func editableArchive() throws -> [String: Any] {
        func plain(_ v: Any) -> Any {
            if let n = KeyedArchive.uid(v) { return ["CF$UID": n] }
            if let d = v as? [String: Any] { return d.mapValues(plain) }
            if let a = v as? [Any] { return a.map(plain) }
            return v
        }
        let plist = try RawDeflate.inflate(try realCache(), source: "test")
        let decoded = try PropertyListSerialization.propertyList(from: plist, options: [], format: nil)
        return try #require(plain(decoded) as? [String: Any])
    }

    /// A cache made of an edited archive.
    static func cache(_ archive: [String: Any]) throws -> Data {
        try RawDeflate.deflate(try PropertyListSerialization.data(fromPropertyList: archive, format: .binary, options: 0))
    }

    /// The index of the first object of class `name` in an editable archive.
    static func firstObject(ofClass name: String, in archive: [String: Any]) throws -> Int {
        let objects = try #require(archive["$objects"] as? [Any])
        let classIndex = try #require(objects.firstIndex { ($0 as? [String: Any])?["$classname"] as? String == name })
        return try #require(objects.firstIndex { (($0 as? [String: Any])?["$class"] as? [String: Any])?["CF$UID"] as? Int == classIndex })
    }

    static func edit(_ archive: [String: Any], object index: Int, key: String, to value: Any) throws -> [String: Any] {
        var archive = archive
        var objects = try #require(archive["$objects"] as? [Any])
        var object = try #require(objects[index] as? [String: Any])
        object[key] = value
        objects[index] = object
        archive["$objects"] = objects
        return archive
    }

    @Test("an edited copy of a real cache still decodes (the test's re-encoding is faithful)")
    func editedCacheRoundTrips() throws {
        let model = try ManagedObjectModel(archivedModelCache: try Self.cache(try Self.editableArchive()))
        #expect(Set(model.entities.map(\.name)) == ["Car", "SportCar", "ExpensiveSportCar", "Person"])
    }

    @Test("damaged or hostile caches throw a typed error saying what and where, never crash or hang")
    func damagedCaches() throws {
        let real = try Self.realCache()
        func archiveError(_ data: Data) -> ModelArchiveError? {
            do {
                _ = try ManagedObjectModel(archivedModelCache: data)
                return nil
            } catch let e as ModelArchiveError {
                return e
            } catch {
                return nil
            }
        }
        // Truncated.
        let truncated = try #require(archiveError(real.prefix(real.count / 2)))
        #expect(truncated.location == "deflate stream" && truncated.reason.contains("truncated"))
        // Not deflate.
        let notDeflate = try #require(archiveError(Data("this is not deflate data at all".utf8)))
        #expect(notDeflate.location == "deflate stream")
        // Empty.
        #expect(archiveError(Data()) != nil)
        // Deflate of something that is not a property list.
        let notPlist = try #require(archiveError(try RawDeflate.deflate(Data("hello, world".utf8))))
        #expect(notPlist.location == "property list")
        // A property list that is not a keyed archive.
        let plainPlist = try PropertyListSerialization.data(fromPropertyList: ["a": 1], format: .binary, options: 0)
        #expect(try #require(archiveError(try RawDeflate.deflate(plainPlist))).location == "$archiver")
        // A keyed archive of something else: the root is the first entity, not the model.
        var archive = try Self.editableArchive()
        let entity = try Self.firstObject(ofClass: "NSEntityDescription", in: archive)
        archive["$top"] = ["root": ["CF$UID": entity]]
        let other = try #require(archiveError(try Self.cache(archive)))
        #expect(other.reason.contains("not an NSManagedObjectModel"))
        // A reference far past the end of $objects (a huge count).
        let model = try Self.firstObject(ofClass: "NSManagedObjectModel", in: try Self.editableArchive())
        let far = try Self.edit(try Self.editableArchive(), object: model, key: "NSEntities", to: ["CF$UID": 2_000_000_000])
        let farError = try #require(archiveError(try Self.cache(far)))
        #expect(farError.location == "$objects[\(model)].NSEntities" && farError.reason.contains("refers to object 2000000000"))
        // Properties that point back at the model (a cycle through the wrong kind of object).
        let loop = try Self.edit(try Self.editableArchive(), object: entity, key: "NSProperties", to: ["CF$UID": model])
        #expect(archiveError(try Self.cache(loop))?.location == "$objects[\(entity)].NSProperties")
        // A mistyped field.
        let mistyped = try Self.edit(try Self.editableArchive(), object: entity, key: "NSEntityName", to: 42)
        #expect(archiveError(try Self.cache(mistyped))?.location == "$objects[\(entity)].NSEntityName")
    }

    @Test("an entity that is its own parent in the cache is refused as an invalid model")
    func superentityCycle() throws {
        var archive = try Self.editableArchive()
        let entity = try Self.firstObject(ofClass: "NSEntityDescription", in: archive)
        archive = try Self.edit(archive, object: entity, key: "NSSuperentity", to: ["CF$UID": entity])
        #expect {
            _ = try ManagedObjectModel(archivedModelCache: try Self.cache(archive))
        } throws: { error in
            if case CoreStackError.invalidModel(_, _, let reason) = error { return reason.contains("cycle") }
            return false
        }
    }

    @Test("inflating stops at the size limit (a deflate bomb)")
    func inflateLimit() throws {
        let bomb = try RawDeflate.deflate(Data(count: 1 << 20))
        #expect(bomb.count < 4096)
        #expect(try RawDeflate.inflate(bomb, source: "bomb").count == 1 << 20)
        #expect {
            _ = try RawDeflate.inflate(bomb, source: "bomb", limit: 1 << 16)
        } throws: { error in
            (error as? ModelArchiveError)?.reason.contains("more than 65536 bytes") == true
        }
    }
}

/// CoreStack's own archives: written in Apple's encoding, read back by the same decoder.
@Suite("models archived by CoreStack")
struct ModelArchiveWritingTests {
    static let bundles = [
        "models/alemar11-CoreDataPlus/SampleModel.xcdatamodeld",
        "models/alemar11-CoreDataPlus/SampleModel3.xcdatamodeld",
        "models/apple-iPhoneCoreDataRecipes-2018/Recipes.xcdatamodeld",
        "models/atomicbird-momcom/momcomTests.xcdatamodeld",
        "models/bnr-CoreDataStack/Sample.xcdatamodeld",
        "models/bnr-CoreDataStack/Container_Example.xcdatamodeld",
        "models/bnr-CoreDataStack/UniqueConstraintModel.xcdatamodeld",
        "models/wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld",
    ]

    /// Class name → every key its instances use, over an archive's objects.
    static func keysByClass(_ plist: Data) throws -> [String: Set<String>] {
        let archive = try KeyedArchive(plist: plist, source: "test")
        let decoded = try PropertyListSerialization.propertyList(from: plist, options: [], format: nil)
        let objects = try #require((decoded as? [String: Any])?["$objects"] as? [Any])
        var keys: [String: Set<String>] = [:]
        for (i, o) in objects.enumerated() {
            guard let fields = o as? [String: Any], fields["$class"] != nil else { continue }
            keys[try archive.className(of: i), default: []].formUnion(fields.keys.filter { $0 != "$class" })
        }
        return keys
    }

    @Test("every fixture model survives archiving: same entities, properties and version hashes")
    func roundTrip() throws {
        for path in Self.bundles {
            for model in try XcodeModelReader.readBundle(at: Fixtures.url(path)).versions {
                let back = try ManagedObjectModel(archivedModelCache: try model.archivedModelCache())
                #expect(ModelArchiveTests.shape(back) == ModelArchiveTests.shape(model), "\(path) \(model.versionName ?? "")")
                #expect(back.entityVersionHashes == model.entityVersionHashes, "\(path) \(model.versionName ?? "")")
                #expect(back.versionIdentifiers == model.versionIdentifiers.filter { !$0.isEmpty })
                #expect(back.entities.map { $0.uniquenessConstraints } == model.entities.map { $0.uniquenessConstraints })
                #expect(back.entities.map { $0.renamingIdentifier } == model.entities.map { $0.renamingIdentifier })
            }
        }
    }

    @Test("CoreStack writes the classes and keys Apple writes, and the same decoder reads both to the same model")
    func sameEncodingAsApple() throws {
        var apple: [String: Set<String>] = [:]
        for (path, _) in ModelArchiveTests.stores {
            let cache = try #require(try SQLiteStore.storedModelCache(at: try Fixtures.copyStore(path)))
            for (cls, keys) in try Self.keysByClass(try RawDeflate.inflate(cache, source: path)) { apple[cls, default: []].formUnion(keys) }
        }
        let url = try Fixtures.copyStore("stores/alemar11-CoreDataPlus/SampleModel2_V1.sqlite")
        let appleModel = try #require(try SQLiteStore.storedModel(at: url))
        let ours = try Self.keysByClass(appleModel.archivedModel())
        for cls in ["NSManagedObjectModel", "NSEntityDescription", "NSAttributeDescription", "NSRelationshipDescription", "NSKnownKeysDictionary1", "NSKnownKeysMappingStrategy1"] {
            let mine = try #require(ours[cls], "\(cls) is not in CoreStack's archive")
            #expect(mine.isSubset(of: apple[cls] ?? []), "\(cls): keys Apple never writes: \(mine.subtracting(apple[cls] ?? []).sorted())")
        }
        #expect(Set(ours.keys).isSubset(of: Set(apple.keys).union(["NSDate", "NSUUID"])))
        // Apple's archive and CoreStack's re-encoding of it decode to the same model.
        let again = try ManagedObjectModel(archivedModel: appleModel.archivedModel())
        #expect(ModelArchiveTests.shape(again) == ModelArchiveTests.shape(appleModel))
        #expect(again.entityVersionHashes == appleModel.entityVersionHashes)
    }

    @Test("a store CoreStack creates carries its model in Z_MODELCACHE, which reopens it with no model file")
    func storesCarryTheirModel() throws {
        let bundle = try XcodeModelReader.readBundle(at: Fixtures.url("models/bnr-CoreDataStack/Sample.xcdatamodeld"))
        let url = try Fixtures.temporaryFolder().appendingPathComponent("sample.sqlite")
        do { _ = try SQLiteStore(url: url, model: bundle.currentVersion) }
        let stored = try #require(try SQLiteStore.storedModel(at: url))
        #expect(stored.entityVersionHashes == bundle.currentVersion.entityVersionHashes)
        #expect(try RawSQLite.scalar("SELECT COUNT(*) FROM Z_MODELCACHE", in: url) == 1)
        _ = try SQLiteStore(url: url, model: stored, readOnly: true)
    }
}
