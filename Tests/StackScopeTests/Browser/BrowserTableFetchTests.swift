import CoreStack
import Foundation
import StackScope
import Testing

@Suite("browser: a table's fetch runs off the main queue; Esc cancels it")
struct BrowserTableFetchTests {
    /// The first column's cells of the rows on screen (the table's text between its borders).
    static func firstTitles(_ h: BrowserHarness) -> [String] {
        h.onMain { h.program.state.table.window.rows.compactMap { row -> String? in
            if case let .object(_, cells) = row { return cells.first }
            return nil
        } }
    }

    @Test("while a sort's query runs, keys move the old table; Esc cancels it and the table stays as it was; sorting again applies")
    func sortRunsOffMainAndCancels() throws {
        let h = try BrowserHarness.demo(open: "Book")
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        h.onMain {
            h.program.tableFetchWillRun = {
                started.signal()
                _ = gate.wait(timeout: .now() + 30)
            }
        }
        let before = Self.firstTitles(h)
        #expect(before.count > 3)
        #expect(h.state.table.sort.isEmpty)
        // Sort by the selected column (title); not `press`, which waits for the program to be idle.
        h.onMain { h.program.dispatch(.key(.char("s"))) }
        #expect(started.wait(timeout: .now() + 10) == .success)
        #expect(h.onMain { h.program.state.busy } == "Sorting")
        // The main queue is free: a key moves the selection in the table shown.
        let selection = h.onMain { h.program.state.table.scroll.selection }
        h.onMain { h.program.dispatch(.key(.char("j"))) }
        #expect(h.onMain { h.program.state.table.scroll.selection } == selection + 1)
        h.onMain { h.program.dispatch(.key(.escape)) }
        #expect(h.onMain { h.program.state.status.message } == "Cancelled: Sorting")
        gate.signal()
        h.waitUntilIdle()
        #expect(h.state.busy == nil)
        #expect(h.state.table.sort.isEmpty)
        #expect(Self.firstTitles(h) == before)

        // Not cancelled, the same sort is applied.
        h.onMain { h.program.tableFetchWillRun = nil }
        h.press("s")
        #expect(h.waitUntil { !$0.table.sort.isEmpty && $0.busy == nil })
        let sorted = Self.firstTitles(h)
        #expect(sorted == sorted.sorted())
        #expect(sorted != before)
    }
}
