import CoreStack
import Foundation
import StackScope
import Testing

/// "Other tables" in the entities pane, browsed as plain rows, and the value inspector reading
/// stored values a range at a time (external data files, SQLite's blob I/O), with headless keys.
@Suite("other tables and lazy values in the browser", .serialized)
struct OtherTablesBrowserTests {
    static func harness(_ url: URL, screen: Size = Size(width: 120, height: 30)) throws -> BrowserHarness {
        let store = try SQLiteStore(url: url, model: try OtherTablesStore.model(), readOnly: true)
        return try BrowserHarness(session: try BrowserSession.stack(over: store, url: url, readOnly: true), size: screen, open: "Photo")
    }

    static func plainTable(_ h: BrowserHarness) -> PlainTableViewState? {
        if case let .plainTable(v)? = h.state.modals.last { v } else { nil }
    }

    static func inspector(_ h: BrowserHarness) -> ValueInspectorState? {
        if case let .valueInspector(v)? = h.state.modals.last { v } else { nil }
    }

    /// From the table: to the entities pane, down to `table` under "Other tables", Enter.
    static func openOtherTable(_ h: BrowserHarness, _ table: String) throws {
        h.press("S-Tab")
        #expect(h.state.focus == .entities)
        let visible = h.state.entities.visible
        let index = try #require(visible.firstIndex { $0.kind == .otherTable && $0.name == table })
        let here = h.state.entities.scroll.selection
        h.press(Array(repeating: "j", count: index - here).joined(separator: " "))
        h.press("Enter")
    }

    @Test("the entities pane lists NOTES and TAGS under Other tables with their row counts; Photo stays an entity")
    func listed() throws {
        let h = try Self.harness(try OtherTablesStore.make())
        let nodes = h.state.entities.all
        #expect(nodes.map(\.name) == ["Photo", "Other tables", "NOTES", "TAGS"])
        #expect(nodes.map(\.kind) == [.entity, .otherTablesHeading, .otherTable, .otherTable])
        #expect(h.waitUntil { $0.entities.tableCounts == ["NOTES": 4, "TAGS": 1] })
        // The counts at the right of the entities pane.
        #expect(h.line(containing: "Other tables")?.range(of: #"Other tables +2(?![0-9])"#, options: .regularExpression) != nil)
        #expect(h.line(containing: "NOTES")?.range(of: #"NOTES +4(?![0-9])"#, options: .regularExpression) != nil)
        #expect(h.line(containing: "TAGS")?.range(of: #"TAGS +1(?![0-9])"#, options: .regularExpression) != nil)
        // The heading folds its tables away and back.
        h.press("S-Tab")
        h.press("j Enter")
        #expect(h.state.entities.visible.map(\.name) == ["Photo", "Other tables"])
        h.press("Enter")
        #expect(h.state.entities.visible.count == 4)
    }

    @Test("Enter on NOTES shows its rows; s sorts by the selected column both ways; f filters; Enter on a cell opens the inspector")
    func browseSortFilterInspect() throws {
        let h = try Self.harness(try OtherTablesStore.make())
        try Self.openOtherTable(h, "NOTES")
        #expect(h.waitFor("NOTES · other table · 4 rows"))
        var v = try #require(Self.plainTable(h))
        #expect(v.columns.map(\.name) == ["ID", "TITLE", "BODY"])
        #expect((0..<4).compactMap { v.window[$0]?.cells[1] } == ["mango draft", "apple", "kiwi draft", "banana"])
        #expect(h.line(containing: "mango draft")?.contains("JSON object · 1 key") == true)
        #expect(h.line(containing: "apple")?.contains("NULL") == true)
        // Sort by TITLE: ascending, then descending, then rowid order again.
        h.press("l s")
        v = try #require(Self.plainTable(h))
        #expect((0..<4).compactMap { v.window[$0]?.cells[1] } == ["apple", "banana", "kiwi draft", "mango draft"])
        #expect(h.screen.contains("TITLE↑"))
        #expect(h.screen.contains("NOTES sorted by TITLE ascending"))
        h.press("s")
        v = try #require(Self.plainTable(h))
        #expect((0..<4).compactMap { v.window[$0]?.rowID } == [1, 3, 4, 2])
        h.press("s")
        v = try #require(Self.plainTable(h))
        #expect((0..<4).compactMap { v.window[$0]?.rowID } == [1, 2, 3, 4])
        // Filter: rows containing "draft".
        h.press("f")
        h.type("draft")
        h.press("Enter")
        #expect(h.waitFor("NOTES · other table · 2 rows · filter: draft"))
        v = try #require(Self.plainTable(h))
        #expect(v.rowCount == 2 && (0..<2).compactMap { v.window[$0]?.rowID } == [1, 3])
        // The BODY of "kiwi draft" in the inspector, as a hex dump.
        h.press("l j Enter")
        #expect(h.waitFor("NOTES.BODY · row 3 · tree"))
        let inspector = try #require(Self.inspector(h))
        #expect(inspector.bytes.count == 4)
        h.press("Tab")
        #expect(h.waitFor("00000000  00 01 02 03"))
        // Esc closes the inspector, then the plain table; the filter is cleared with an empty one.
        h.press("Esc")
        #expect(Self.plainTable(h) != nil)
        h.press("f C-u Enter")
        #expect(h.waitFor("NOTES · other table · 4 rows"))
        h.press("Esc")
        #expect(h.state.modals.isEmpty)
    }

    @Test("a table WITHOUT ROWID is listed and shown; its cells open in the inspector, read with SELECT")
    func withoutRowID() throws {
        let h = try Self.harness(try OtherTablesStore.make())
        try Self.openOtherTable(h, "TAGS")
        #expect(h.waitFor("TAGS · other table · 1 row"))
        h.press("Enter")
        #expect(h.waitFor("TAGS.K · row 1 of the view · tree"))
        #expect(h.screen.contains("1 byte · text · 1 char · \"x\" · read with SELECT"))
        h.press("Esc")
        #expect(Self.plainTable(h) != nil)
    }

    @Test("external binary data: the inspector decodes the file's plist and shows its path; a missing file is a message, not a crash")
    func externalData() throws {
        let url = try OtherTablesStore.make()
        let h = try Self.harness(url)
        // Photo 1 (its image in a file): the detail pane, image, Enter.
        h.press("Enter j Enter")
        #expect(h.waitFor("image · tree"))
        let inspector = try #require(Self.inspector(h))
        let path = url.deletingLastPathComponent().appendingPathComponent(".Photos_SUPPORT/_EXTERNAL_DATA/\(OtherTablesStore.present)").path
        #expect(inspector.location == path)
        #expect(inspector.summary.hasPrefix("\(inspector.bytes.count) bytes · plist dict · 2 keys · in \(path)"))
        #expect(h.screen.contains("teal"))
        // :save-value writes the file's bytes, streamed.
        let saved = try TestSupport.temporaryDirectory().appendingPathComponent("saved.plist")
        h.press(":")
        h.type("save-value \(saved.path)")
        h.press("Enter")
        #expect(h.waitUntil { $0.status.message?.hasPrefix("Wrote image's") == true })
        #expect(try Data(contentsOf: saved) == (try Data(contentsOf: URL(fileURLWithPath: path))))
        h.press("Esc")
        // Photo 3: its file is missing.
        h.press("S-Tab j j Enter j Enter")
        #expect(h.waitUntil { $0.status.message?.contains("the file is missing") == true })
        #expect(h.state.status.message?.contains(OtherTablesStore.missing) == true)
        #expect(Self.inspector(h) == nil)
    }

    @Test("a 100 MB value: the inspector pages through it lazily (right bytes at the end, peak memory far below the value)")
    func largeValueLazily() throws {
        let url = try OtherTablesStore.make()
        try OtherTablesStore.addLargeValues(to: url)
        let h = try Self.harness(url)
        try Self.openOtherTable(h, "NOTES")
        #expect(h.waitFor("NOTES · other table · 5 rows"))
        #expect(h.screen.contains("104857600 bytes"))
        let resetWorks = ResidentMemory.resetPeak()
        let before = ResidentMemory.value("VmRSS") ?? 0
        h.press("G l l Enter")
        #expect(h.waitFor("NOTES.BODY · row 5 · tree"))
        #expect(h.screen.contains("104857600 bytes"))
        h.press("Tab G")
        let lastOffset = OtherTablesStore.largeSize - 16
        let last = InspectedValueText.hexDump(Data(OtherTablesStore.largeRow(at: lastOffset)), base: lastOffset)[0]
        #expect(last.hasPrefix("063ffff0  00 00 00 00 06 3f ff f0  73 74 61 63 6b 62 6c 62"))
        #expect(h.waitFor(last))
        h.press("PgUp PgUp g")
        #expect(h.screen.contains("00000010  00 00 00 00 00 00 00 10  73 74 61 63 6b 62 6c 62  |........stackblb|"))
        // A search reads the whole value a chunk at a time: found near the end, then not at all.
        h.press("/")
        h.type("stackblb")
        h.press("Enter")
        #expect(h.waitUntil { $0.status.message == "“stackblb” on line 2 of 6553600 (hex)" })
        h.press("/")
        h.type("no such bytes")
        h.press("Enter")
        #expect(h.waitUntil { $0.status.message == "“no such bytes” not found in the hex view" })
        let inspector = try #require(Self.inspector(h))
        #expect(inspector.data.count == 256 << 10)
        #expect(try inspector.bytes.bytes(in: 52_428_800..<52_428_816) == Data(OtherTablesStore.largeRow(at: 52_428_800)))
        #expect(resetWorks, "/proc/self/clear_refs resets the peak")
        if resetWorks, let peak = ResidentMemory.value("VmHWM") {
            #expect(peak - before < 40 << 20, "the inspector raised the peak by \((peak - before) >> 20) MiB for a 100 MiB value")
        }
    }
}
