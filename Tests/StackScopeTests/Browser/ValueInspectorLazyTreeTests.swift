import CoreStack
import Foundation
import Testing

@testable import StackScope

/// The inspector on a large keyed archive makes its tree and JSON only as far as they are shown
/// (the rest as the view scrolls), with the same lines in the end as the whole tree; and the
/// status bar's messages are seen over the full-screen inspector.
@Suite("value inspector: a large archive's tree made as it is shown", .serialized)
struct ValueInspectorLazyTreeTests {
    static func archive(_ n: Int) throws -> Data {
        try NSKeyedArchiver.archivedData(withRootObject: NSArray(array: (0..<n).map { "item \($0)" as NSString }), requiringSecureCoding: false)
    }

    /// A store with one Blob whose `data` is `value`, and the browser on it (Blob's table).
    static func harness(_ value: Data) throws -> BrowserHarness {
        let url = try TestSupport.temporaryDirectory().appendingPathComponent("Blobs.sqlite")
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Blob", attributes: [AttributeDescription("data", .binaryData)], relationships: [])
        ])
        do {
            let store = try SQLiteStore(url: url, model: model)
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(store)
            let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
            try context.performAndWait {
                let blob = try context.insertObject(forEntityName: "Blob")
                try blob.setAttributeValue(.data(value), forKey: "data")
                try context.save()
            }
            store.close()
        }
        let store = try SQLiteStore(url: url, model: model, readOnly: true)
        return try BrowserHarness(session: try BrowserSession.stack(over: store, url: url, readOnly: true), size: Size(width: 120, height: 30), open: "Blob")
    }

    @Test("20,000 strings: the first screen from 1,000 nodes (count not final), G makes them all; the lines are the whole tree's")
    func stateGrows() throws {
        let archive = try Self.archive(20_000)
        var v = ValueInspectorState(title: "Blob.data", data: archive)
        #expect(v.summary == "\(archive.count) bytes · archive NSArray · 20000 items")
        #expect(!v.lineCountIsFinal)
        #expect(v.lineCount < 20_001)
        #expect(v.lines(from: 0, count: 2) == ["NSArray · 20000 items", "  [0]: \"item 0\""])
        // Past the first bound: made on the way.
        #expect(v.lines(from: 5_000, count: 1) == ["  [4999]: \"item 4999\""])
        v.scroll(by: Int.max / 2, height: 10)
        #expect(v.lineCountIsFinal)
        #expect(v.lineCount == 20_001)
        #expect(v.offset == 20_001 - 10)
        let whole = Array(InspectedValueText.tree(ValueInspector.inspect(archive)).dropFirst())
        #expect(v.lines(from: 0, count: .max) == whole)
        // JSON: made when shown, the whole of it for y.
        v.mode = .json
        #expect(v.lines(from: 0, count: 2) == ["[", "  \"item 0\","])
        #expect(!v.lineCountIsFinal)
        #expect(v.json == InspectedValueText.json(ValueInspector.inspect(archive)).rendered())
        // A search goes past what was made.
        v.mode = .tree
        v.offset = 0
        #expect(v.find("item 19998") == 19_999)
    }

    @Test("in the browser: the scroll position says the count is not final (N+), G shows the last item and the whole count")
    func browserGrows() throws {
        let h = try Self.harness(try Self.archive(20_000))
        h.press("Enter")
        #expect(h.state.focus == .detail)
        let properties = h.state.detail.snapshot?.properties ?? []
        let index = try #require(properties.firstIndex { $0.name == "data" })
        for _ in 0..<index { h.press("j") }
        h.press("Enter")
        #expect(h.waitFor("data · tree"))
        #expect(h.screen.contains("archive NSArray · 20000 items"))
        #expect(h.screen.range(of: #"\(1–26 of [0-9]+\+\)"#, options: .regularExpression) != nil)
        h.press("G")
        #expect(h.waitFor("(19976–20001 of 20001)"))
        #expect(h.screen.contains("[19999]: \"item 19999\""))
    }

    @Test("a status message is seen over the full-screen inspector (y copies: its message shows in the inspector)")
    func statusOverInspector() throws {
        let h = try Self.harness(try Self.archive(50))
        h.press("Enter")
        let properties = h.state.detail.snapshot?.properties ?? []
        let index = try #require(properties.firstIndex { $0.name == "data" })
        for _ in 0..<index { h.press("j") }
        h.press("Enter")
        #expect(h.waitFor("data · tree"))
        h.press("y")
        #expect(h.waitUntil { $0.status.message?.hasPrefix("Copied the value as JSON") == true })
        #expect(h.screen.contains("Copied the value as JSON"), "\(h.screen)")
        #expect(h.screen.contains("Tab/m tree/hex/json"))
        // An error too: a search that finds nothing.
        h.press("/")
        h.type("no such item")
        h.press("Enter")
        #expect(h.waitFor("“no such item” not found"))
    }
}
