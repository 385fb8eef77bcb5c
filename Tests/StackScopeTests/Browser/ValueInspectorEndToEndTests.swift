import Foundation
import Testing

/// The value inspector with the real binary in tmux, on a store Apple's Core Data wrote.
extension BrowserEndToEndTests {
    /// A copy of Apple's Recipes store open in the browser, the inspector on the first thumbnail
    /// (a JPEG), in its picture mode.
    func recipesThumbnailInInspector(_ environment: [String: String] = [:]) throws -> (Tmux, SttySnapshot) {
        let dir = try TestSupport.temporaryDirectory()
        let store = dir.appendingPathComponent("Recipes.sqlite")
        try FileManager.default.copyItem(at: TestSupport.fixture("stores/apple-iPhoneCoreDataRecipes-2018/Recipes.sqlite"), to: store)
        let (tmux, before) = try shell(environment)
        do {
            try tmux.sendLine("\(binary) '\(store.path)'")
            try tmux.waitFor(text: "[read-only]", timeout: 30)
            try tmux.sendKeys(":")
            try tmux.sendText("entity Image")
            try tmux.sendKeys("Enter")
            try tmux.waitFor(text: "Image · 3 objects", timeout: 30)
            try tmux.waitFor(text: "JPEG 728×486", timeout: 30)
            try tmux.sendKeys("Enter")  // the row → the detail pane, on its first property (image)
            try tmux.sendKeys("Enter")
            try tmux.waitFor(text: ".image · picture", timeout: 30)
        } catch {
            tmux.kill()
            throw error
        }
        return (tmux, before)
    }

    @Test("Recipes' thumbnails: cells say JPEG and its size; Enter opens the inspector on the picture, Tab shows the tree, hex, JSON; Esc closes")
    func valueInspectorOnRecipes() throws {
        let (tmux, before) = try recipesThumbnailInInspector()
        defer { tmux.kill() }
        try tmux.sendKeys("Tab")
        let tree = try tmux.waitFor(text: ".image · tree", timeout: 30)
        #expect(tree.contains("15603 bytes · JPEG 728×486"))
        try tmux.sendKeys("Tab")
        try tmux.waitFor(text: "00000000  ff d8 ff e0 00 10 4a 46  49 46 00 01 01 00 00 48  |......JFIF.....H|", timeout: 30)
        try tmux.sendKeys("Tab")
        try tmux.waitFor(text: "\"format\": \"JPEG\"", timeout: 30)
        try tmux.sendKeys("Escape")
        let closed = try tmux.waitFor(text: "Image · 3 objects", timeout: 30)
        #expect(!closed.contains(".image · json"))
        try quitAndCheck(tmux, before)
    }

    @Test("a Recipes thumbnail as a picture in true colour (38;2 escapes, block symbols) inside the box; Tab repaints the screen without it")
    func pictureInTmux() throws {
        let (tmux, before) = try recipesThumbnailInInspector(["COLORTERM": "truecolor"])
        defer { tmux.kill() }
        try tmux.waitFor(text: "JPEG · 728 × 486 pixels · 15603 bytes", timeout: 30)
        // The picture's rows: 24-bit colours, inside the box (its left border on every row).
        var picture: [String] = []
        for _ in 0..<100 {
            picture = try tmux.capture(escapes: true).components(separatedBy: "\n").filter { $0.contains("38;2;") || $0.contains("48;2;") }
            if picture.count >= 10 { break }
            usleep(100_000)
        }
        #expect(picture.count >= 10, "\((try? tmux.capture(escapes: true)) ?? "")")
        let plain = try tmux.capture()
        #expect(plain.contains(".image · picture"))
        let rows = plain.components(separatedBy: "\n")
        let drawn = rows.filter { $0.contains("▀") || $0.contains("▄") || $0.contains("█") || $0.contains("▌") || $0.contains("▐") }
        #expect(!drawn.isEmpty, "no block symbols: \(plain)")
        #expect(drawn.allSatisfy { $0.hasPrefix("│") }, "\(drawn)")
        // Tab: the tree, and the picture gone from the screen (no 24-bit colour left).
        try tmux.sendKeys("Tab")
        try tmux.waitFor(text: ".image · tree", timeout: 30)
        var left: [String] = []
        for _ in 0..<50 {
            left = try tmux.capture(escapes: true).components(separatedBy: "\n").filter { $0.contains("38;2;") || $0.contains("48;2;") }
            if left.isEmpty { break }
            usleep(100_000)
        }
        #expect(left.isEmpty, "\(left)")
        try tmux.sendKeys("Escape")
        try tmux.waitFor(text: "Image · 3 objects", timeout: 30)
        try quitAndCheck(tmux, before)
    }
}
