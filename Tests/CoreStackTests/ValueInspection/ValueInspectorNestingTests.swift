import Foundation
import Testing

@testable import CoreStack

/// Nesting just under the checks' bound reaches Foundation's parsers: they must cope on a test
/// thread's stack (smaller than the main thread's).
@Suite("value inspector: nesting under the bound")
struct ValueInspectorNestingTests {
    @Test("a binary plist, an XML plist and JSON nested 500 deep decode, the tree cut at 64 levels")
    func nearTheBound() {
        let depth = 500
        let binary = ValueInspector.inspect(ValueInspectorHostileTests.chain(depth, last: nil))
        #expect(binary.failure == nil, "\(binary.summary)")
        let xml = "<?xml version=\"1.0\"?><plist version=\"1.0\">" + String(repeating: "<array>", count: depth)
            + "<true/>" + String(repeating: "</array>", count: depth) + "</plist>"
        let x = ValueInspector.inspect(Data(xml.utf8))
        #expect(x.failure == nil, "\(x.summary)")
        #expect(x.summary == "XML plist array · 1")
        let json = ValueInspector.inspect(Data((String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)).utf8))
        #expect(json.format == .json || json.format == .text(encoding: "UTF-8"), "\(json.summary)")
        var node = x.value
        var levels = 0
        while case let .array(_, items)? = node, let first = items.first {
            levels += 1
            node = first
        }
        #expect(levels == 64)
        #expect(node == .elided("deeper than 64 levels"))
    }
}
