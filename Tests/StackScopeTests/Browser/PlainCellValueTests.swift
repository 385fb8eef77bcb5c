import CoreStack
import Foundation
import Testing

@testable import StackScope

/// Cells of tables under "Other tables": `:save-value FILE` on a cell (selected in the table or
/// in the inspector), and the cells of tables without `rowid` (WITHOUT ROWID, virtual) read with
/// a plain SELECT a range at a time.
@Suite("other tables: saving and reading cells", .serialized)
struct PlainCellValueTests {
    /// OtherTablesStore's store, with KV (WITHOUT ROWID, a JSON blob and 5,000 bytes of 0xAB) and DOCS (FTS5).
    static func store() throws -> URL {
        let url = try OtherTablesStore.make()
        try OtherTablesStore.sqlite(url, """
            CREATE TABLE KV (K TEXT PRIMARY KEY, V BLOB) WITHOUT ROWID;
            INSERT INTO KV VALUES ('a', X'7B2261223A317D'), ('b', randomblob(0)), ('c', X'\(String(repeating: "AB", count: 5000))');
            CREATE VIRTUAL TABLE DOCS USING fts5(body);
            INSERT INTO DOCS VALUES ('hello from a virtual table');
            """)
        return url
    }

    @Test(":save-value FILE on a cell selected in a plain table, and in the inspector opened on it, writes its bytes")
    func saveCell() throws {
        let h = try OtherTablesBrowserTests.harness(try Self.store())
        try OtherTablesBrowserTests.openOtherTable(h, "NOTES")
        #expect(h.waitFor("NOTES · other table · 4 rows"))
        // Row 3's BODY (00 01 02 03).
        h.press("l l j j")
        let fromTable = try TestSupport.temporaryDirectory().appendingPathComponent("cell.bin")
        h.press(":")
        h.type("save-value \(fromTable.path)")
        h.press("Enter")
        #expect(h.waitUntil { $0.status.message == "Wrote NOTES.BODY · row 3's 4 bytes to \(fromTable.path)" }, "\(h.state.status)")
        #expect(try Data(contentsOf: fromTable) == Data([0, 1, 2, 3]))
        #expect(OtherTablesBrowserTests.plainTable(h) != nil)
        h.press("Enter")
        #expect(h.waitFor("NOTES.BODY · row 3 · tree"))
        let fromInspector = try TestSupport.temporaryDirectory().appendingPathComponent("inspected.bin")
        h.press(":")
        h.type("save-value \(fromInspector.path)")
        h.press("Enter")
        #expect(h.waitUntil { $0.status.message == "Wrote NOTES.BODY · row 3's 4 bytes to \(fromInspector.path)" }, "\(h.state.status)")
        #expect(try Data(contentsOf: fromInspector) == Data([0, 1, 2, 3]))
        #expect(h.screen.contains("Wrote NOTES.BODY · row 3's 4 bytes"))
    }

    @Test("a WITHOUT ROWID table's cells open in the inspector, read with SELECT: decoded, hex, saved")
    func withoutRowID() throws {
        let h = try OtherTablesBrowserTests.harness(try Self.store())
        try OtherTablesBrowserTests.openOtherTable(h, "KV")
        #expect(h.waitFor("KV · other table · 3 rows"))
        h.press("l Enter")
        #expect(h.waitFor("KV.V · row 1 of the view · tree"))
        #expect(h.screen.contains("7 bytes · JSON object · 1 key · read with SELECT (the table has no rowid for blob I/O)"))
        h.press("Tab")
        #expect(h.waitFor("00000000  7b 22 61 22 3a 31 7d"))
        h.press("Esc j j Enter")
        #expect(h.waitFor("KV.V · row 3 of the view · tree"))
        let inspector = try #require(OtherTablesBrowserTests.inspector(h))
        #expect(inspector.bytes.count == 5000)
        h.press("Tab G")
        #expect(h.waitFor("00001380  ab ab ab ab ab ab ab ab"))
        let saved = try TestSupport.temporaryDirectory().appendingPathComponent("kv.bin")
        h.press(":")
        h.type("save-value \(saved.path)")
        h.press("Enter")
        #expect(h.waitUntil { $0.status.message?.hasPrefix("Wrote KV.V · row 3 of the view's 5000 bytes") == true }, "\(h.state.status)")
        #expect(try Data(contentsOf: saved) == Data(repeating: 0xAB, count: 5000))
    }

    @Test("a virtual table's cell: read with SELECT by its position, a range at a time")
    func virtualTable() throws {
        let url = try Self.store()
        let store = try SQLiteStore(url: url, model: try OtherTablesStore.model(), readOnly: true)
        defer { store.close() }
        let table = try store.plainTable(named: "DOCS")
        #expect(!table.hasRowID)
        let bytes = try #require(try table.cellBytes(column: "body", at: 0))
        #expect(bytes.count == 26)
        #expect(try bytes.bytes(in: 0..<5) == Data("hello".utf8))
        #expect(try bytes.bytes(in: 21..<100) == Data("table".utf8))
        #expect(try table.value(column: "body", at: 0, bytes: 6..<10)?.bytes == Data("from".utf8))
        #expect(throws: CoreStackError.self) { try table.cellBytes(column: "body", at: 1) }
        let inspector = try ValueInspectorState(title: "DOCS.body", bytes: bytes)
        #expect(inspector.summary == "26 bytes · text · 26 chars · \"hello from a virtual table\"")
    }
}
