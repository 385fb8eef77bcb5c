import Foundation
import TestSupportKit
import Testing

@testable import CoreStack

/// `.xcdatamodeld` bundles written by ``XcodeModelWriter`` and read back by ``XcodeModelReader``.
@Suite("XcodeModelWriter")
struct XcodeModelWriterTests {
    /// Everything a model file says about a model, as comparable text: entities in name order with
    /// every declared field (user info sorted: a dictionary's description has no fixed order), then
    /// templates, configurations and the version identifier.
    static func details(_ model: ManagedObjectModel) -> [String] {
        var lines = model.entities.sorted { $0.name < $1.name }.flatMap { e -> [String] in
            [
                "entity \(e.name) < \(e.superentityName ?? "-") abstract:\(e.isAbstract) class:\(e.representedClassName ?? "-") id:\(e.renamingIdentifier ?? "-") modifier:\(e.versionHashModifier ?? "-") info:\(e.userInfo.sorted { $0.key < $1.key })",
                "  unique:\(e.uniquenessConstraints) indexes:\(e.fetchIndexes)",
            ]
                + e.attributes.map { a in
                    var bare = a
                    bare.userInfo = [:]
                    // Read-only metadata of a stored model (Z_MODELCACHE) that neither the Xcode
                    // model reader nor the writer carries yet: a derived attribute's expression, and
                    // validation predicates (Xcode keeps min/max/regex, which Core Data compiles
                    // into those predicates).
                    bare.derivationExpression = nil
                    bare.validationPredicates = []
                    bare.validationWarnings = []
                    return "  \(e.name).\(String(describing: bare)) info:\(a.userInfo.sorted { $0.key < $1.key })"
                }
                + e.relationships.map { r in
                    var bare = r
                    bare.userInfo = [:]
                    return "  \(e.name).\(String(describing: bare)) info:\(r.userInfo.sorted { $0.key < $1.key })"
                }
        }
        lines.append("templates:\(model.fetchRequestTemplates.sorted { $0.key < $1.key })")
        lines.append("configurations:\(model.configurations.sorted { $0.key < $1.key })")
        lines.append("identifier:\(model.versionIdentifiers.first ?? "")")
        return lines
    }

    /// Writes `model` to a fresh folder and reads it back.
    static func roundTrip(_ model: ManagedObjectModel, name: String = "Written") throws -> (ManagedObjectModel, URL) {
        let url = try TemporaryRoot.folder("model-writer").appendingPathComponent("\(name).xcdatamodeld")
        try XcodeModelWriter.writeBundle(model, to: url)
        return (try XcodeModelReader.readModel(at: url), url)
    }

    @Test("every version of every fixture bundle reads back the same: same fields, same version hashes, same current version")
    func fixtureBundles() throws {
        for path in ModelArchiveWritingTests.bundles + ["models/bnr-CoreDataStack-2015/TestModel.xcdatamodeld"] {
            let original = try XcodeModelReader.readBundle(at: Fixtures.url(path))
            let url = try TemporaryRoot.folder("model-writer").appendingPathComponent(Fixtures.url(path).lastPathComponent)
            try XcodeModelWriter.writeBundle(original, to: url)
            let back = try XcodeModelReader.readBundle(at: url)
            #expect(back.name == original.name, "\(path)")
            #expect(back.versions.map(\.versionName) == original.versions.map(\.versionName), "\(path)")
            #expect(back.currentVersion.versionName == original.currentVersion.versionName, "\(path)")
            for (a, b) in zip(original.versions, back.versions) {
                #expect(b.entityVersionHashes == a.entityVersionHashes, "\(path) \(a.versionName ?? "")")
                #expect(Self.details(b) == Self.details(a), "\(path) \(a.versionName ?? "")")
            }
        }
    }

    @Test("the model a store carries (Z_MODELCACHE) reads back with the same version hashes, and the written bundle opens the store")
    func storedModels() throws {
        for (path, _) in ModelArchiveTests.stores {
            let store = try Fixtures.copyStore(path)
            let stored = try #require(try SQLiteStore.storedModel(at: store), "\(path)")
            let (back, url) = try Self.roundTrip(stored, name: store.deletingPathExtension().lastPathComponent)
            #expect(back.entityVersionHashes == stored.entityVersionHashes, "\(path)")
            #expect(Self.details(back) == Self.details(stored), "\(path)")
            let opened = try SQLiteStore.open(url: store, bundle: try XcodeModelReader.readBundle(at: url), readOnly: true)
            #expect(opened.model.entityVersionHashes == stored.entityVersionHashes, "\(path)")
            opened.close()
        }
    }

    @Test("a model inferred from a store's tables reads back the same, inferred-inverse marks included, and opens the store")
    func inferredModel() throws {
        let store = try Fixtures.copyStore("stores/apple-iPhoneCoreDataRecipes-2018/Recipes.sqlite")
        let inferred = try SQLiteStore.inferredModel(at: store)
        let (back, url) = try Self.roundTrip(inferred, name: "Recipes")
        #expect(back.entityVersionHashes == inferred.entityVersionHashes)
        #expect(Self.details(back) == Self.details(inferred))
        #expect(back.entities.flatMap(\.relationships).contains { $0.isInferredInverse })
        let opened = try SQLiteStore.open(url: store, bundle: try XcodeModelReader.readBundle(at: url), readOnly: true)
        opened.close()
    }

    @Test("text with quotes, markup, ampersands, tabs and newlines survives in names, defaults, rules, user info and templates")
    func escaping() throws {
        let tricky = "a \"quoted\" <b> & 'c'\n\tnext\r line"
        let model = try ManagedObjectModel(
            entities: [
                EntityDescription(
                    name: "Note",
                    attributes: [
                        AttributeDescription(
                            "text", .string, defaultValue: .string(tricky), regularExpression: "[<>&\"]+.*",
                            userInfo: ["key <&>": tricky]),
                        AttributeDescription("when", .date, defaultValue: .date(Date(timeIntervalSinceReferenceDate: 123.456))),
                        AttributeDescription("ratio", .float, defaultValue: .double(Double(Float(0.1))), minValue: .double(-2.5)),
                        AttributeDescription("amount", .decimal, defaultValue: .decimal(Decimal(string: "12.345")!)),
                        AttributeDescription("id", .uuid, defaultValue: .uuid(UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FD430C8")!)),
                    ],
                    relationships: [], userInfo: ["entity": tricky]),
            ],
            versionIdentifiers: ["v\"1\""],
            fetchRequestTemplates: [FetchRequestTemplate(name: "quoted", entityName: "Note", predicateString: "text == \"<&>\"", fetchLimit: 3)])
        let (back, url) = try Self.roundTrip(model)
        #expect(Self.details(back) == Self.details(model))
        #expect(back.entity(named: "Note")?.attribute(named: "text")?.defaultValue == .string(tricky))
        // A file Xcode's own reader (libxml2) takes: well-formed XML.
        let contents = try Data(contentsOf: url.appendingPathComponent("Written.xcdatamodel/contents"))
        #expect(String(decoding: contents, as: UTF8.self).hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<model type=\"com.apple.IDECoreDataModeler.DataModel\""))
    }

    @Test("the bundle holds NAME.xcdatamodel/contents and a .xccurrentversion naming it")
    func bundleLayout() throws {
        let model = try XcodeModelReader.readModel(at: Fixtures.url("models/bnr-CoreDataStack/UniqueConstraintModel.xcdatamodeld"))
        let folder = try TemporaryRoot.folder("model-writer")
        let url = folder.appendingPathComponent("Lost.xcdatamodeld")
        try XcodeModelWriter.writeBundle(model, to: url)
        let items = try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
        #expect(items == [".xccurrentversion", "UniqueConstraintModel.xcdatamodel"])
        let plist = try PropertyListSerialization.propertyList(
            from: Data(contentsOf: url.appendingPathComponent(".xccurrentversion")), format: nil)
        #expect((plist as? [String: Any])?["_XCCurrentVersionName"] as? String == "UniqueConstraintModel.xcdatamodel")
        #expect(FileManager.default.fileExists(atPath: url.appendingPathComponent("UniqueConstraintModel.xcdatamodel/contents").path))

        // A model with no version name (a store's own) is named after the bundle.
        let unnamed = try ManagedObjectModel(entities: model.entities, versionName: nil)
        try XcodeModelWriter.writeBundle(unnamed, to: folder.appendingPathComponent("Recovered.xcdatamodeld"))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("Recovered.xcdatamodeld").path).sorted()
                == [".xccurrentversion", "Recovered.xcdatamodel"])
    }

    @Test("an existing path or a name without .xcdatamodeld is refused with modelNotWritten, and what is there is left alone")
    func refusals() throws {
        let model = try XcodeModelReader.readModel(at: Fixtures.url("models/bnr-CoreDataStack/UniqueConstraintModel.xcdatamodeld"))
        let folder = try TemporaryRoot.folder("model-writer")
        let existing = folder.appendingPathComponent("Mine.xcdatamodeld")
        try FileManager.default.createDirectory(at: existing, withIntermediateDirectories: false)
        try Data("keep".utf8).write(to: existing.appendingPathComponent("note"))
        #expect(throws: CoreStackError.modelNotWritten(path: existing.path, reason: "it already exists; choose another path or remove it first")) {
            try XcodeModelWriter.writeBundle(model, to: existing)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: existing.path) == ["note"])

        let wrong = folder.appendingPathComponent("Model.xml")
        #expect(throws: CoreStackError.modelNotWritten(path: wrong.path, reason: "a model bundle's name must end in .xcdatamodeld")) {
            try XcodeModelWriter.writeBundle(model, to: wrong)
        }
        let missingParent = folder.appendingPathComponent("no/such/Model.xcdatamodeld")
        let error = #expect(throws: CoreStackError.self) { try XcodeModelWriter.writeBundle(model, to: missingParent) }
        guard case let .modelNotWritten(path, _) = error else {
            Issue.record("not modelNotWritten: \(String(describing: error))")
            return
        }
        #expect(path == missingParent.path)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("no").path))
    }
}
