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
}
