import CoreStack
import Foundation
import StackScope
import Testing

@Suite("browser: sort, sections, filter, search, export", .serialized)
struct BrowserTableTests {
    /// The title column's cells of the rows on screen, top to bottom.
    func titles(_ h: BrowserHarness) -> [String] {
        h.state.table.window.rows.compactMap { row -> String? in
            if case let .object(_, cells) = row { return cells.first } else { return nil }
        }
    }

    @Test("s cycles the column's sort ascending, descending, off; the header shows the direction")
    func sorting() throws {
        let h = try BrowserHarness.demo()
        h.press("s")
        #expect(h.state.table.sort == [SortKey(column: "title", ascending: true)])
        #expect(h.screen.contains("title↑"))
        let ascending = titles(h)
        #expect(ascending == ascending.sorted { $0.compare($1) != .orderedDescending } || ascending.count > 1)
        h.press("s")
        #expect(h.state.table.sort == [SortKey(column: "title", ascending: false)])
        #expect(h.screen.contains("title↓"))
        let descending = titles(h)
        #expect(descending.first == ascending.last || h.state.table.rowCount > ascending.count)
        h.press("s")
        #expect(h.state.table.sort.isEmpty)
        // A second key: pages descending after edition.
        h.press("l l l l")
        #expect(h.state.table.columns[h.state.table.selectedColumn].name == "edition")
        h.press("s h h S S")
        #expect(h.state.table.sort == [SortKey(column: "edition", ascending: true), SortKey(column: "pages", ascending: false)])
        // The header numbers the keys (edition has scrolled out of view to the left).
        #expect(h.screen.contains("pages↓2"))
        h.press("l l")
        #expect(h.screen.contains("edition↑1"))
    }

    @Test("sorting keeps the selected object selected")
    func sortKeepsSelection() throws {
        let h = try BrowserHarness.demo()
        h.press("j j j")
        let id = try #require(h.state.table.selectedID)
        h.press("s")
        #expect(h.state.table.selectedID == id)
        #expect(h.state.detail.snapshot?.objectID == id)
    }

    @Test("= groups the rows in sections by the first sort key, shown as headers with counts")
    func sections() throws {
        let h = try BrowserHarness.demo()
        h.press("l l l l")  // edition
        h.press("s =")
        #expect(h.state.table.sectioned)
        let headers = h.state.table.window.rows.compactMap { row -> (String, Int)? in
            if case let .section(name, count) = row { return (name, count) } else { return nil }
        }
        #expect(headers.count >= 2)
        #expect(headers.map(\.1).reduce(0, +) == h.state.table.objectCount)
        #expect(h.state.table.rowCount == h.state.table.objectCount + headers.count)
        #expect(h.screen.contains("── 1 ("))
        // The selection never rests on a header, and g shows the first header above it.
        h.press("G g")
        #expect(h.state.table.selectedID != nil)
        #expect(h.state.table.scroll.selection == 1)
        #expect(h.state.table.scroll.offset == 0)
        h.press("=")
        #expect(!h.state.table.sectioned)
    }

    @Test("a filter in the predicate language narrows the rows; F clears it")
    func filter() throws {
        let h = try BrowserHarness.demo()
        let all = h.state.table.objectCount
        h.press("f")
        h.type("pages > 300")
        h.press("Enter")
        #expect(h.state.table.filter == "pages > 300")
        #expect(h.state.table.objectCount < all)
        #expect(h.state.table.objectCount > 0)
        #expect(h.screen.contains("filter: pages > 300"))
        for row in h.state.table.window.rows {
            if case let .object(_, cells) = row, let pages = Int(cells[2].trimmingCharacters(in: .whitespaces)) {
                #expect(pages > 300)
            }
        }
        h.press("F")
        #expect(h.state.table.filter == nil)
        #expect(h.state.table.objectCount == all)
    }

    @Test("a malformed filter shows its error and position in place and keeps the last good filter")
    func malformedFilter() throws {
        let h = try BrowserHarness.demo()
        h.press("f")
        h.type("pages > 300")
        h.press("Enter")
        let good = h.state.table.objectCount
        h.press("f C-u")
        h.type("pages >> 3")
        let screen = h.screen
        #expect(screen.contains("filter: pages >> 3"))
        #expect(screen.contains("✗"))
        #expect(screen.contains("^"))
        h.press("Enter")  // refused: the prompt stays, nothing changes
        guard case .prompt? = h.state.topModal else {
            Issue.record("the prompt closed on a malformed predicate")
            return
        }
        h.press("Esc")
        #expect(h.state.table.filter == "pages > 300")
        #expect(h.state.table.objectCount == good)
        // A filter that parses but names no attribute fails at the fetch, and says so.
        h.press("f C-u")
        h.type("nosuchkey == 1")
        h.press("Enter")
        #expect(h.state.table.filter == "pages > 300")
        #expect(h.state.status.level == .error)
        #expect(h.screen.contains("nosuchkey"))
    }

    @Test("/ searches the visible columns; n and N go to the next and previous match")
    func search() throws {
        let h = try BrowserHarness.demo()
        h.press("/")
        h.type("the")
        h.press("Enter")
        let first = h.state.table.scroll.selection
        let row = try #require(h.state.table.window.row(first))
        guard case let .object(_, cells) = row else {
            Issue.record("the match is not an object row")
            return
        }
        #expect(cells.contains { $0.lowercased().contains("the") })
        h.press("n")
        let second = h.state.table.scroll.selection
        #expect(second != first)
        h.press("N")
        #expect(h.state.table.scroll.selection == first)
        h.press("/")
        h.type("zzzz-no-such-text")
        h.press("Enter")
        #expect(h.screen.contains("No match"))
    }

    @Test(":export csv and json write the whole table with the filter applied")
    func export() throws {
        let h = try BrowserHarness.demo(open: "Genre")
        let dir = try TestSupport.temporaryDirectory()
        let csv = dir.appendingPathComponent("genres.csv").path
        let json = dir.appendingPathComponent("genres.json").path
        h.press(":")
        h.type("export csv \(csv)")
        h.press("Enter")
        h.press(":")
        h.type("export json \(json)")
        h.press("Enter")
        let text = try String(contentsOfFile: csv, encoding: .utf8)
        let lines = text.split(separator: "\r\n")
        #expect(lines.first == "objectID,name,code")
        #expect(lines.count == h.state.table.objectCount + 1)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [[String: Any]])
        #expect(parsed.count == h.state.table.objectCount)
        #expect(parsed.first?["code"] is Int)
        #expect(h.screen.contains("Wrote \(parsed.count) rows"))
    }

    @Test("a filter nothing matches empties the detail too: it no longer shows the object selected before")
    func emptyTableEmptiesDetail() throws {
        let h = try BrowserHarness.demo(open: "Book")
        #expect(h.state.detail.snapshot != nil)
        h.press("f")
        h.type("pages > 100000")
        h.press("Enter")
        #expect(h.waitUntil { $0.table.filter == "pages > 100000" && $0.busy == nil })
        #expect(h.state.table.objectCount == 0)
        #expect(h.state.detail.snapshot == nil)
        #expect(h.screen.contains("No object selected"))
        // Clearing the filter selects and shows an object again.
        h.press("F")
        #expect(h.waitUntil { $0.detail.snapshot != nil })
    }

    @Test(":export csv writes binary values whole, as base64 (as json does), not their shortened display")
    func exportBinary() throws {
        let h = try BrowserHarness.demo(open: "Book")
        let csv = try TestSupport.temporaryDirectory().appendingPathComponent("books.csv").path
        h.press(":")
        h.type("export csv \(csv)")
        h.press("Enter")
        #expect(h.screen.contains("Wrote"))
        let covers: [String: Data] = try h.onMain {
            let context = h.session.mainContext
            return try context.performAndWait {
                var out: [String: Data] = [:]
                for book in try context.fetch(FetchRequest<ManagedObject>(entityName: "Book")) {
                    if case let .data(d) = try book.attributeValue(forKey: "cover") { out[book.objectID.uriRepresentation().absoluteString] = d }
                }
                return out
            }
        }
        let long = try #require(covers.first { $0.value.count > 16 }, "no cover longer than the display shows")
        let lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\r\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = try #require(lines.first)
        let coverColumn = try #require(header.firstIndex(of: "cover"))
        let row = try #require(lines.first { $0.first == long.key })
        #expect(row.count == header.count)
        #expect(Data(base64Encoded: row[coverColumn]) == long.value)
    }

    @Test("y copies the selected cell; : completes commands and entity names; unknown commands say so")
    func copyAndCommandLine() throws {
        let h = try BrowserHarness.demo()
        h.press("y")
        let copied = try #require(h.onMain { h.program.lastCopied })
        guard case let .object(_, cells)? = h.state.table.window.row(h.state.table.scroll.selection) else {
            Issue.record("no row")
            return
        }
        #expect(copied == cells[0])
        h.press(":")
        h.type("ent")
        #expect(h.screen.contains(":entity"))
        h.press("Tab")
        h.type(" Gen")
        h.press("Tab Enter")
        #expect(h.state.table.source == .entity("Genre"))
        h.press(":")
        h.type("frobnicate")
        h.press("Enter")
        #expect(h.screen.contains("Unknown command “frobnicate”"))
        // History: ↑ brings back the last command.
        h.press(":")
        h.press("Up")
        guard case let .commandLine(cl)? = h.state.topModal else {
            Issue.record("no command line")
            return
        }
        #expect(cl.line.text == "frobnicate")
    }

    @Test("? shows help generated from the keymap, filterable; Enter runs the selected row")
    func help() throws {
        let h = try BrowserHarness.demo()
        h.press("?")
        for b in Keymap.all.prefix(8) { #expect(h.screen.contains(b.help)) }
        h.type("zoom")
        #expect(h.screen.contains("Zoom the focused pane"))
        #expect(!h.screen.contains("Move down"))
        h.press("Down Enter")
        #expect(h.state.zoomed)
        #expect(h.state.modals.isEmpty)
    }

    @Test("? lists the : commands too, filterable; Enter on one that takes arguments opens the command line with its name typed, on one that takes none runs it")
    func helpListsCommands() throws {
        let h = try BrowserHarness.demo(open: "Book")
        h.press("?")
        h.type("export")
        #expect(h.screen.contains("write the current table"), "\(h.screen)")
        h.press("Down Enter")
        guard case let .commandLine(cl)? = h.state.topModal else {
            Issue.record("no command line: \(String(describing: h.state.topModal))")
            return
        }
        #expect(cl.line.text == "export ")
        h.press("Esc")
        #expect(h.state.modals.isEmpty)
        h.press("?")
        h.type("persistent history")
        h.press("Down Enter")
        // It ran: the in-memory store keeps no history, and says so.
        #expect(h.state.modals.isEmpty)
        #expect(h.state.status.message?.lowercased().contains("history") == true, "\(h.state.status.message ?? "")")
    }
}

@Suite("browser: long work shows progress and Esc cancels it")
struct BrowserCancelTests {
    @Test("a search runs in steps with a progress line; Esc stops it and keeps the selection")
    func searchCancels() throws {
        let h = try BrowserHarness.demo(open: "Chapter")
        h.onMain { h.program.searchStepRows = 8 }
        let rows = h.state.table.rowCount
        #expect(rows > 16)
        let selection = h.state.table.scroll.selection
        h.press("/")
        h.type("no such text anywhere")
        // Enter and Esc in one turn of the main queue: the search's first step has not run yet.
        h.onMain {
            h.program.dispatch(.key(.enter))
            h.program.dispatch(.key(.escape))
        }
        h.waitUntilIdle()
        #expect(h.state.busy == nil)
        #expect(h.state.status.message == "Cancelled: Searching “no such text anywhere”")
        #expect(h.state.table.scroll.selection == selection)
        // Every step draws a frame with how far it got.
        final class Seen: @unchecked Sendable { var lines: [String] = [] }
        let seen = Seen()
        h.onMain { h.backend.onDraw = { frame in seen.lines += frame.buffer.lines().filter { $0.contains(" rows…") } } }
        // Not cancelled, the same search runs to the end and says so.
        h.press("/")
        h.type("no such text anywhere")
        h.press("Enter")
        #expect(h.state.status.message == "No match for “no such text anywhere”")
        let progress = h.onMain { seen.lines }
        #expect(progress.contains { $0.contains("Searching “no such text anywhere”: 8 of \(rows) rows… (Esc cancels)") })
        #expect(progress.contains { $0.contains(": 88 of \(rows) rows…") })
    }
}
