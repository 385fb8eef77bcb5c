import CoreStack
import Foundation
import StackScope
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The real `stackscope` binary in a real terminal (tmux), driven with keys as a person would.
@Suite("browser end to end in tmux", .serialized, .enabled(if: Tmux.isAvailable && StackScopeBinary.url != nil))
struct BrowserEndToEndTests {
    var binary: String { StackScopeBinary.url?.path ?? "stackscope" }

    /// A shell in tmux whose prompt is up, with the terminal modes as they were before.
    func shell(_ environment: [String: String] = [:], width: Int = 120, height: Int = 36) throws -> (Tmux, SttySnapshot) {
        let tmux = try Tmux("bash --norc --noprofile", width: width, height: height, environment: environment)
        try tmux.waitFor(text: Tmux.prompt.trimmingCharacters(in: .whitespaces), timeout: 30)
        return (tmux, try SttySnapshot.take(in: tmux))
    }

    /// Quits with q (and y to the question about unsaved scratch changes, when `confirming`) and
    /// checks that the shell got its terminal back unchanged.
    func quitAndCheck(
        _ tmux: Tmux, _ before: SttySnapshot, confirming: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try tmux.sendKeys("q")
        if confirming {
            try tmux.waitFor(text: "Quit and lose unsaved changes?", timeout: 30)
            try tmux.sendKeys("y")
        }
        try tmux.waitFor(format: "#{alternate_on}", toBe: "0", timeout: 30)
        try tmux.sendLine("echo back-$((6*7))")
        try tmux.waitFor(text: "back-42", timeout: 30)
        let after = try SttySnapshot.take(in: tmux)
        #expect(before.differences(from: after).isEmpty, sourceLocation: sourceLocation)
        #expect(try tmux.terminalModes() == .shell, sourceLocation: sourceLocation)
    }

    func demoStore(size: Int = 300) throws -> URL {
        let url = try TestSupport.temporaryDirectory().appendingPathComponent("library.sqlite")
        _ = try DemoLibrary.create(at: url, size: size)
        return url
    }

    @Test("stackscope with no arguments creates the demo store in the cache folder and opens it")
    func demoStartup() throws {
        let cache = try TestSupport.temporaryDirectory()
        let (tmux, before) = try shell(["XDG_CACHE_HOME": cache.path])
        defer { tmux.kill() }
        try tmux.sendLine(binary)
        let screen = try tmux.waitFor(text: "Book · 30 objects", timeout: 30)
        #expect(screen.contains("Person (abstract)"))
        #expect(screen.contains("Entities"))
        #expect(screen.contains("? help"))
        #expect(FileManager.default.fileExists(atPath: cache.appendingPathComponent("stackscope/LocalData.sqlite").path))
        try quitAndCheck(tmux, before)
        // The second start reuses the store (no seeding line).
        try tmux.sendLine("clear; \(binary)")
        try tmux.waitFor(text: "Book · 30 objects", timeout: 30)
        try quitAndCheck(tmux, before)
    }

    @Test("a store written by Apple's Core Data opens read-only; navigation and a filter work")
    func appleStoreNavigationAndFilter() throws {
        let dir = try TestSupport.temporaryDirectory()
        let store = dir.appendingPathComponent("CoreDataMigration_Example_1.sqlite")
        try FileManager.default.copyItem(
            at: TestSupport.fixture("stores/wibosco-CoreDataMigration-Example/CoreDataMigration_Example_1.sqlite"), to: store)
        let model = TestSupport.fixture("models/wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld").path
        let (tmux, before) = try shell()
        defer { tmux.kill() }
        try tmux.sendLine("\(binary) '\(store.path)' --model '\(model)' --read-only")
        try tmux.waitFor(text: "Post · 1,001 objects", timeout: 30)
        try tmux.waitFor(text: "[read-only]", timeout: 30)
        try tmux.sendKeys("G")
        try tmux.waitFor(text: "1,001 of 1,001", timeout: 30)
        try tmux.sendKeys("g", "j", "j")
        try tmux.waitFor(text: "3 of 1,001", timeout: 30)
        try tmux.sendKeys("f")
        try tmux.sendText("date < ")
        try tmux.waitFor(text: "✗", timeout: 30)  // incomplete: the error shows while typing
        try tmux.sendKeys("C-u")
        try tmux.sendText("color BEGINSWITH[c] \"e\"")
        try tmux.sendKeys("Enter")
        // The table's title names the filter once it is applied (the prompt shows "filter: " too).
        let filtered = try tmux.waitFor(text: "objects · filter: color BEGINSWITH", timeout: 30)
        #expect(!filtered.contains("1,001 objects"))
        try quitAndCheck(tmux, before)
    }

    @Test("a save by another process (sqlite3, no history) shows by itself with what changed; R after it finds the counts unchanged")
    func otherProcessSave() throws {
        let store = try demoStore(size: 120)
        let (tmux, before) = try shell()
        defer { tmux.kill() }
        try tmux.sendLine("\(binary) '\(store.path)'")
        try tmux.waitFor(text: "Book · ", timeout: 30)
        try tmux.sendLine(":entity Genre")
        let screen = try tmux.waitFor(text: "Genre · ", timeout: 30)
        let count = try #require(screen.components(separatedBy: "Genre · ").dropFirst().first?.split(separator: " ").first.flatMap { Int($0) })
        // Another process writes a genre, in Core Data's layout, with sqlite3.
        let sql = """
            BEGIN; INSERT INTO ZGENRE (Z_PK, Z_ENT, Z_OPT, ZNAME, ZCODE) \
            SELECT Z_MAX + 1, Z_ENT, 1, 'From another process', 99 FROM Z_PRIMARYKEY WHERE Z_NAME = 'Genre'; \
            UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + 1 WHERE Z_NAME = 'Genre'; COMMIT;
            """
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sqlite.arguments = ["sqlite3", store.path, sql]
        try sqlite.run()
        sqlite.waitUntilExit()
        try #require(sqlite.terminationStatus == 0, "sqlite3 is needed (apt-get install sqlite3)")
        try tmux.waitFor(text: "Genre \(count) → \(count + 1) (+1)", timeout: 30)
        try tmux.waitFor(text: "Genre · \(count + 1) objects", timeout: 30)
        try tmux.sendKeys("R")
        try tmux.waitFor(text: "object counts unchanged", timeout: 30)
        try quitAndCheck(tmux, before)
    }

    @Test("resizing re-lays out the screen, down to a too-small notice and back")
    func resize() throws {
        let store = try demoStore(size: 60)
        let (tmux, before) = try shell()
        defer { tmux.kill() }
        try tmux.sendLine("\(binary) '\(store.path)'")
        try tmux.waitFor(text: "x-coredata://", timeout: 30)  // detail pane beside the table
        try tmux.resize(width: 80, height: 24)
        try tmux.waitUntil("the narrow layout", timeout: 30) { !$0.contains("x-coredata://") && $0.contains("Entities") }
        try tmux.resize(width: 50, height: 10)
        try tmux.waitFor(text: "Terminal too small", timeout: 30)
        try tmux.resize(width: 120, height: 36)
        try tmux.waitFor(text: "x-coredata://", timeout: 30)
        try quitAndCheck(tmux, before)
    }

    @Test("Ctrl-Z suspends to the shell, fg brings the screen back")
    func suspendResume() throws {
        let store = try demoStore(size: 60)
        let (tmux, before) = try shell()
        defer { tmux.kill() }
        try tmux.sendLine("\(binary) '\(store.path)'")
        try tmux.waitFor(text: "Book · ", timeout: 30)
        try tmux.sendKeys("C-z")
        try tmux.waitFor(text: "Stopped", timeout: 30)
        try tmux.waitFor(format: "#{alternate_on}", toBe: "0", timeout: 30)
        try tmux.sendLine("fg")
        try tmux.waitFor(text: "Book · ", timeout: 30)
        try tmux.sendKeys("j")
        try tmux.waitFor(text: "2 of ", timeout: 30)
        try quitAndCheck(tmux, before)
    }

    @Test("SIGTERM ends the browser and the terminal is restored (prompt usable, stty -a as before)")
    func sigterm() throws {
        let store = try demoStore(size: 60)
        let (tmux, before) = try shell()
        defer { tmux.kill() }
        try tmux.sendLine("\(binary) '\(store.path)' & echo started-$!; fg")
        let screen = try tmux.waitFor(text: "Book · ", timeout: 30)
        _ = screen
        // Find the browser's pid through the pane's process tree.
        let pids = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)  // keep Foundation honest
        _ = pids
        let pgrep = Process()
        pgrep.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        pgrep.arguments = ["pkill", "-TERM", "-f", "^\(binary) \(store.path)"]
        try pgrep.run()
        pgrep.waitUntilExit()
        try tmux.waitFor(format: "#{alternate_on}", toBe: "0", timeout: 30)
        try tmux.sendLine("echo alive-$((6*7))")
        try tmux.waitFor(text: "alive-42", timeout: 30)
        let after = try SttySnapshot.take(in: tmux)
        #expect(before.differences(from: after).isEmpty)
        #expect(try tmux.terminalModes() == .shell)
    }

    @Test("errors before the screen starts print one line and leave the terminal alone")
    func startupError() throws {
        let result = try StackScopeBinary.run(["/no/such/store.sqlite"])
        #expect(result.status == 1)
        #expect(result.stderr == "stackscope: error: no store at /no/such/store.sqlite: the file does not exist\n")
        #expect(result.stdout.isEmpty)
    }

    @Test("NO_COLOR and a 20×5 terminal: no crash, a notice, q quits")
    func noColorTiny() throws {
        let store = try demoStore(size: 60)
        let (tmux, before) = try shell(["NO_COLOR": "1"], width: 20, height: 5)
        defer { tmux.kill() }
        try tmux.sendLine("\(binary) '\(store.path)'")
        try tmux.waitFor(text: "too small", timeout: 30)
        let colored = try tmux.capture(escapes: true)
        // No palette colours (SGR 30–37, 38;…, 40–47, 48;…); resets to the default (39, 49) are fine.
        #expect(colored.range(of: "\u{1B}\\[([0-9;]*;)?(3[0-7]|38|4[0-7]|48)[;m]", options: .regularExpression) == nil)
        try quitAndCheck(tmux, before)
    }
}

/// Editing in scratch contexts with the real binary: saves seen by another process, the quit
/// question, a merge conflict between two processes on one store file.
extension BrowserEndToEndTests {
    /// Runs the browser on `store` in a shell of its own and waits for the Book table.
    func browser(_ store: URL) throws -> (Tmux, SttySnapshot) {
        let (tmux, before) = try shell()
        try tmux.sendLine("\(binary) '\(store.path)'")
        try tmux.waitFor(text: "Book · ", timeout: 30)
        return (tmux, before)
    }

    /// e on the selected cell (the first book's title), the value typed, Enter; waits until the
    /// scratch context holds it.
    func editTitle(_ tmux: Tmux, to title: String) throws {
        try tmux.sendKeys("e")
        try tmux.waitFor(text: "Edit Book “", timeout: 30)
        try tmux.sendKeys("C-u")
        try tmux.sendText(title)
        try tmux.waitFor(text: "value: \(title)", timeout: 30)
        try tmux.sendKeys("Enter")
        try tmux.waitFor(text: "title set in scratch-1", timeout: 30)
    }

    /// W, waits for the save preview, y.
    func saveWithPreview(_ tmux: Tmux) throws {
        try tmux.sendKeys("W")
        try tmux.waitFor(text: "Save scratch-1?", timeout: 30)
        try tmux.sendKeys("y")
    }

    func sqlite(_ store: URL, _ sql: String) throws -> String {
        try BrowserEditingTests.sqlite(store, sql)
    }

    @Test("an edit saved through a scratch context reaches the file and shows in a second stackscope on it")
    func editSeenByAnotherProcess() throws {
        let store = try demoStore(size: 120)
        let title = "Saved By Process One"
        let (first, firstBefore) = try browser(store)
        defer { first.kill() }
        try editTitle(first, to: title)
        try first.waitFor(text: "ctx scratch-1 (child)", timeout: 30)
        // Not saved yet: nothing in the file.
        #expect(try sqlite(store, "SELECT COUNT(*) FROM ZBOOK WHERE ZTITLE = '\(title)'") == "0")
        try saveWithPreview(first)
        try first.waitFor(text: "Saved scratch-1: 0 inserted, 1 updated, 0 deleted", timeout: 30)
        #expect(try sqlite(store, "SELECT COUNT(*) FROM ZBOOK WHERE ZTITLE = '\(title)'") == "1")
        // The saves pane shows each level's did-save: the scratch context, main, root.
        let saved = try first.waitUntil("the saves of scratch-1, main and root", timeout: 30) { screen in
            let lines = screen.split(separator: "\n")
            return ["scratch-1", "main", "root"].allSatisfy { name in
                lines.contains { $0.contains("  \(name) ") && $0.contains("~1 updated") }
            }
        }
        #expect(saved.contains("ctx scratch-1 (child) · storeTrump (root) · 0 pending"))
        // A second process, started after the save while the first still runs, reads the new title.
        let (second, secondBefore) = try browser(store)
        defer { second.kill() }
        let screen = try second.waitFor(text: title, timeout: 30)
        #expect(screen.contains("Book: \(title)"))  // the detail of the selected (first) book
        try quitAndCheck(second, secondBefore)
        try quitAndCheck(first, firstBefore)
        #expect(try sqlite(store, "SELECT COUNT(*) FROM ZBOOK WHERE ZTITLE = '\(title)'") == "1")
    }

    @Test("two stackscope windows on the demo store show each other's saves live (⇄ lines with the process, no R)")
    func twoWindowsLive() throws {
        let cache = try TestSupport.temporaryDirectory()
        func demoWindow() throws -> (Tmux, SttySnapshot) {
            let (tmux, before) = try shell(["XDG_CACHE_HOME": cache.path])
            try tmux.sendLine(binary)
            try tmux.waitFor(text: "Book · 30 objects", timeout: 60)
            return (tmux, before)
        }
        let (a, aBefore) = try demoWindow()
        defer { a.kill() }
        let (b, bBefore) = try demoWindow()
        defer { b.kill() }
        try editTitle(a, to: "Saved In Window A")
        try saveWithPreview(a)
        // B follows by itself: the table and detail show A's title, the saves pane a ⇄ line.
        // (Not "⇄" alone: the empty saves pane's placeholder has one.)
        let seen = try b.waitUntil("A's save in window B", timeout: 30) {
            $0.contains("Saved In Window A") && $0.contains("other process · transaction")
        }
        #expect(seen.contains("⇄"))
        try editTitle(b, to: "Saved In Window B")
        try saveWithPreview(b)
        try a.waitUntil("B's save in window A", timeout: 30) { $0.contains("Saved In Window B") && $0.contains("other process · transaction") }
        try quitAndCheck(b, bBefore)
        try quitAndCheck(a, aBefore)
    }

    @Test("q with unsaved changes in a scratch context asks first: n goes back, y quits and restores the terminal")
    func quitAsksWithUnsavedChanges() throws {
        let store = try demoStore(size: 60)
        let title = "Never Saved"
        let (tmux, before) = try browser(store)
        defer { tmux.kill() }
        try editTitle(tmux, to: title)
        try tmux.sendKeys("q")
        let question = try tmux.waitFor(text: "Quit and lose unsaved changes?", timeout: 30)
        #expect(question.contains("scratch-1: 0 inserted, 1 updated, 0 deleted"))
        try tmux.sendKeys("n")
        let back = try tmux.waitUntil("the question to close", timeout: 30) { !$0.contains("Quit and lose unsaved changes?") }
        #expect(try tmux.display("#{alternate_on}") == "1")
        #expect(back.contains(title))
        #expect(back.contains("ctx scratch-1 (child)") && back.contains("1 pending"))
        try quitAndCheck(tmux, before, confirming: true)
        #expect(try sqlite(store, "SELECT COUNT(*) FROM ZBOOK WHERE ZTITLE = '\(title)'") == "0")
    }

    @Test("two processes edit one book: the sibling context's save meets the conflict (policy error), objecttrump then writes its title")
    func mergeConflictBetweenProcesses() throws {
        let store = try demoStore(size: 120)
        let (a, aBefore) = try browser(store)
        defer { a.kill() }
        let (b, bBefore) = try browser(store)
        defer { b.kill() }
        // A: a sibling context (a root context on the coordinator: it saves straight to the store).
        try a.sendLine(":ctx new sibling")
        try a.waitFor(text: "ctx scratch-1 (sibling) · error", timeout: 30)  // a new context's policy
        try editTitle(a, to: "Title From A")
        // B edits the same (first) book in a scratch child and saves it to the file.
        try editTitle(b, to: "Title From B")
        try saveWithPreview(b)
        try b.waitFor(text: "Saved scratch-1", timeout: 30)
        let pk = try sqlite(store, "SELECT Z_PK FROM ZBOOK WHERE ZTITLE = 'Title From B'")
        try #require(!pk.isEmpty && Int(pk) != nil)
        // A saves: optimistic locking finds the row changed since A read it; under error nothing is saved.
        try saveWithPreview(a)
        let conflict = try a.waitFor(text: "Merge conflict saving scratch-1", timeout: 30)
        #expect(conflict.contains("The merge policy is “error”, so nothing was saved"))
        #expect(conflict.contains("Book p\(pk): title: cached"))
        #expect(conflict.contains("store \"Title From B\", context \"Title From A\""))
        try a.waitFor(text: "conflict: 1 object, policy error", timeout: 30)  // the saves pane
        #expect(try sqlite(store, "SELECT ZTITLE FROM ZBOOK WHERE Z_PK = \(pk)") == "Title From B")
        // The change stays in A; under objecttrump A's title wins, property by property.
        try a.sendKeys("Escape")
        let kept = try a.waitUntil("the report to close", timeout: 30) { !$0.contains("Merge conflict saving") }
        #expect(kept.contains("1 pending"))
        try a.sendLine(":mergepolicy objecttrump")
        try a.waitFor(text: "ctx scratch-1 (sibling) · objectTrump", timeout: 30)
        try saveWithPreview(a)
        let report = try a.waitFor(text: "Save of scratch-1: what won", timeout: 30)
        #expect(report.contains("under objectTrump"))
        #expect(report.contains("title: cached ") && report.contains("· store Title From B · context Title From A → Title From A (context)"))
        #expect(try sqlite(store, "SELECT ZTITLE FROM ZBOOK WHERE Z_PK = \(pk)") == "Title From A")
        try a.sendKeys("Escape")
        try a.waitUntil("the report to close", timeout: 30) { !$0.contains("Save of scratch-1: what won") && $0.contains("0 pending") }
        // B re-reads the store (R) and shows A's title, in its scratch child and its detail pane.
        try b.sendKeys("R")
        let reread = try b.waitUntil("A's title in B's table and detail", timeout: 30) {
            $0.contains("Book: Title From A") && $0.contains("│  Title From A") && $0.contains("refresh: ")
        }
        #expect(reread.contains("ctx scratch-1 (child)"))
        try quitAndCheck(a, aBefore)
        try quitAndCheck(b, bBefore)
        #expect(try sqlite(store, "SELECT ZTITLE FROM ZBOOK WHERE Z_PK = \(pk)") == "Title From A")
    }

    @Test("two processes on one book's ordered chapters: B moves one up (K) and saves; A's chapters table re-sorts by itself")
    func reorderSeenByAnotherProcess() throws {
        // The demo store keeps history: A merges B's transaction (no re-read), so only the
        // owner's change tells A's chapters table that the order changed.
        let cache = try TestSupport.temporaryDirectory()
        func demoBrowser() throws -> (Tmux, SttySnapshot) {
            let (tmux, before) = try shell(["XDG_CACHE_HOME": cache.path])
            try tmux.sendLine(binary)
            try tmux.waitFor(text: "Book · 30 objects", timeout: 30)
            return (tmux, before)
        }
        let (a, aBefore) = try demoBrowser()
        defer { a.kill() }
        let (b, bBefore) = try demoBrowser()
        defer { b.kill() }
        let store = cache.appendingPathComponent("stackscope/LocalData.sqlite")
        // The first book on screen (store order) and its first two chapters, in its order.
        let first = try sqlite(store, "SELECT Z_PK FROM ZBOOK ORDER BY Z_PK LIMIT 1")
        let titles = try sqlite(store, "SELECT ZTITLE FROM ZCHAPTER WHERE ZBOOK = \(first) ORDER BY Z_FOK_BOOK LIMIT 2").split(separator: "\n").map(String.init)
        try #require(titles.count == 2)
        func order(_ screen: String) -> [Int] {
            let lines = screen.split(separator: "\n").map(String.init)
            return titles.map { t in lines.firstIndex { $0.contains("│  \(t) ") || $0.contains("│↕ \(t) ") } ?? -1 }
        }
        for t in [a, b] {
            try t.sendKeys("Enter")
            try t.waitFor(text: "chapters ", timeout: 30)
            try t.sendKeys("G")
            try t.sendKeys("Enter")
            try t.waitFor(text: "› chapters · ", timeout: 30)
        }
        let shown = try a.capture()
        let before = order(shown)
        #expect(before[0] >= 0 && before[0] < before[1], "\(shown)")
        try b.sendKeys("j")
        try b.sendKeys("K")
        try b.waitFor(text: "Moved Chapter", timeout: 30)
        try saveWithPreview(b)
        try b.waitFor(text: "Saved scratch-1", timeout: 30)
        let after = try a.waitUntil("A's table in the new order", timeout: 30) { screen in
            let o = order(screen)
            return o[0] >= 0 && o[1] >= 0 && o[1] < o[0]
        }
        #expect(after.contains("other process · transaction"))
        try quitAndCheck(a, aBefore)
        try quitAndCheck(b, bBefore)
    }
}
