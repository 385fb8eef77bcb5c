import CoreStack
import Foundation
import StackScope
import Testing

/// The diff view (`stackscope diff OLD NEW` on a terminal), driven headless with keys: two copies
/// of a demo store, one changed in known ways (``DiffCommandTests/change(_:)``).
@Suite("diff view: entities, changed objects, old and new side by side", .serialized)
struct DiffViewTests {
    /// The view over a demo store and its changed copy, once the comparison finished.
    static func view(size: Size = Size(width: 120, height: 36)) throws -> (ScreenHarness<DiffViewProgram>, publisher: String, city: String?) {
        let (url, _) = try TestSupport.demoStore(size: 200)
        let copy = try DiffCommandTests.copy(url, to: "after.sqlite")
        let (publisher, city) = try DiffCommandTests.change(copy)
        let (old, new) = (url.path, copy.path)
        let h = ScreenHarness<DiffViewProgram>(size: size) { backend in
            DiffViewProgram(oldPath: old, newPath: new, backend: backend) {
                try DiffStores.open(oldPath: old, newPath: new, modelPath: nil, keys: [], entities: [], changeLimit: DiffViewProgram.listLimit)
            }
        }
        #expect(h.waitUntil { $0.state.report != nil || $0.state.error != nil })
        return (h, publisher, city)
    }

    /// Moves the entity selection to `name` with j / k.
    func select(_ h: ScreenHarness<DiffViewProgram>, entity name: String) throws {
        let index = try #require(h.onMain { h.program.state.entities.firstIndex { $0.name == name } })
        h.press("g")
        for _ in 0..<index { h.press("j") }
        #expect(h.onMain { h.program.state.selectedEntity?.name } == name)
    }

    @Test("the entities with changes come first with their counts; a changed publisher's row names the attribute; its detail shows old and new side by side, the change marked")
    func changedObject() throws {
        let (h, publisher, city) = try Self.view()
        let state = h.onMain { h.program.state }
        #expect(state.error == nil)
        #expect(state.progress == nil)
        // Changed entities first: Book (a link), Genre (an insert and a link), Publisher (a change).
        #expect(Set(state.entities.prefix(3).map(\.name)) == ["Book", "Genre", "Publisher"])
        #expect(state.entities.dropFirst(3).allSatisfy { !$0.hasChanges })
        #expect(h.line(containing: "Publisher")?.contains("~1") == true, "\(h.screen)")
        #expect(h.line(containing: " Chapter")?.contains("unchanged") == true)
        #expect(h.screen.contains("same store: matched by primary key"))

        try select(h, entity: "Publisher")
        h.press("Enter")
        #expect(h.onMain { h.program.state.focus } == .objects)
        let row = try #require(h.line(containing: "~ "))
        #expect(row.contains("city"))
        #expect(h.screen.contains("Publisher · 1 changed, 0 inserted, 0 deleted"))
        h.press("Enter")
        #expect(h.onMain { h.program.state.focus } == .detail)
        let detail = try #require(h.onMain { h.program.state.detail })
        let cityLine = try #require(detail.lines.first { $0.name == "city" })
        #expect(cityLine.changed)
        #expect(cityLine.old == (city.map { ValueFormatter.cell(.string($0)) } ?? "nil"))
        #expect(cityLine.new == ValueFormatter.cell(.string("Changed City")))
        let nameLine = try #require(detail.lines.first { $0.name == "name" })
        #expect(!nameLine.changed)
        #expect(nameLine.old == ValueFormatter.cell(.string(publisher)) && nameLine.new == nameLine.old)
        // On screen: the marked line with both values, and the two sides' headings.
        let shown = try #require(h.line(containing: "≠ city"))
        #expect(shown.contains("Changed City"))
        if let city { #expect(shown.contains(city)) }
        #expect(h.screen.contains("old: Z_PK") && h.screen.contains("new: Z_PK"))
        // Esc goes back left, pane by pane.
        h.press("Esc")
        #expect(h.onMain { h.program.state.focus } == .objects)
        h.press("Esc")
        #expect(h.onMain { h.program.state.focus } == .entities)
    }

    @Test("an inserted genre: only the new side has values, and the link it made is listed as a relationship change; Tab cycles the panes; q quits and closes the stores")
    func insertedObjectAndQuit() throws {
        let (h, _, _) = try Self.view()
        try select(h, entity: "Genre")
        h.press("Tab")
        #expect(h.onMain { h.program.state.focus } == .objects)
        let rows = h.onMain { h.program.state.rows }
        #expect(rows.count == 2)  // the inserted genre, and its link to a book
        guard case .inserted = rows.first else {
            Issue.record("first row is \(String(describing: rows.first))")
            return
        }
        let detail = try #require(h.onMain { h.program.state.detail })
        #expect(detail.oldTitle == "not in the old store")
        #expect(detail.lines.first { $0.name == "name" }?.new == ValueFormatter.cell(.string("Diffing")))
        #expect(detail.lines.allSatisfy { $0.old == nil })
        #expect(detail.changes.contains { $0.hasPrefix("+ books: Book ") }, "\(detail.changes)")
        #expect(h.screen.contains("Relationship changes"))
        // The link's own line.
        h.press("j")
        #expect(h.line(containing: ".books linked to Book ") != nil, "\(h.screen)")
        h.press("Tab")
        h.press("Tab")
        #expect(h.onMain { h.program.state.focus } == .entities)
        let quit = QuitFlag()
        h.onMain { h.program.quitHandler = { quit.value = true } }
        h.press("q")
        #expect(quit.value)
        #expect(h.onMain { h.program.state.quitRequested })
    }

    @Test("a store compared with itself: no differences said, every entity unchanged; a comparison that fails shows why in place")
    func sameAndFailing() throws {
        let (url, _) = try TestSupport.demoStore(size: 60)
        let path = url.path
        let h = ScreenHarness<DiffViewProgram> { backend in
            DiffViewProgram(oldPath: path, newPath: path, backend: backend) {
                try DiffStores.open(oldPath: path, newPath: path, modelPath: nil, keys: [], entities: [], changeLimit: 10)
            }
        }
        #expect(h.waitUntil { $0.state.report != nil })
        #expect(h.screen.contains("No differences in the objects compared"))
        #expect(h.onMain { h.program.state.entities.allSatisfy { !$0.hasChanges } })

        let failing = ScreenHarness<DiffViewProgram> { backend in
            DiffViewProgram(oldPath: path, newPath: path, backend: backend) {
                try DiffStores.open(oldPath: path, newPath: path, modelPath: nil, keys: ["Book=nope"], entities: [], changeLimit: 10)
            }
        }
        #expect(failing.waitUntil { $0.state.error != nil })
        #expect(failing.screen.contains("nope"), "\(failing.screen)")
    }

    @Test("in a terminal: stackscope diff OLD NEW opens the diff view; Enter down to the changed publisher shows the city old and new; q quits with status 0 and no -wal left; --text prints the report instead; a missing store is one error line", .enabled(
        if: Tmux.isAvailable && StackScopeBinary.url != nil, "needs tmux and the stackscope binary"))
    func inTerminal() throws {
        let (url, _) = try TestSupport.demoStore(size: 200)
        let copy = try DiffCommandTests.copy(url, to: "after.sqlite")
        _ = try DiffCommandTests.change(copy)
        let binary = try #require(StackScopeBinary.url).path
        try Tmux.withSession("bash --norc --noprofile") { tmux in
            try tmux.waitFor(text: Tmux.prompt, timeout: 30)
            try tmux.sendLine("'\(binary)' diff '\(url.path)' '\(copy.path)'; echo diff-status-$?")
            try tmux.waitFor(text: "same store: matched by primary key", timeout: 30)
            try tmux.waitFor(text: "3 of 7 entities changed", timeout: 30)
            // Book, Genre, Publisher: the third has the changed city.
            try tmux.sendKeys("j", "j", "Enter", "Enter")
            let screen = try tmux.waitFor(text: "≠ city", timeout: 30)
            #expect(screen.contains("Changed City"))
            #expect(screen.contains("Publisher · 1 changed"))
            try tmux.sendKeys("q")
            try tmux.waitFor(text: "diff-status-0", timeout: 30)
            #expect(!FileManager.default.fileExists(atPath: copy.path + "-wal"))
            #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
            try tmux.sendLine("clear; '\(binary)' diff --text '\(url.path)' '\(copy.path)'; '\(binary)' diff '\(url.path)' /nonexistent.sqlite; echo missing-status-$?")
            let text = try tmux.waitFor(text: "missing-status-1", timeout: 30)
            #expect(text.contains("Publisher: 0 inserted, 0 deleted, 1 changed"))
            #expect(text.contains("unchanged: "))
            #expect(text.contains("stackscope: error:") && text.contains("/nonexistent.sqlite"))
        }
    }

    @Test("while comparing, Esc quits; keys do nothing else until the report is there")
    func escWhileComparing() {
        var s = DiffViewState(oldPath: "a", newPath: "b")
        #expect(DiffView.update(&s, .key(.char("j"))).isEmpty)
        #expect(DiffView.update(&s, .progress("Comparing Book (1 of 3)")).isEmpty)
        #expect(DiffView.render(s).buffer.text.contains("Comparing Book (1 of 3)"))
        #expect(DiffView.update(&s, .key(.escape)) == [.quit])
        #expect(s.quitRequested)
    }
}

final class QuitFlag: @unchecked Sendable { var value = false }
