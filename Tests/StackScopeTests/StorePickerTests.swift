import CoreStack
import Foundation
import StackScope
import Testing

/// `stackscope DIR`: the stores under a folder, numbered, and the one to open asked for.
@Suite("stackscope DIR: picking a store")
struct StorePickerTests {
    /// A folder with two fixture stores (one with its -wal) and a demo store.
    static func folder() throws -> (url: URL, demo: URL) {
        let folder = try TestSupport.temporaryDirectory().appendingPathComponent("stores")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["apple-iPhoneCoreDataRecipes-2018/Recipes.sqlite",
                     "wibosco-CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite",
                     "wibosco-CoreDataMigration-Example/CoreDataMigration_Example_WAL.sqlite-wal"] {
            let destination = folder.appendingPathComponent((name as NSString).lastPathComponent)
            try FileManager.default.copyItem(at: TestSupport.fixture("stores/\(name)"), to: destination)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: destination.path)
        }
        let demo = folder.appendingPathComponent("library.sqlite")
        _ = try DemoLibrary.create(at: demo, size: 30)
        return (folder, demo)
    }

    @Test("the menu numbers the stores as find orders them, with size, model source, objects and a -wal")
    func menu() throws {
        let (folder, _) = try Self.folder()
        let search = try StoreFinder().search([folder.path])
        let lines = StorePicker.menu(search).split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix(" 1  \(folder.path)/CoreDataMigration_Example_WAL.sqlite  36 KB  stored  168 objects  -wal "))
        #expect(lines[1].hasPrefix(" 2  \(folder.path)/Recipes.sqlite  116 KB  stored  29 objects"))
        #expect(lines[2].hasPrefix(" 3  \(folder.path)/library.sqlite  "))
    }

    @Test("without a terminal the binary lists the stores on standard error and says to name one; an empty folder is an error", .enabled(
        if: StackScopeBinary.url != nil, "the stackscope binary was not found: run `swift build` first"))
    func withoutTerminal() throws {
        let (folder, _) = try Self.folder()
        let result = try StackScopeBinary.run([folder.path])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(" 2  \(folder.path)/Recipes.sqlite"))
        #expect(result.stderr.hasSuffix("stackscope: error: \(folder.path) is a folder: name one of the stores above (stackscope STORE), or run this in a terminal to pick one\n"))
        let empty = try TestSupport.temporaryDirectory()
        let none = try StackScopeBinary.run([empty.path])
        #expect(none.status == 1)
        #expect(none.stderr == "stackscope: error: no Core Data store under \(empty.path) (stackscope find \(empty.path) lists what it looked at)\n")
    }

    @Test("the picker lists the stores found off the main queue with size, model, entities, objects, history and -wal; typing filters by path; Esc clears the filter, then quits")
    func pickerListAndFilter() throws {
        let (folder, _) = try Self.folder()
        let h = ScreenHarness<StorePickerProgram> { StorePickerProgram(folders: [folder.path], backend: $0) }
        #expect(h.waitUntil { !$0.state.scanning })
        let state = h.onMain { h.program.state }
        #expect(state.visible.map { ($0.path as NSString).lastPathComponent }
            == ["CoreDataMigration_Example_WAL.sqlite", "Recipes.sqlite", "library.sqlite"])
        #expect(h.screen.contains("3 stores"))
        let header = try #require(h.line(containing: "Path"))
        for column in ["Size", "Modified", "Model", "Entities", "Objects", "History", "-wal"] { #expect(header.contains(column)) }
        let wal = try #require(h.line(containing: "CoreDataMigration_Example_WAL.sqlite"), "\(h.screen)")
        #expect(wal.contains("stored") && wal.contains("168"), "\(wal)")
        #expect(wal.contains("KB"))  // its -wal's size
        let demo = try #require(state.search.stores.first { $0.path.hasSuffix("library.sqlite") })
        let demoLine = try #require(h.line(containing: "library.sqlite"))
        #expect(demoLine.contains(try #require(demo.objectCount).formatted()))
        #expect(demoLine.contains("\(try #require(demo.entityCount))"))

        h.type("rec")
        #expect(h.onMain { h.program.state.visible.count } == 1)
        #expect(h.screen.contains("1 store of 3 · filter: rec"))
        h.type("zzz")
        #expect(h.screen.contains("No store's path contains “reczzz”"))
        h.press("Esc")
        #expect(h.onMain { h.program.state.filter.text }.isEmpty)
        #expect(h.onMain { h.program.state.visible.count } == 3)
        let quit = QuitFlag()
        h.onMain { h.program.quitHandler = { quit.value = true } }
        h.press("Esc")
        #expect(quit.value)
    }

    @Test("Enter hands the selected store to the opener; an opener that fails leaves the picker with the reason; folders that cannot be read are counted")
    func pickerOpenAndSkipped() throws {
        let (folder, _) = try Self.folder()
        let locked = folder.appendingPathComponent("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
        let finder = StoreFinder { path in
            if path.hasSuffix("/locked") { throw CocoaError(.fileReadNoPermission) }
            return try StoreFinder.systemListing(path)
        }
        let h = ScreenHarness<StorePickerProgram> { StorePickerProgram(folders: [folder.path], backend: $0, finder: finder) }
        #expect(h.waitUntil { !$0.state.scanning })
        #expect(h.onMain { h.program.state.search.skippedFolders.count } == 1)
        #expect(h.screen.contains("1 folder could not be read"))
        let opened = OpenedPaths()
        h.onMain {
            h.program.openHandler = { path in
                opened.paths.append(path)
                if path.hasSuffix("Recipes.sqlite") { throw StackScopeError.invalidOption(name: "STORE", reason: "refused for the test") }
            }
        }
        h.press("Down")
        h.press("Enter")
        #expect(opened.paths.last?.hasSuffix("Recipes.sqlite") == true)
        #expect(h.onMain { h.program.isActive })
        #expect(h.screen.contains("refused for the test"))
        h.press("Down")
        h.press("Enter")
        #expect(opened.paths.last?.hasSuffix("library.sqlite") == true)
        #expect(h.onMain { !h.program.isActive })
        // The browser quit: the picker has the screen again, the list as it was.
        h.onMain { h.program.resume(note: nil, size: Size(width: 120, height: 36)) }
        h.waitUntilIdle()
        #expect(h.onMain { h.program.isActive })
        #expect(h.screen.contains("Back to the stores"))
        #expect(h.onMain { h.program.state.selected?.path.hasSuffix("library.sqlite") } == true)
    }

    @Test("in a terminal: the picker lists the stores, Enter opens the demo library in the browser, q comes back to the picker, Esc quits", .enabled(
        if: Tmux.isAvailable && StackScopeBinary.url != nil, "needs tmux and the stackscope binary"))
    func inTerminal() throws {
        let (folder, _) = try Self.folder()
        let binary = try #require(StackScopeBinary.url).path
        try Tmux.withSession("bash --norc --noprofile") { tmux in
            try tmux.waitFor(text: Tmux.prompt, timeout: 30)
            try tmux.sendLine("'\(binary)' '\(folder.path)' --read-only; echo picked-status-$?")
            try tmux.waitFor(text: "3 stores · ", timeout: 30)
            let screen = try tmux.waitFor(text: "Recipes.sqlite", timeout: 30)
            #expect(screen.contains("History"))
            try tmux.sendText("libr")
            try tmux.waitFor(text: "1 store of 3 · filter: libr", timeout: 30)
            try tmux.sendKeys("Enter")
            // The demo library in the browser (the title bar's path is cut at the width).
            try tmux.waitFor(text: "model DemoLibrary", timeout: 30)
            try tmux.waitFor(text: "Book · ", timeout: 30)
            try tmux.sendKeys("q")
            try tmux.waitFor(text: "Back to the stores", timeout: 30)
            try tmux.waitFor(text: "1 store of 3 · filter: libr", timeout: 30)
            try tmux.sendKeys("Escape")
            try tmux.waitFor(text: "Esc quit", timeout: 30)
            try tmux.sendKeys("Escape")
            try tmux.waitFor(text: "picked-status-0", timeout: 30)
        }
    }
}

final class OpenedPaths: @unchecked Sendable { var paths: [String] = [] }
