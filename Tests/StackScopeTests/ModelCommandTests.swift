import CoreStack
import Foundation
import StackScope
import Testing

/// `stackscope model`: the model of a store drawn (DOT, Mermaid), listed (JSON) or written as a bundle.
@Suite("model: the model drawn and written")
struct ModelCommandTests {
    @Test("the demo graph: each relationship pair one edge, in words; inheritance edges for each sub-entity")
    func graph() throws {
        let graph = ModelGraph(model: try DemoLibrary.model())
        #expect(graph.entities.map(\.name) == TestSupport.demoEntities)
        #expect(graph.edges.map(\.label) == [
            "publisher: to-one / books: to-many",
            "authors / books: many-to-many",
            "genres / books: many-to-many",
            "editor: to-one / editedBooks: to-many",
            "chapters: ordered to-many / book: to-one",
        ])
        #expect(graph.edges.map { "\($0.from)->\($0.to)" } == ["Book->Publisher", "Book->Author", "Book->Genre", "Book->Editor", "Book->Chapter"])
        #expect(graph.inheritance.map(\.description) == ["GraphicNovel → Book", "Author → Person", "Editor → Person"])
    }

    @Test("a relationship without inverse is an edge of its own; an inverse declared on a parent entity is not drawn again")
    func inversesOnParents() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Owner") {
                RelationshipDescription("pets", destination: "Pet", inverse: "owner", toMany: true)
                RelationshipDescription("favourite", destination: "Dog")
            }
            EntityDescription("Pet", isAbstract: true) {
                AttributeDescription("name", .string, isOptional: false)
                RelationshipDescription("owner", destination: "Owner", inverse: "pets")
            }
            EntityDescription("Dog", parent: "Pet") { AttributeDescription("barks", .boolean) }
        }
        let graph = ModelGraph(model: model)
        #expect(graph.edges.map(\.label) == ["pets: to-many / owner: to-one", "favourite: to-one (no inverse)"])
        #expect(graph.inheritance.map(\.description) == ["Dog → Pet"])
    }

    @Test("DOT: one box per entity with its own attributes (optional marked ?) and relationships, one line per edge, crow's feet at to-many ends")
    func dot() throws {
        let dot = ModelGraphDOT.render(ModelGraph(model: try DemoLibrary.model()), name: "DemoLibrary")
        let lines = dot.split(separator: "\n").map(String.init)
        #expect(lines.contains("digraph \"DemoLibrary\" {"))
        #expect(lines.last == "}")
        for entity in TestSupport.demoEntities {
            #expect(lines.filter { $0.hasPrefix("  \"\(entity)\" [label=<") }.count == 1, "\(entity)")
        }
        let book = try #require(lines.first { $0.hasPrefix("  \"Book\" [label=<") })
        #expect(book.contains("title: String<br/>isbn: String?<br/>"))
        #expect(book.contains("chapters ⇉ Chapter? (ordered)"))
        let novel = try #require(lines.first { $0.hasPrefix("  \"GraphicNovel\" [label=<") })
        #expect(novel.contains("illustrator: String?") && !novel.contains("title:"))
        #expect(try #require(lines.first { $0.hasPrefix("  \"Person\" [label=<") }).contains("<i>abstract</i>"))
        #expect(lines.contains("  \"Book\" -> \"Author\" [label=\"authors / books: many-to-many\", dir=both, arrowhead=crow, arrowtail=crow];"))
        #expect(lines.contains("  \"Book\" -> \"Chapter\" [label=\"chapters: ordered to-many / book: to-one\", dir=both, arrowhead=crow, arrowtail=tee];"))
        #expect(lines.filter { $0.contains(" -> ") && $0.contains("dir=both") }.count == 5)
        #expect(lines.contains { $0.hasPrefix("  \"GraphicNovel\" -> \"Book\" [arrowhead=empty") })
        #expect(lines.filter { $0.contains("arrowhead=empty") }.count == 3)
    }

    @Test("DOT and Mermaid escape names that are not plain identifiers")
    func escaping() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Odd \"name\"") {
                AttributeDescription("a<b>&c", .string)
                RelationshipDescription("plain", destination: "Plain_2")
            }
            EntityDescription("Plain_2")
        }
        let graph = ModelGraph(model: model)
        let dot = ModelGraphDOT.render(graph, name: "back\\slash")
        #expect(dot.contains("digraph \"back\\\\slash\" {"))
        #expect(dot.contains("  \"Odd \\\"name\\\"\" [label=<"))
        #expect(dot.contains("<b>Odd &quot;name&quot;</b>"))
        #expect(dot.contains("a&lt;b&gt;&amp;c: String?"))
        #expect(dot.contains("  \"Odd \\\"name\\\"\" -> \"Plain_2\" [label=\"plain: to-one (no inverse)\""))
        let mermaid = ModelGraphMermaid.render(graph)
        #expect(mermaid.contains("  class `Odd \"name\"` {"))
        #expect(mermaid.contains("  class Plain_2 {"))
        #expect(mermaid.contains("  `Odd \"name\"` --> \"0..1\" Plain_2 : plain, to-one (no inverse)"))
    }

    @Test("Mermaid: a class per entity, multiplicities at both ends, inheritance arrows; no member line Mermaid would take for a method")
    func mermaid() throws {
        let text = ModelGraphMermaid.render(ModelGraph(model: try DemoLibrary.model()))
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first == "classDiagram")
        for entity in TestSupport.demoEntities { #expect(lines.contains("  class \(entity) {"), "\(entity)") }
        #expect(lines.contains("    <<abstract>>"))
        #expect(lines.contains("    chapters ⇉ Chapter? [ordered]"))
        #expect(lines.contains("  Book \"*\" -- \"*\" Author : authors / books, many-to-many"))
        #expect(lines.contains("  Book \"*\" -- \"0..1\" Publisher : publisher, to-one / books, to-many"))
        #expect(lines.contains("  Book \"0..1\" -- \"* ordered\" Chapter : chapters, ordered to-many / book, to-one"))
        #expect(lines.contains("  Book <|-- GraphicNovel"))
        #expect(lines.contains("  Person <|-- Author"))
        let members = lines.filter { $0.hasPrefix("    ") }
        #expect(!members.contains { $0.contains(")") || $0.hasSuffix("*") || $0.hasSuffix("$") })
    }

    @Test("JSON: the model's source, entities with their properties, edges with both cardinalities and the pair's kind, inheritance")
    func json() throws {
        let (url, _) = try TestSupport.demoStore(size: 40)
        let result = try ModelCommand.run(storePath: url.path, modelPath: nil, format: .json, outputPath: nil)
        let json = try #require(try TestSupport.parseJSON(result.output) as? [String: Any])
        #expect(json["name"] as? String == "DemoLibrary")
        #expect(json["source"] as? String == "demo model")
        let entities = try #require(json["entities"] as? [[String: Any]])
        #expect(entities.compactMap { $0["name"] as? String } == TestSupport.demoEntities)
        let edges = try #require(json["edges"] as? [[String: Any]])
        func kind(_ relationship: String) -> String? {
            edges.first { $0["from"] as? String == "Book" && $0["relationship"] as? String == relationship }?["kind"] as? String
        }
        #expect(kind("publisher") == "many-to-one")
        #expect(kind("authors") == "many-to-many")
        #expect(kind("chapters") == "one-to-many")
        let chapters = try #require(edges.first { $0["relationship"] as? String == "chapters" })
        #expect(chapters["cardinality"] as? String == "ordered to-many")
        #expect(chapters["inverseCardinality"] as? String == "to-one")
        let inheritance = try #require(json["inheritance"] as? [[String: String]])
        #expect(inheritance == [["entity": "GraphicNovel", "parent": "Book"], ["entity": "Author", "parent": "Person"], ["entity": "Editor", "parent": "Person"]])
    }

    @Test("xcdatamodeld from the demo store: read back, the same model (version hashes), and it opens the store as --model")
    func demoBundle() throws {
        let (url, _) = try TestSupport.demoStore(size: 40)
        let folder = try TestSupport.temporaryDirectory()
        let result = try ModelCommand.run(
            storePath: url.path, modelPath: nil, format: .xcdatamodeld, outputPath: "Library.xcdatamodeld",
            currentDirectory: folder.path)
        let bundle = folder.appendingPathComponent("Library.xcdatamodeld")
        #expect(result.output == "wrote \(bundle.path): 8 entities (model: demo model)\n")
        let back = try XcodeModelReader.readModel(at: bundle)
        let demo = try DemoLibrary.model()
        #expect(back.entityVersionHashes == demo.entityVersionHashes)
        #expect(back.versionName == "DemoLibrary")
        #expect(back.versionIdentifiers == demo.versionIdentifiers)
        for e in demo.entities {
            #expect(back.entity(named: e.name)?.attributes == e.attributes, "\(e.name)")
            #expect(back.entity(named: e.name)?.relationships == e.relationships, "\(e.name)")
        }
        let info = try InfoCommand.info(storePath: url.path, modelPath: bundle.path)
        #expect(info.modelSource == "file Library.xcdatamodeld version DemoLibrary")
        #expect(info.warnings.isEmpty)

        // Never over an existing bundle.
        #expect(throws: CoreStackError.modelNotWritten(path: bundle.path, reason: "it already exists; choose another path or remove it first")) {
            try ModelCommand.run(storePath: url.path, modelPath: nil, format: .xcdatamodeld, outputPath: bundle.path)
        }
    }

    @Test("xcdatamodeld from an Apple store's own model, into a folder: named after the store, same version hashes, the store unchanged")
    func storedModelBundle() throws {
        let store = try StoreOwnModelTests.copy(["alemar11-CoreDataPlus/SampleModel2_V1.sqlite"])
        let before = try TestSupport.folderSnapshot(store.deletingLastPathComponent())
        let folder = try TestSupport.temporaryDirectory()
        let result = try ModelCommand.run(storePath: store.path, modelPath: nil, format: .xcdatamodeld, outputPath: folder.path)
        let bundle = folder.appendingPathComponent("SampleModel2_V1.xcdatamodeld")
        #expect(result.output.hasPrefix("wrote \(bundle.path): 6 entities (model: stored in the store (Z_MODELCACHE))"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: bundle.path).sorted() == [".xccurrentversion", "SampleModel2_V1.xcdatamodel"])
        let stored = try #require(try SQLiteStore.storedModel(at: store))
        #expect(try XcodeModelReader.readModel(at: bundle).entityVersionHashes == stored.entityVersionHashes)
        #expect(try TestSupport.folderSnapshot(store.deletingLastPathComponent()) == before)
        let info = try InfoCommand.info(storePath: store.path, modelPath: bundle.path)
        #expect(info.warnings.isEmpty)
    }

    @Test("xcdatamodeld from a model inferred from the tables: a warning says so, and the bundle opens the store")
    func inferredBundle() throws {
        let store = try StoreOwnModelTests.copy(["apple-iPhoneCoreDataRecipes-2018/Recipes.sqlite"])
        _ = try StoreOwnModelTests.sqlite3("DELETE FROM Z_MODELCACHE", store, readOnly: false)
        let folder = try TestSupport.temporaryDirectory()
        let result = try ModelCommand.run(
            storePath: store.path, modelPath: nil, format: .xcdatamodeld, outputPath: nil, currentDirectory: folder.path)
        #expect(result.warnings.first?.hasPrefix("opened with a model inferred from the schema") == true)
        let bundle = folder.appendingPathComponent("Recipes.xcdatamodeld")
        #expect(try XcodeModelReader.readModel(at: bundle).entityVersionHashes == (try SQLiteStore.inferredModel(at: store)).entityVersionHashes)
        let info = try InfoCommand.info(storePath: store.path, modelPath: bundle.path)
        #expect(info.modelSource == "file Recipes.xcdatamodeld version Recipes")
    }

    @Test("-o writes DOT, Mermaid or JSON to a file and says where; a path that cannot be written is a clear error")
    func outputFile() throws {
        let (url, _) = try TestSupport.demoStore(size: 40)
        let folder = try TestSupport.temporaryDirectory()
        let result = try ModelCommand.run(
            storePath: url.path, modelPath: nil, format: .dot, outputPath: "model.dot", currentDirectory: folder.path)
        let file = folder.appendingPathComponent("model.dot")
        #expect(result.output == "wrote \(file.path)\n")
        let printed = try ModelCommand.run(storePath: url.path, modelPath: nil, format: .dot, outputPath: nil).output
        #expect(String(decoding: try Data(contentsOf: file), as: UTF8.self) == printed)
        let bad = folder.appendingPathComponent("no/such/folder/model.mmd").path
        let error = #expect(throws: StackScopeError.self) {
            try ModelCommand.run(storePath: url.path, modelPath: nil, format: .mermaid, outputPath: bad)
        }
        guard case let .cannotWrite(path, _) = error else {
            Issue.record("expected cannotWrite, got \(String(describing: error))")
            return
        }
        #expect(path == bad)

        // Never over the store itself.
        let before = try TestSupport.checksum(url)
        #expect(throws: StackScopeError.cannotWrite(path: url.path, reason: "it is the store being read (or one of its side files)")) {
            try ModelCommand.run(storePath: url.path, modelPath: nil, format: .json, outputPath: url.path)
        }
        #expect(try TestSupport.checksum(url) == before)
    }
}
