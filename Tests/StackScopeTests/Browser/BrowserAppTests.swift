import CoreStack
import Foundation
import StackScope
import Testing

@Suite("browser: update and keymap, without a store")
struct BrowserAppTests {
    func state() -> AppState {
        var s = AppState(store: StoreSummary(path: "/tmp/x.sqlite", modelVersion: "V1", readOnly: false))
        s.size = Size(width: 120, height: 36)
        return s
    }

    @Test("no key is bound twice in one scope, and every command is bound or reachable by name")
    func keymapIsConsistent() {
        for scope in KeyScope.allCases {
            let keys = Keymap.all.filter { $0.scope == scope }.flatMap(\.keys)
            #expect(Set(keys).count == keys.count, "a key bound twice in \(scope)")
        }
        for id in CommandID.allCases {
            #expect(!Keymap.bindings(of: id).isEmpty || CommandLine.names.contains(id.rawValue))
        }
    }

    @Test("Sources/CoreStack/CoreStack.docc/Reference/KEYS.md is the keymap's current Markdown (regenerate with UPDATE_KEYS=1 swift test)")
    func keysDocument() throws {
        let url = TestSupport.repoRoot.appendingPathComponent("Sources/CoreStack/CoreStack.docc/Reference/KEYS.md")
        let expected = Keymap.markdown()
        if ProcessInfo.processInfo.environment["UPDATE_KEYS"] == "1" {
            try expected.write(to: url, atomically: true, encoding: .utf8)
        }
        let actual = try String(contentsOf: url, encoding: .utf8)
        #expect(actual == expected)
    }

    @Test("q with unsaved changes asks first; yes saves then quits, no goes back")
    func quitAsks() {
        var s = state()
        s.pendingChanges = PendingChanges(inserted: 2, updated: 1, deleted: 0)
        var commands = App.update(&s, .key(.char("q")))
        #expect(commands.isEmpty)
        guard case let .confirm(c)? = s.topModal else {
            Issue.record("no confirmation")
            return
        }
        #expect(c.lines.joined().contains("2 inserted, 1 updated, 0 deleted"))
        #expect(App.render(s).buffer.text.contains("Quit with unsaved changes?"))
        commands = App.update(&s, .key(.char("n")))
        #expect(s.modals.isEmpty && commands.isEmpty && !s.quitRequested)
        _ = App.update(&s, .key(.char("q")))
        commands = App.update(&s, .key(.char("y")))
        #expect(commands == [.saveAll(thenQuit: true)])
        commands = App.update(&s, .quitNow)
        #expect(commands == [.quit])
        // With nothing pending, q quits at once.
        var clean = state()
        #expect(App.update(&clean, .key(.char("q"))) == [.quit])
    }

    @Test("a mouse click focuses the pane under it and selects the row; the wheel scrolls; M turns the mouse off")
    func mouse() {
        var s = state()
        _ = App.update(&s, .entitiesLoaded(
            (0..<10).map { EntityNode(name: "E\($0)", depth: 0, isAbstract: false, hasChildren: false) }, counts: [:]))
        s.focus = .table
        let tree = ScreenLayout(size: s.size, state: s).entities!
        _ = App.update(&s, .key(.mouse(MouseEvent(kind: .press, x: tree.x + 2, y: tree.y + 1 + 3))))
        #expect(s.focus == .entities)
        #expect(s.entities.scroll.selection == 3)
        _ = App.update(&s, .key(.mouse(MouseEvent(kind: .wheelDown, x: tree.x + 2, y: tree.y + 2))))
        #expect(s.entities.scroll.selection == 6)
        _ = App.update(&s, .key(.char("M")))
        #expect(!s.mouseEnabled)
        #expect(!App.render(s).mouse)
        _ = App.update(&s, .key(.mouse(MouseEvent(kind: .press, x: tree.x + 2, y: tree.y + 1))))
        #expect(s.entities.scroll.selection == 6)
    }

    @Test("the status bar shows the store, the context and the pending count; keys with no binding say so")
    func statusBar() {
        var s = state()
        s.pendingChanges = PendingChanges(inserted: 1)
        _ = App.update(&s, .key(.char("Q")))
        let text = App.render(s).buffer.text
        #expect(text.contains("/tmp/x.sqlite"))
        #expect(text.contains("model V1"))
        #expect(text.contains("ctx main · 1 pending"))
        #expect(text.contains("Q does nothing here"))
    }

    @Test("rendering is pure: the same state gives the same frame; colours carry attributes for NO_COLOR")
    func pureRender() {
        var s = state()
        _ = App.update(&s, .entitiesLoaded([EntityNode(name: "Book", depth: 0, isAbstract: false, hasChildren: false)], counts: ["Book": 3]))
        s.focus = .entities
        let a = App.render(s), b = App.render(s)
        #expect(a == b)
        // The selected row is reverse video, which reads without colour on dark and light backgrounds.
        let tree = ScreenLayout(size: s.size, state: s).entities!
        #expect(a.buffer[tree.x + 1, tree.y + 1].style.reverse)
    }

    @Test("too small: a centred notice, and q still quits")
    func tooSmall() {
        var s = state()
        _ = App.update(&s, .resized(Size(width: 40, height: 10)))
        let text = App.render(s).buffer.text
        #expect(text.contains("Terminal too small"))
        #expect(text.contains("40×10, need 60×15"))
        #expect(App.update(&s, .key(.char("q"))) == [.quit])
    }
}
