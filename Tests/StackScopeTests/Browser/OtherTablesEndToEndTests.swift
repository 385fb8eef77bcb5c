import Foundation
import Testing

/// "Other tables" with the real binary in tmux, on a store with tables no model explains.
extension BrowserEndToEndTests {
    @Test("Other tables: listed in the entities pane with their counts; Enter shows NOTES' rows; s sorts, f filters, Enter inspects a cell")
    func otherTablesInTmux() throws {
        let store = try OtherTablesStore.make()
        let (tmux, before) = try shell()
        defer { tmux.kill() }
        try tmux.sendLine("\(binary) '\(store.path)'")
        try tmux.waitFor(text: "[read-only]", timeout: 30)
        let listed = try tmux.waitFor(text: "Other tables", timeout: 30)
        #expect(listed.contains("not understood: 2 tables outside the model (NOTES, TAGS)"))
        try tmux.sendKeys("BTab")
        try tmux.sendKeys("j")
        try tmux.sendKeys("j")
        let pane = try tmux.waitFor(text: "NOTES", timeout: 30)
        #expect(pane.split(separator: "\n").contains { $0.contains("NOTES") && $0.contains("4") })
        try tmux.sendKeys("Enter")
        try tmux.waitFor(text: "NOTES · other table · 4 rows", timeout: 30)
        try tmux.sendKeys("l")
        try tmux.sendKeys("s")
        let sorted = try tmux.waitFor(text: "TITLE↑", timeout: 30)
        let titles = sorted.split(separator: "\n").compactMap { line in ["apple", "banana", "kiwi draft", "mango draft"].first { line.contains($0) } }
        #expect(titles == ["apple", "banana", "kiwi draft", "mango draft"])
        try tmux.sendKeys("f")
        try tmux.sendText("draft")
        try tmux.sendKeys("Enter")
        try tmux.waitFor(text: "NOTES · other table · 2 rows · filter: draft", timeout: 30)
        try tmux.sendKeys("l")
        try tmux.sendKeys("Enter")
        let tree = try tmux.waitFor(text: "NOTES.BODY · row 3 · tree", timeout: 30)
        #expect(tree.contains("4 bytes · 00 01 02 03"))
        try tmux.sendKeys("Escape")
        try tmux.sendKeys("Escape")
        try tmux.waitFor(text: "Photo · 3 objects", timeout: 30)
        try quitAndCheck(tmux, before)
    }
}
