import CoreStack
import Foundation
import StackScope
import Testing

/// `:stats` in the browser: the selected column's figures over the table's objects, as a report.
@Suite("browser: column statistics", .serialized)
struct BrowserStatsTests {
    func command(_ h: BrowserHarness, _ line: String) {
        h.press(":")
        h.type(line)
        h.press("Enter")
    }

    @Test(":stats pages shows the figures over every book; with a filter in force, over the filtered books only; an unknown property is an error line")
    func statsReport() throws {
        let (url, _) = try TestSupport.demoStore(size: 120)
        let session = try BrowserSession.open(storePath: url.path, modelPath: nil, readOnly: true)
        let h = try BrowserHarness(session: session, open: "Book")
        let books = h.state.table.objectCount
        command(h, "stats pages")
        #expect(h.waitUntil { $0.topModal != nil })
        guard case let .confirm(report)? = h.state.topModal else {
            Issue.record("no report: \(String(describing: h.state.status.message)) \(String(describing: h.state.topModal))")
            return
        }
        #expect(report.title == "Book.pages")
        #expect(report.lines.first == "Objects:   \(books)")
        #expect(report.lines.contains("Histogram"))
        h.press("Esc")
        #expect(h.state.topModal == nil)

        h.press("f")
        h.type("pages > 500")
        h.press("Enter")
        #expect(h.waitUntil { $0.table.filter == "pages > 500" && $0.busy == nil })
        let filtered = h.state.table.objectCount
        #expect(filtered < books)
        command(h, "stats pages")
        #expect(h.waitUntil { $0.topModal != nil })
        guard case let .confirm(narrowed)? = h.state.topModal else {
            Issue.record("no report")
            return
        }
        #expect(narrowed.lines.first == "Filter:    pages > 500")
        #expect(narrowed.lines.contains("Objects:   \(filtered)"))
        h.press("Esc")

        command(h, "stats nope")
        #expect(h.state.topModal == nil)
        #expect(h.waitUntil { $0.status.message?.contains("nope") == true }, "\(String(describing: h.state.status.message))")
    }

    @Test("I on the selected column opens the same report as :stats with no property; on another column, that column's")
    func keyOpensTheSelectedColumnsReport() throws {
        let (url, _) = try TestSupport.demoStore(size: 120)
        let session = try BrowserSession.open(storePath: url.path, modelPath: nil, readOnly: true)
        let h = try BrowserHarness(session: session, open: "Book")
        let pages = try #require(h.state.table.columns.firstIndex { $0.name == "pages" })
        for _ in 0..<max(0, pages - h.state.table.selectedColumn) { h.press("l") }
        #expect(h.state.table.columns[h.state.table.selectedColumn].name == "pages")
        h.press("I")
        #expect(h.waitUntil { $0.topModal != nil })
        guard case let .confirm(byKey)? = h.state.topModal else {
            Issue.record("no report: \(String(describing: h.state.status.message))")
            return
        }
        #expect(byKey.title == "Book.pages")
        h.press("Esc")
        command(h, "stats")
        #expect(h.waitUntil { $0.topModal != nil })
        guard case let .confirm(byCommand)? = h.state.topModal else {
            Issue.record("no report")
            return
        }
        #expect(byCommand.lines == byKey.lines)
        h.press("Esc")

        h.press("h")
        let other = h.state.table.columns[h.state.table.selectedColumn].name
        #expect(other != "pages")
        h.press("I")
        #expect(h.waitUntil { $0.topModal != nil })
        guard case let .confirm(otherReport)? = h.state.topModal else {
            Issue.record("no report for \(other)")
            return
        }
        #expect(otherReport.title == "Book.\(other)")
    }

    @Test(":stats on a column, then j and Enter on the second most common value: the table is filtered to the objects holding it")
    func enterFiltersToAValue() throws {
        let (url, _) = try TestSupport.demoStore(size: 120)
        let session = try BrowserSession.open(storePath: url.path, modelPath: nil, readOnly: true)
        let h = try BrowserHarness(session: session, open: "Chapter")
        let expected = try StatsCommand.statistics(storePath: url.path, modelPath: nil, entity: "Chapter", property: "number")
        #expect(expected.mostCommon.count >= 2)
        command(h, "stats number")
        #expect(h.waitUntil { $0.topModal != nil })
        guard case let .confirm(report)? = h.state.topModal else {
            Issue.record("no report")
            return
        }
        #expect(report.filters.count == expected.mostCommon.count + expected.histogram.count)
        h.press("j")
        h.press("Enter")
        let second = expected.mostCommon[1]
        let filter = try #require(StatsCommand.filter(for: second.value, property: "number"))
        #expect(h.waitUntil { $0.table.filter == filter && $0.busy == nil }, "\(String(describing: h.state.table.filter))")
        #expect(h.state.table.objectCount == second.count)
    }

    @Test(":stats pages, then down past the most common values onto the histogram's bins: Enter on the second bin filters the table to its range, as many books as the bin counts; the last bin includes its upper bound")
    func enterFiltersToABin() throws {
        let (url, _) = try TestSupport.demoStore(size: 120)
        let session = try BrowserSession.open(storePath: url.path, modelPath: nil, readOnly: true)
        let h = try BrowserHarness(session: session, open: "Book")
        let expected = try StatsCommand.statistics(storePath: url.path, modelPath: nil, entity: "Book", property: "pages")
        #expect(expected.histogram.count == 10)
        command(h, "stats pages")
        #expect(h.waitUntil { $0.topModal != nil })
        guard case let .confirm(report)? = h.state.topModal else {
            Issue.record("no report")
            return
        }
        #expect(report.filters.count == expected.mostCommon.count + expected.histogram.count)
        for _ in 0..<(expected.mostCommon.count + 1) { h.press("j") }
        h.press("Enter")
        let filter = try #require(StatsCommand.filter(forBin: 1, of: expected))
        #expect(filter == "pages >= \(expected.histogram[1].lowerBound) AND pages < \(expected.histogram[1].upperBound)")
        #expect(h.waitUntil { $0.table.filter == filter && $0.busy == nil }, "\(String(describing: h.state.table.filter))")
        #expect(h.state.table.objectCount == expected.histogram[1].count)
        let last = try #require(StatsCommand.filter(forBin: 9, of: expected))
        #expect(last.hasSuffix("pages <= \(expected.histogram[9].upperBound)"))
        #expect(StatsCommand.filter(forBin: 10, of: expected) == nil)
    }

    @Test("the filter of a value names it in the predicate format: text quoted and escaped, numbers, booleans, dates and UUIDs cast, to-many counts")
    func filterTexts() {
        #expect(StatsCommand.filter(for: .attribute(.string("say \"hi\"")), property: "title") == #"title == "say \"hi\"""#)
        #expect(StatsCommand.filter(for: .attribute(.integer(42)), property: "pages") == "pages == 42")
        #expect(StatsCommand.filter(for: .attribute(.bool(true)), property: "inPrint") == "inPrint == YES")
        #expect(StatsCommand.filter(for: .attribute(.date(Date(timeIntervalSinceReferenceDate: 0))), property: "published") == #"published == CAST(0.0, "NSDate")"#)
        #expect(StatsCommand.filter(for: .count(3), property: "authors") == "authors.@count == 3")
        #expect(StatsCommand.filter(for: .attribute(.data(Data([1]))), property: "cover") == nil)
    }
}
