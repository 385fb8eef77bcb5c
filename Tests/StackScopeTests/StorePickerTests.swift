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
        #expect(StorePicker.prompt(count: 3) == "Open which store? 1–3, Enter for 1, q quits: ")
        #expect(StorePicker.prompt(count: 1) == "Open it? Enter opens, q quits: ")
    }

    @Test("answers: a number in range, Enter for the first, q or the end of input to quit, anything else asked again")
    func choices() {
        #expect(StorePicker.choice("2", count: 3) == .open(1))
        #expect(StorePicker.choice(" 3 \n", count: 3) == .open(2))
        #expect(StorePicker.choice("", count: 3) == .open(0))
        #expect(StorePicker.choice("q", count: 3) == .quit)
        #expect(StorePicker.choice("Quit", count: 3) == .quit)
        #expect(StorePicker.choice(nil, count: 3) == .quit)
        #expect(StorePicker.choice("0", count: 3) == .invalid("type a number from 1 to 3, Enter for 1, or q"))
        #expect(StorePicker.choice("4", count: 3) == .invalid("type a number from 1 to 3, Enter for 1, or q"))
        #expect(StorePicker.choice("two", count: 1) == .invalid("press Enter to open it, or q"))
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

    @Test("in a terminal: a wrong answer is asked again, the number opens that store in the browser; q at the prompt quits", .enabled(
        if: Tmux.isAvailable && StackScopeBinary.url != nil, "needs tmux and the stackscope binary"))
    func inTerminal() throws {
        let (folder, _) = try Self.folder()
        let binary = try #require(StackScopeBinary.url).path
        try Tmux.withSession("bash --norc --noprofile") { tmux in
            try tmux.waitFor(text: Tmux.prompt, timeout: 30)
            try tmux.sendLine("'\(binary)' '\(folder.path)' --read-only; echo picked-status-$?")
            try tmux.waitFor(text: "Open which store? 1–3, Enter for 1, q quits:", timeout: 30)
            try tmux.sendLine("7")
            try tmux.waitFor(text: "type a number from 1 to 3, Enter for 1, or q", timeout: 30)
            try tmux.sendLine("3")
            // The third store is the demo library (the title bar's path is cut at the width).
            try tmux.waitFor(text: "model DemoLibrary", timeout: 30)
            try tmux.waitFor(text: "Book · ", timeout: 30)
            try tmux.sendKeys("q")
            try tmux.waitFor(text: "picked-status-0", timeout: 30)
            // q at the prompt opens nothing and exits with status 0.
            try tmux.sendLine("clear; '\(binary)' '\(folder.path)'; echo quit-status-$?")
            try tmux.waitFor(text: "Open which store?", timeout: 30)
            try tmux.sendLine("q")
            try tmux.waitFor(text: "quit-status-0", timeout: 30)
        }
    }
}
