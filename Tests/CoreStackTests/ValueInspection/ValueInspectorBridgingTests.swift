import Foundation
import Testing

@testable import CoreStack

/// Binary property lists that Foundation parses but swift-corelibs-foundation crashes bridging
/// to Swift (found by `corestack-fuzz values`): refused before Foundation sees them.
@Suite("value inspector: what Foundation cannot bridge")
struct ValueInspectorBridgingTests {
    /// A `bplist00` of the objects' bytes (reference and offset size 1), the first the top.
    static func plist(_ objects: [[UInt8]]) -> Data {
        var out = Data("bplist00".utf8)
        var offsets: [UInt8] = []
        for o in objects {
            offsets.append(UInt8(out.count))
            out.append(contentsOf: o)
        }
        let table = out.count
        out.append(contentsOf: offsets)
        out.append(contentsOf: [0, 0, 0, 0, 0, 0, 1, 1])
        out.append(contentsOf: [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count)])
        out.append(contentsOf: [0, 0, 0, 0, 0, 0, 0, 0])
        out.append(contentsOf: [0, 0, 0, 0, 0, 0, 0, UInt8(table)])
        return out
    }

    @Test("the bytes are a valid plist for the checks' reader: an array of two strings decodes")
    func control() {
        let data = Self.plist([[0xA2, 1, 2], [0x51, 0x61], [0x51, 0x62]])
        #expect(ValueInspector.inspect(data).value == .array(className: nil, items: [.string("a"), .string("b")]))
    }

    @Test("a set of two arrays, and a dictionary whose key is an array, are refused with what and where")
    func refused() {
        let set = ValueInspector.inspect(Self.plist([[0xC2, 1, 2], [0xA0], [0xA1, 1]]))
        #expect(set.summary == "cannot decode: property list, object 0: a set, which property lists do not hold")
        let key = ValueInspector.inspect(Self.plist([[0xD1, 1, 2], [0xA0], [0x10, 5]]))
        #expect(key.summary == "cannot decode: property list, object 0: a dictionary key (object 1) that is not a string")
    }
}
