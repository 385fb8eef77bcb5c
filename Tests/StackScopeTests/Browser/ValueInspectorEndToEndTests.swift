import Foundation
import Testing

/// The value inspector with the real binary in tmux, on a store Apple's Core Data wrote.
extension BrowserEndToEndTests {
    @Test("Recipes' thumbnails: cells say JPEG and its size; Enter opens the inspector, Tab shows hex then JSON, Esc closes")
    func valueInspectorOnRecipes() throws {
        let dir = try TestSupport.temporaryDirectory()
        let store = dir.appendingPathComponent("Recipes.sqlite")
        try FileManager.default.copyItem(at: TestSupport.fixture("stores/apple-iPhoneCoreDataRecipes-2018/Recipes.sqlite"), to: store)
        let (tmux, before) = try shell()
        defer { tmux.kill() }
        try tmux.sendLine("\(binary) '\(store.path)'")
        try tmux.waitFor(text: "[read-only]", timeout: 30)
        try tmux.sendKeys(":")
        try tmux.sendText("entity Image")
        try tmux.sendKeys("Enter")
        try tmux.waitFor(text: "Image · 3 objects", timeout: 30)
        try tmux.waitFor(text: "JPEG 728×486", timeout: 30)
        try tmux.sendKeys("Enter")  // the row → the detail pane, on its first property (image)
        try tmux.sendKeys("Enter")
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
}
