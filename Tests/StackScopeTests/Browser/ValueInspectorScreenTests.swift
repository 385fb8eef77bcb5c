import CoreStack
import Foundation
import Testing

@testable import StackScope

/// The full-screen value inspector: Enter on a binary value in the detail pane, modes, scrolling.
@Suite("value inspector screen")
struct ValueInspectorScreenTests {
    @Test("the inspector's state: tree and JSON lines of a keyed archive, hex lines made on demand, scrolling clamped")
    func state() throws {
        let archive = try NSKeyedArchiver.archivedData(
            withRootObject: NSArray(array: (0..<50).map { "item \($0)" }), requiringSecureCoding: false)
        var v = ValueInspectorState(title: "Note.body", data: archive)
        #expect(v.summary == "\(archive.count) bytes · archive NSArray · 50 items")
        #expect(v.mode == .tree)
        #expect(v.lines(from: 0, count: 2) == ["NSArray · 50 items", "  [0]: \"item 0\""])
        #expect(v.lineCount == 51)
        v.scroll(by: 1000, height: 10)
        #expect(v.offset == 41)
        v.nextMode()
        #expect(v.mode == .hex)
        #expect(v.offset == 0)
        #expect(v.lineCount == (archive.count + 15) / 16)
        #expect(v.lines(from: 0, count: 1).first?.hasPrefix("00000000  62 70 6c 69 73 74 30 30") == true)
        #expect(v.lines(from: 1, count: 1).first?.hasPrefix("00000010  ") == true)
        v.nextMode()
        #expect(v.mode == .json)
        #expect(v.lines(from: 0, count: 2) == ["[", "  \"item 0\","])
        v.nextMode()
        #expect(v.mode == .tree)
        #expect(v.offset == 41)
        // Search: forward with wrap-around in the tree, backward, in hex by bytes, not found.
        v.offset = 0
        #expect(v.find("ITEM 7") == 8)
        #expect(v.find("7") == 18)  // item 17
        #expect(v.find("7", forward: false) == 8)
        #expect(v.find("7", forward: false) == 48)  // wrapped round to item 47
        #expect(v.find("no such text") == nil)
        #expect(v.offset == 48)
        v.mode = .hex
        let at = try #require(archive.range(of: Data("item 42".utf8)))
        #expect(v.find("item 42") == (at.lowerBound - archive.startIndex) / 16)
        // An image with nothing in it: the picture mode says why, the tree has nothing.
        var empty = ValueInspectorState(title: "x", data: Data([0xFF, 0xD8, 0xFF, 0xD9]))
        #expect(empty.mode == .picture)
        #expect(empty.lines(from: 0, count: 5) == ["cannot decode JPEG: JPEG datastream contains no image", "Tab shows the bytes"])
        empty.nextMode()
        #expect(empty.lines(from: 0, count: 5) == ["(no tree inside: Tab shows the bytes)"])
        v.mode = .tree
    }

    @Test("Enter on a binary value in the detail pane opens it full screen; Tab switches to hex; Esc closes")
    func openAndClose() throws {
        let h = try BrowserHarness.demo()
        h.press("Enter")  // the table's row → the detail pane
        #expect(h.state.focus == .detail)
        // A book with a cover.
        var index: Int?
        for _ in 0..<20 {
            let properties = h.state.detail.snapshot?.properties ?? []
            if let i = properties.firstIndex(where: { $0.name == "cover" }), properties[i].value != "nil" {
                index = i
                break
            }
            h.press("Esc j Enter")
        }
        let cover = try #require(index, "no book with a cover in the first rows")
        let bytes = try #require(h.state.detail.snapshot?.properties[cover].value)
        for _ in 0..<cover { h.press("j") }
        #expect(h.state.detail.scroll.selection == cover)
        h.press("Enter")
        guard case let .valueInspector(v)? = h.state.modals.last else {
            Issue.record("no inspector: \(h.state.modals)")
            return
        }
        #expect(v.title.hasSuffix(".cover"))
        #expect(bytes.hasPrefix(v.summary) || v.summary.hasPrefix(String(bytes.prefix(8))), "\(bytes) / \(v.summary)")
        #expect(h.screen.contains("cover · tree"))
        #expect(h.screen.contains("Tab/m tree/hex/json"))
        // / searches the tree: the summary's first word is on the tree's first line, or not found.
        h.press("/")
        h.type("zzz-not-there")
        h.press("Enter")
        #expect(h.state.status.message == "“zzz-not-there” not found in the tree view", "\(h.state.status.message ?? "")")
        guard case .valueInspector? = h.state.modals.last else {
            Issue.record("the search closed the inspector: \(h.state.modals)")
            return
        }
        h.press("Tab")
        #expect(h.screen.contains("cover · hex"))
        #expect(h.screen.contains("00000000  "))
        h.press("y")
        #expect(h.state.status.message?.hasPrefix("Copied the value as JSON") == true, "\(h.state.status.message ?? "")")
        // :save-value writes the stored bytes; the inspector stays open.
        let file = try TestSupport.temporaryDirectory().appendingPathComponent("cover.bin")
        h.press(":")
        h.type("save-value \(file.path)")
        h.press("Enter")
        h.waitUntilIdle()
        #expect(try Data(contentsOf: file) == v.data)
        #expect(h.state.status.message == "Wrote cover's \(v.data.count) bytes to \(file.path)", "\(h.state.status.message ?? "")")
        guard case .valueInspector? = h.state.modals.last else {
            Issue.record("the inspector closed: \(h.state.modals)")
            return
        }
        h.press("Esc")
        #expect(h.state.modals.isEmpty)
        #expect(h.state.focus == .detail)
    }
}
