import CoreStack
import Foundation
import StackScope
import Testing

/// The diff view's order moves, the objects at both ends of a link matched by key, and its `?`
/// help and mouse; the store picker's help and mouse. Driven headless with keys.
@Suite("diff view: order moves, links by key, help and mouse; the picker's help and mouse", .serialized)
struct DiffViewOrderHelpMouseTests {
    /// A shelf: authors (unique names) with an ordered many-to-many to books (unique titles).
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionName: "Shelf") {
            EntityDescription("Author", uniquenessConstraints: [["name"]]) {
                AttributeDescription("name", .string, isOptional: false)
                RelationshipDescription("books", destination: "Book", inverse: "authors", toMany: true, isOrdered: true)
            }
            EntityDescription("Book", uniquenessConstraints: [["title"]]) {
                AttributeDescription("title", .string, isOptional: false)
                AttributeDescription("pages", .integer32)
                RelationshipDescription("authors", destination: "Author", inverse: "books", toMany: true)
            }
        }
    }

    /// A store at `url` with the authors' books in the order given (books inserted in `bookOrder`).
    static func write(_ url: URL, books bookOrder: [String], authors: [(String, [String])]) throws {
        let model = try model()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try SQLiteStore(url: url, model: model)
        try coordinator.addPersistentStore(store)
        defer {
            try? coordinator.remove(store)
            store.close()
        }
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait {
            var byTitle: [String: ManagedObject] = [:]
            for (i, t) in bookOrder.enumerated() {
                let b = try context.insertObject(forEntityName: "Book")
                try b.setValue(t, forKey: "title")
                try b.setValue(100 + i, forKey: "pages")
                byTitle[t] = b
            }
            for (name, books) in authors {
                let a = try context.insertObject(forEntityName: "Author")
                try a.setValue(name, forKey: "name")
                for (i, t) in books.enumerated() { try a.insert(try #require(byTitle[t]), at: i, inKey: "books") }
            }
            try context.save()
        }
    }

    /// Two different stores (matched by the names' and titles' uniqueness constraints): Le Guin's
    /// books reordered (Lathe to the front), Herbert linked to a new book.
    static func view(size: Size = Size(width: 120, height: 36)) throws -> ScreenHarness<DiffViewProgram> {
        let folder = try TestSupport.temporaryDirectory()
        let a = folder.appendingPathComponent("a.sqlite"), b = folder.appendingPathComponent("b.sqlite")
        try write(a, books: ["Earthsea", "Dispossessed", "Lathe", "Dune"],
                  authors: [("Le Guin", ["Earthsea", "Dispossessed", "Lathe"]), ("Herbert", ["Dune"])])
        try write(b, books: ["Children", "Dune", "Lathe", "Dispossessed", "Earthsea"],
                  authors: [("Herbert", ["Dune", "Children"]), ("Le Guin", ["Lathe", "Earthsea", "Dispossessed"])])
        let (old, new) = (a.path, b.path)
        let h = ScreenHarness<DiffViewProgram>(size: size) { backend in
            DiffViewProgram(oldPath: old, newPath: new, backend: backend) {
                try DiffStores.open(oldPath: old, newPath: new, modelPath: nil, keys: [], entities: [], changeLimit: DiffViewProgram.listLimit)
            }
        }
        #expect(h.waitUntil { $0.state.report != nil || $0.state.error != nil })
        #expect(h.onMain { h.program.state.error } == nil)
        return h
    }

    @Test("the text report lists an order move with ↕ and counts it; --json gives the moves with their indexes and both primary keys")
    func orderMoveInTextAndJSON() throws {
        let folder = try TestSupport.temporaryDirectory()
        let a = folder.appendingPathComponent("a.sqlite"), b = folder.appendingPathComponent("b.sqlite")
        try Self.write(a, books: ["Earthsea", "Dispossessed", "Lathe"], authors: [("Le Guin", ["Earthsea", "Dispossessed", "Lathe"])])
        try Self.write(b, books: ["Earthsea", "Dispossessed", "Lathe"], authors: [("Le Guin", ["Lathe", "Earthsea", "Dispossessed"])])
        let text = try DiffCommand.run(oldPath: a.path, newPath: b.path, modelPath: nil, keys: [], entities: [], limit: 20, json: false)
        #expect(text.output.contains("Author: 0 inserted, 0 deleted, 0 changed, 1 reordered (1 → 1 objects, matched by attribute name (uniqueness constraint))"), "\(text.output)")
        #expect(text.output.contains("  ↕ \"Le Guin\".books reordered (3 → 3): Book \"Lathe\" 2 → 0\n"), "\(text.output)")
        let json = try DiffCommand.run(oldPath: a.path, newPath: b.path, modelPath: nil, keys: [], entities: ["Author"], limit: nil, json: true)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(root["hasChanges"] as? Bool == true)
        let author = try #require((root["entities"] as? [[String: Any]])?.first)
        #expect(author["reordered"] as? Int == 1)
        let reorder = try #require((author["reorders"] as? [[String: Any]])?.first)
        #expect(reorder["relationship"] as? String == "books" && reorder["source"] as? String == "Le Guin")
        #expect(reorder["destination"] as? String == "Book")
        #expect(reorder["oldCount"] as? Int == 3 && reorder["newCount"] as? Int == 3)
        #expect(reorder["oldPrimaryKey"] as? Int == 1 && reorder["newPrimaryKey"] as? Int == 1)
        let moves = try #require(reorder["moves"] as? [[String: Any]])
        #expect(moves.count == 1)
        #expect(moves.first?["destinationKey"] as? String == "Lathe")
        #expect(moves.first?["oldIndex"] as? Int == 2 && moves.first?["newIndex"] as? Int == 0)
    }

    @Test("in a terminal: the diff view of two different stores shows the order move, ? its keys (filtered by typing), Esc closes them, q quits with status 0", .enabled(
        if: Tmux.isAvailable && StackScopeBinary.url != nil, "needs tmux and the stackscope binary"))
    func inTerminal() throws {
        let folder = try TestSupport.temporaryDirectory()
        let a = folder.appendingPathComponent("a.sqlite"), b = folder.appendingPathComponent("b.sqlite")
        try Self.write(a, books: ["Earthsea", "Dispossessed", "Lathe"], authors: [("Le Guin", ["Earthsea", "Dispossessed", "Lathe"])])
        try Self.write(b, books: ["Lathe", "Earthsea", "Dispossessed"], authors: [("Le Guin", ["Lathe", "Earthsea", "Dispossessed"])])
        let binary = try #require(StackScopeBinary.url).path
        try Tmux.withSession("bash --norc --noprofile") { tmux in
            try tmux.waitFor(text: Tmux.prompt, timeout: 30)
            try tmux.sendLine("'\(binary)' diff '\(a.path)' '\(b.path)'; echo diff-status-$?")
            try tmux.waitFor(text: "different stores: matched by key", timeout: 30)
            try tmux.sendKeys("Enter")
            let moved = try tmux.waitFor(text: "↕ \"Le Guin\".books reordered (3 → 3): Book \"Lathe\" 2 → 0", timeout: 30)
            #expect(moved.contains("Author · 0 changed, 0 inserted, 0 deleted, 1 reordered"))
            try tmux.sendKeys("?")
            try tmux.waitFor(text: "Diff view keys", timeout: 30)
            try tmux.sendKeys("o", "r", "d", "e", "r")
            let help = try tmux.waitFor(text: "an ordered relationship whose members moved", timeout: 30)
            #expect(!help.contains("a page down"))
            try tmux.sendKeys("Escape")
            try tmux.waitFor(text: "? help", timeout: 30)
            try tmux.sendKeys("q")
            try tmux.waitFor(text: "diff-status-0", timeout: 30)
        }
    }

    func select(_ h: ScreenHarness<DiffViewProgram>, entity name: String) throws {
        try DiffViewTests().select(h, entity: name)
    }

    @Test("an ordered relationship whose members moved: counted ↕ on its entity, a ↕ line naming the move old → new index, and the detail listing the move beside the owner's two sides")
    func orderMove() throws {
        let h = try Self.view()
        #expect(h.line(containing: "│ Author")?.contains("↕1") == true, "\(h.screen)")
        try select(h, entity: "Author")
        h.press("Enter")
        let rows = h.onMain { h.program.state.rows }
        let reorder = try #require(rows.firstIndex { if case .reordered = $0 { true } else { false } }, "\(rows)")
        guard case let .reordered(change) = rows[reorder] else { return }
        #expect(change.source == "Le Guin")
        #expect(change.moves == [RelationshipOrderMove(destination: "Lathe", oldIndex: 2, newIndex: 0)])
        #expect(h.line(containing: "↕ \"Le Guin\".books reordered (3 → 3): Book \"Lathe\" 2 → 0") != nil, "\(h.screen)")
        #expect(h.screen.contains("1 reordered"))
        h.press("g")
        for _ in 0..<reorder { h.press("j") }
        h.press("Enter")
        let detail = try #require(h.onMain { h.program.state.detail })
        #expect(detail.title == "Author \"Le Guin\"")
        #expect(detail.changes == ["↕ books: Book \"Lathe\" 2 → 0"])
        #expect(detail.oldTitle.hasPrefix("Z_PK ") && detail.newTitle.hasPrefix("Z_PK "))
        #expect(detail.lines.first { $0.name == "books" }?.changed == true)
        let name = try #require(detail.lines.first { $0.name == "name" })
        #expect(name.old == ValueFormatter.cell(.string("Le Guin")) && name.new == name.old)
        #expect(h.line(containing: "↕ books: Book \"Lathe\" 2 → 0") != nil, "\(h.screen)")
    }

    @Test("a link between two different stores shows the objects at both ends, each found in both stores by its key")
    func linkByKey() throws {
        let h = try Self.view()
        try select(h, entity: "Author")
        h.press("Enter")
        let rows = h.onMain { h.program.state.rows }
        let link = try #require(rows.firstIndex { if case .link = $0 { true } else { false } }, "\(rows)")
        h.press("g")
        for _ in 0..<link { h.press("j") }
        #expect(h.line(containing: "+ \"Herbert\".books linked to Book \"Children\"") != nil, "\(h.screen)")
        let detail = try #require(h.onMain { h.program.state.detail })
        // The owner, Herbert, is in both stores (other primary keys).
        #expect(detail.title == "Author \"Herbert\"")
        #expect(detail.oldTitle.hasPrefix("Z_PK ") && detail.newTitle.hasPrefix("Z_PK "), "\(detail)")
        let name = try #require(detail.lines.first { $0.name == "name" })
        #expect(name.old == ValueFormatter.cell(.string("Herbert")) && name.new == name.old)
        let books = try #require(detail.lines.first { $0.name == "books" })
        #expect(books.old == "1 Book object" && books.new == "2 Book objects")
        // The destination follows under its heading: only in the new store.
        let heading = try #require(detail.lines.first { $0.isHeading && !$0.name.isEmpty })
        #expect(heading.name == "+ books: Book \"Children\"")
        #expect(heading.old == "not in the old store" && heading.new?.hasPrefix("Z_PK ") == true)
        let after = detail.lines.drop { $0 != heading }.dropFirst()
        let title = try #require(after.first { $0.name == "title" })
        #expect(title.old == nil && title.new == ValueFormatter.cell(.string("Children")))
        #expect(h.line(containing: "+ books: Book \"Children\"")?.contains("new: Z_PK") == true, "\(h.screen)")
    }

    @Test("? shows the diff view's keys over it, typing filters them, q and Esc close it without quitting; M turns the mouse off")
    func help() throws {
        let h = try Self.view()
        h.press("?")
        #expect(h.onMain { h.program.state.help } != nil)
        #expect(h.screen.contains("Diff view keys"))
        #expect(h.line(containing: "the next pane (entities, objects, old and new)") != nil, "\(h.screen)")
        #expect(h.screen.contains("Marks in the objects pane"))
        h.type("wheel")
        #expect(h.line(containing: "the wheel scrolls") != nil)
        #expect(h.line(containing: "the next pane") == nil)
        h.press("Esc")
        #expect(h.onMain { h.program.state.help } == nil)
        #expect(!h.screen.contains("Diff view keys"))
        h.press("? q")
        #expect(h.onMain { h.program.state.help } == nil)
        #expect(!h.onMain { h.program.state.quitRequested })
        #expect(h.line(containing: "? help") != nil)
        h.press("M")
        #expect(!h.onMain { h.program.state.mouseEnabled })
        h.send(.mouse(MouseEvent(kind: .press, x: 50, y: 3)))
        #expect(h.onMain { h.program.state.focus } == .entities)
        h.press("M")
        #expect(h.onMain { h.program.state.mouseEnabled })
    }

    @Test("the mouse: a click on an entity selects it, a click in the objects pane focuses it and selects the line, the wheel scrolls the pane under it")
    func mouse() throws {
        let h = try Self.view()
        let entities = h.onMain { h.program.state.entities.map(\.name) }
        let book = try #require(entities.firstIndex(of: "Book"))
        // Entities pane: its box's top is row 1, its first line row 2.
        h.send(.mouse(MouseEvent(kind: .press, x: 3, y: 2 + book)))
        #expect(h.onMain { h.program.state.selectedEntity?.name } == "Book")
        #expect(h.onMain { h.program.state.focus } == .entities)
        let author = try #require(entities.firstIndex(of: "Author"))
        h.send(.mouse(MouseEvent(kind: .press, x: 3, y: 2 + author)))
        #expect(h.onMain { h.program.state.selectedEntity?.name } == "Author")
        let rowCount = h.onMain { h.program.state.rows.count }
        #expect(rowCount >= 2)
        // Objects pane: to the right of the entities, its second line.
        h.send(.mouse(MouseEvent(kind: .press, x: 60, y: 3)))
        #expect(h.onMain { h.program.state.focus } == .objects)
        #expect(h.onMain { h.program.state.objectScroll.selection } == 1)
        #expect(h.onMain { h.program.state.detail } != nil)
        h.send(.mouse(MouseEvent(kind: .wheelUp, x: 60, y: 4)))
        #expect(h.onMain { h.program.state.objectScroll.selection } == 0)
        // The wheel over the entities scrolls them without taking the focus.
        h.send(.mouse(MouseEvent(kind: .wheelDown, x: 3, y: 4)))
        #expect(h.onMain { h.program.state.entityScroll.selection } == min(entities.count - 1, author + 3))
        #expect(h.onMain { h.program.state.focus } == .objects)
        // A click below the last entity selects nothing new.
        let before = h.onMain { h.program.state.entityScroll.selection }
        h.send(.mouse(MouseEvent(kind: .press, x: 3, y: 2 + entities.count + 2)))
        #expect(h.onMain { h.program.state.entityScroll.selection } == before)
    }

    @Test("the picker: ? with an empty filter shows its keys, typed after a filter it filters; a click selects a store, the wheel moves the selection")
    func pickerHelpAndMouse() throws {
        let folder = try TestSupport.temporaryDirectory()
        for name in ["a.sqlite", "b.sqlite", "c.sqlite"] {
            try Self.write(folder.appendingPathComponent(name), books: ["Dune"], authors: [("Herbert", ["Dune"])])
        }
        let h = ScreenHarness<StorePickerProgram> { StorePickerProgram(folders: [folder.path], backend: $0) }
        #expect(h.waitUntil { !$0.state.scanning })
        #expect(h.onMain { h.program.state.visible.count } == 3)
        h.press("?")
        #expect(h.screen.contains("Store picker keys"))
        #expect(h.line(containing: "open the selected store in the browser") != nil, "\(h.screen)")
        h.type("wheel")
        #expect(h.line(containing: "the wheel scrolls the list") != nil)
        #expect(h.line(containing: "open the selected store in the browser") == nil)
        h.press("Esc")
        #expect(h.onMain { h.program.state.help } == nil)
        #expect(h.onMain { h.program.state.filter.text }.isEmpty)
        h.type("b?")
        #expect(h.onMain { h.program.state.help } == nil)
        #expect(h.onMain { h.program.state.filter.text } == "b?")
        h.press("Esc")
        // Rows: title 0, box 1, heading 2, stores from 3.
        h.send(.mouse(MouseEvent(kind: .press, x: 10, y: 5)))
        #expect(h.onMain { h.program.state.scroll.selection } == 2)
        #expect(h.onMain { h.program.state.selected?.path.hasSuffix("c.sqlite") } == true)
        h.send(.mouse(MouseEvent(kind: .wheelUp, x: 10, y: 5)))
        #expect(h.onMain { h.program.state.scroll.selection } == 0)
        h.send(.mouse(MouseEvent(kind: .press, x: 10, y: 20)))
        #expect(h.onMain { h.program.state.scroll.selection } == 0)
    }
}
