import CoreStack
import Foundation
import StackScope
import Testing

/// The model view (`m`, `:model`): entities and their cards, jump by name, neighbours only, Enter opens.
@Suite("browser: the model view")
struct BrowserModelViewTests {
    func state() throws -> AppState {
        var s = AppState(store: StoreSummary(path: "/tmp/x.sqlite", modelVersion: "DemoLibrary", readOnly: true))
        s.size = Size(width: 120, height: 36)
        let model = try DemoLibrary.model()
        let nodes = model.entities.map { e in
            EntityNode(name: e.name, depth: e.superentity == nil ? 0 : 1, isAbstract: e.isAbstract, hasChildren: !e.subentities.isEmpty)
        }
        _ = App.update(&s, .entitiesLoaded(nodes, counts: [:]))
        s.modals.append(.model(ModelViewState(graph: ModelGraph(model: model))))
        return s
    }

    func view(_ s: AppState) throws -> ModelViewState {
        guard case let .model(m)? = s.topModal else {
            Issue.record("the model view is not shown")
            throw CancellationError()
        }
        return m
    }

    @Test("m and :model ask the program for the model view, also on a read-only store")
    func opening() {
        var s = AppState(store: StoreSummary(path: "/tmp/x.sqlite", modelVersion: "V1", readOnly: true))
        #expect(App.update(&s, .key(.char("m"))) == [.edit(.showModel)])
        #expect(App.update(&s, .commandLine("model")) == [.edit(.showModel)])
    }

    @Test("the list shows every entity, sub-entities indented; the card the selected entity's properties, inheritance and links")
    func listAndCard() throws {
        var s = try state()
        var m = try view(s)
        #expect(m.visibleEntities.map(\.name) == TestSupport.demoEntities)
        #expect(m.visibleEntities.first { $0.name == "GraphicNovel" }?.depth == 1)
        #expect(m.selectedEntity == "Book")
        let book = m.card(for: "Book")
        #expect(book.first == "Book")
        #expect(book.contains("  title: String"))
        #expect(book.contains("  chapters ⇉ Chapter? (ordered)  ordered to-many, inverse book, Cascade"))
        #expect(book.contains("Sub-entities: GraphicNovel"))
        #expect(book.contains("Linked with: GraphicNovel, Chapter, Genre, Author, Editor, Publisher"))
        #expect(m.card(for: "Author").contains("  name: String  (from Person)"))
        #expect(m.card(for: "Person").first == "Person (abstract)")

        let screen = App.render(s).buffer.text
        #expect(screen.contains("Model · 8 entities"))
        #expect(screen.contains("  GraphicNovel"))
        #expect(screen.contains("chapters ⇉ Chapter? (ordered)  ordered to-many, inverse book, Cascade"))

        _ = App.update(&s, .key(.down))
        m = try view(s)
        #expect(m.selectedEntity == "GraphicNovel")
        #expect(App.render(s).buffer.text.contains("GraphicNovel : Book"))
    }

    @Test("typing narrows the list to names containing the text; Enter closes the view and opens the entity's table")
    func jumpAndOpen() throws {
        var s = try state()
        for c in "CHAP" { _ = App.update(&s, .key(.char(c))) }
        let m = try view(s)
        #expect(m.visibleEntities.map(\.name) == ["Chapter"])
        #expect(App.render(s).buffer.text.contains("jump to: CHAP"))
        let commands = App.update(&s, .key(.enter))
        #expect(s.modals.isEmpty)
        #expect(commands.contains { if case let .openTable(source, _, _, _, _) = $0 { source.entityName == "Chapter" } else { false } })
        // q types into the filter while it holds text, and closes the view when it is empty.
        var t = try state()
        _ = App.update(&t, .key(.char("x")))
        _ = App.update(&t, .key(.char("q")))
        #expect(try view(t).filter.text == "xq")
        #expect(App.render(t).buffer.text.contains("No entity matches"))
        _ = App.update(&t, .key(.escape))
        #expect(t.modals.isEmpty)
    }

    @Test("Tab keeps the selected entity and its neighbours only, and again shows every entity")
    func neighbours() throws {
        var s = try state()
        for _ in 0..<2 { _ = App.update(&s, .key(.down)) }
        #expect(try view(s).selectedEntity == "Chapter")
        _ = App.update(&s, .key(.tab))
        var m = try view(s)
        #expect(m.focus == "Chapter")
        #expect(m.visibleEntities.map(\.name) == ["Book", "Chapter"])
        #expect(m.selectedEntity == "Chapter")
        #expect(App.render(s).buffer.text.contains("Model · Chapter and its neighbours"))
        _ = App.update(&s, .key(.tab))
        m = try view(s)
        #expect(m.focus == nil)
        #expect(m.visibleEntities.count == 8)
        #expect(m.selectedEntity == "Chapter")
    }

    @Test("the drawing around Chapter: its box with its attributes, a line down to Book labelled with both sides")
    func drawingAroundChapter() throws {
        let graph = ModelGraph(model: try DemoLibrary.model())
        func rule(_ n: Int) -> String { String(repeating: "─", count: n) }
        let pad = String(repeating: " ", count: 6)
        #expect(ModelNeighbourhoodDiagram.lines(graph, around: "Chapter") == [
            pad + "┌" + rule(24) + "┐",
            pad + "│ Chapter                │",
            pad + "├" + rule(24) + "┤",
            pad + "│ title: String          │",
            pad + "│ number: Integer 16?    │",
            pad + "│ wordCount: Integer 32? │",
            pad + "└" + rule(12) + "┬" + rule(11) + "┘",
            String(repeating: " ", count: 19) + "│",
            " ┌" + rule(17) + "┘",
            " │ book →",
            " │ to-one / ordered to-many (chapters)",
            "┌┴─────┐",
            "│ Book │",
            "└──────┘",
        ])
        #expect(ModelNeighbourhoodDiagram.lines(graph, around: "Nope").isEmpty)
    }

    @Test("the drawing around Person: no parent, its sub-entities below; around Author: the parent above, inherits from")
    func drawingInheritance() throws {
        let graph = ModelGraph(model: try DemoLibrary.model())
        let person = ModelNeighbourhoodDiagram.lines(graph, around: "Person")
        #expect(person[1].contains("│ Person (abstract) │"))
        #expect(person.contains { $0.contains("│ sub-entity ▽") })
        #expect(person.contains { $0.contains("│ Author │") && $0.contains("│ Editor │") })
        let author = ModelNeighbourhoodDiagram.lines(graph, around: "Author")
        #expect(author[1].contains("│ Person (abstract) │"))
        #expect(author[3].trimmingCharacters(in: .whitespaces) == "△")
        #expect(author[4].hasSuffix("│ inherits from"))
        #expect(author.contains { $0.contains("│ Author : Person │") })
        #expect(author.contains { $0.contains("│ many-to-many") })
        // Every line between two boxes is drawn once: no two labels on one row for a single neighbour.
        #expect(author.filter { $0.contains("books ⇉") }.count == 1)
    }

    @Test("Tab shows the drawing in the view; ← → scroll it sideways, ↑ ↓ draw the next entity")
    func drawingInTheView() throws {
        var s = try state()
        _ = App.update(&s, .key(.tab))
        var text = App.render(s).buffer.text
        #expect(text.contains("│ publisher →"))
        #expect(text.contains("│ Publisher │"))
        #expect(text.contains("Tab whole model"))
        _ = App.update(&s, .key(.right))
        #expect(try view(s).column == 8)
        _ = App.update(&s, .key(.left))
        #expect(try view(s).column == 0)
        _ = App.update(&s, .key(.down))
        text = App.render(s).buffer.text
        #expect(try view(s).selectedEntity == "GraphicNovel")
        #expect(text.contains("│ GraphicNovel : Book  │"))
        #expect(text.contains("│ inherits from"))
    }

    @Test("the whole demo model in layers: parents and to-one destinations above, boxes apart, titles where the boxes say, labels drawn")
    func layeredDemo() throws {
        let graph = ModelGraph(model: try DemoLibrary.model())
        let drawing = ModelLayeredDiagram.layout(graph)
        #expect(drawing.layers == ["Person": 0, "Publisher": 0, "Editor": 1, "Book": 2, "GraphicNovel": 3, "Chapter": 3, "Genre": 3, "Author": 3])
        try Self.checkBoxes(drawing, graph)
        let text = drawing.lines.joined(separator: "\n")
        #expect(text.contains(" chapters⇉(ordered) / book→"))
        #expect(text.contains(" genres⇉ / books⇉"))
        #expect(text.contains(" editor→ / editedBooks⇉"))
        // Book's bottom border: the △ of its sub-entity's line and a ┬ for each line down.
        let book = try #require(drawing.boxes["Book"])
        let bottom = String(drawing.lines[book.y + book.height - 1].dropFirst(book.x).prefix(book.width))
        #expect(bottom.filter { $0 == "△" }.count == 1)
        #expect(bottom.filter { $0 == "┬" }.count == 3)
    }

    /// Every entity has a box, no two boxes overlap, each box's title row names its entity, and a
    /// parent (and a to-one's destination) is on a layer above.
    static func checkBoxes(_ drawing: ModelLayeredDiagram.Drawing, _ graph: ModelGraph, _ note: String = "") throws {
        #expect(Set(drawing.boxes.keys) == Set(graph.entities.map(\.name)), "\(note)")
        let boxes = Array(drawing.boxes)
        for (i, a) in boxes.enumerated() {
            let title = drawing.lines.indices.contains(a.value.y + 1) ? String(drawing.lines[a.value.y + 1].dropFirst(a.value.x)) : ""
            #expect(title.hasPrefix("│ \(a.key)"), "\(note) \(a.key)")
            for b in boxes.dropFirst(i + 1) {
                let apart = a.value.x + a.value.width <= b.value.x || b.value.x + b.value.width <= a.value.x
                    || a.value.y + a.value.height <= b.value.y || b.value.y + b.value.height <= a.value.y
                #expect(apart, "\(note) \(a.key) and \(b.key) overlap")
            }
        }
        for link in graph.inheritance {
            #expect((drawing.layers[link.parent] ?? 0) < (drawing.layers[link.entity] ?? 0), "\(note) \(link)")
        }
    }

    @Test("every version of every fixture model lays out: all boxes, none overlapping, parents above")
    func layeredFixtures() throws {
        let root = TestSupport.fixture("models")
        for source in try FileManager.default.contentsOfDirectory(atPath: root.path) {
            for bundle in try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(source).path) where bundle.hasSuffix(".xcdatamodeld") {
                for model in try XcodeModelReader.readBundle(at: root.appendingPathComponent(source).appendingPathComponent(bundle)).versions {
                    let graph = ModelGraph(model: model)
                    try Self.checkBoxes(ModelLayeredDiagram.layout(graph), graph, "\(bundle) \(model.versionName ?? "")")
                }
            }
        }
    }

    @Test("a 70-entity model with 140 relationships lays out quickly, every box apart")
    func layeredLarge() throws {
        var entities: [EntityDescription] = []
        for i in 0..<70 {
            var relationships: [RelationshipDescription] = []
            // Each entity points to two earlier ones (to-one, with a to-many inverse there) and is
            // pointed to in turn: a dense, layered graph like a big app's model.
            for k in [1, 7] where i - k >= 0 {
                relationships.append(RelationshipDescription("to\(i - k)", destination: "E\(i - k)", inverse: "from\(i)"))
            }
            for k in [1, 7] where i + k < 70 {
                relationships.append(RelationshipDescription("from\(i + k)", destination: "E\(i + k)", inverse: "to\(i)", toMany: true))
            }
            entities.append(EntityDescription(
                name: "E\(i)", attributes: [AttributeDescription("name", .string), AttributeDescription("n", .integer32)],
                relationships: relationships))
        }
        let graph = ModelGraph(model: try ManagedObjectModel(entities: entities))
        #expect(graph.edges.count == 69 + 63)
        let start = Date()
        let drawing = ModelLayeredDiagram.layout(graph)
        let seconds = Date().timeIntervalSince(start)
        try Self.checkBoxes(drawing, graph)
        #expect(seconds < 2, "layout took \(seconds) s")
        // E(i) points to E(i-1): a chain of 70 layers, each destination above.
        #expect(drawing.layers["E0"] == 0 && drawing.layers["E69"] == 69)
    }

    @Test("a cycle of to-ones and a relationship to itself still lay out")
    func layeredCycles() throws {
        let model = try ManagedObjectModel {
            EntityDescription("A") { RelationshipDescription("b", destination: "B") }
            EntityDescription("B") {
                RelationshipDescription("a", destination: "A")
                RelationshipDescription("twin", destination: "B")
            }
        }
        let graph = ModelGraph(model: model)
        let drawing = ModelLayeredDiagram.layout(graph)
        try Self.checkBoxes(drawing, graph)
        #expect(Set(drawing.layers.values) == [0, 1])
        #expect(ModelLayeredDiagram.layout(ModelGraph(model: try ManagedObjectModel(entities: []))).lines.isEmpty)
    }

    @Test("Tab twice draws the whole model, scrolled to the selected entity's box, its title highlighted; Tab again: the card")
    func layeredInTheView() throws {
        var s = try state()
        _ = App.update(&s, .key(.tab))
        _ = App.update(&s, .key(.tab))
        var m = try view(s)
        #expect(m.showsWholeModel && m.focus == nil)
        #expect(App.render(s).buffer.text.contains("Model · 8 entities drawn in layers"))
        for _ in 0..<2 { _ = App.update(&s, .key(.down)) }
        m = try view(s)
        #expect(m.selectedEntity == "Chapter")
        let box = try #require(m.drawing?.boxes["Chapter"])
        #expect(m.drawing == ModelLayeredDiagram.layout(m.graph))
        #expect(m.cardOffset == max(0, box.y - 6))
        #expect(m.column == max(0, box.x - 12))
        let frame = App.render(s)
        #expect(frame.buffer.text.contains("│ Chapter "))
        _ = App.update(&s, .key(.tab))
        m = try view(s)
        #expect(!m.showsWholeModel && m.focus == nil && m.drawing == nil)
        #expect(App.render(s).buffer.text.contains("Linked with: Book"))
    }

    @Test("in the browser on the demo library: m shows the model view of the store's model, Enter on Publisher opens its table")
    func inTheBrowser() throws {
        let h = try BrowserHarness.demo(size: 60)
        h.press("m")
        #expect(h.waitFor("Model · 8 entities"))
        h.type("publ")
        h.press("Enter")
        #expect(h.waitUntil { $0.modals.isEmpty && $0.table.source?.entityName == "Publisher" })
    }
}
