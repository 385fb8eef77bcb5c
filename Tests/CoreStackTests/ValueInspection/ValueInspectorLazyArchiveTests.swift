import Foundation
import Testing

@testable import CoreStack

/// A keyed archive in a binary property list is decoded an object at a time, as far as the node
/// bound reaches: counts come from the archive, not from what was decoded.
@Suite("value inspector: large archives decoded lazily")
struct ValueInspectorLazyArchiveTests {
    static func strings(_ n: Int) throws -> Data {
        try NSKeyedArchiver.archivedData(withRootObject: NSArray(array: (0..<n).map { "item \($0)" as NSString }), requiringSecureCoding: false)
    }

    @Test("a bound of 100 nodes on 20,000 strings: about 100 of the 20,002 objects decoded; the tree counts all 20,000")
    func decodesOnlyWhatIsShown() throws {
        let archive = try Self.strings(20_000)
        var limits = ValueInspectionLimits()
        limits.maximumNodes = 100
        let reader = try BinaryPropertyListReader(archive)
        var tree = try #require(try KeyedArchiveTree(reader: reader, limits: limits))
        let root = try tree.root()
        #expect(tree.objects.count > 20_000)
        #expect(tree.objects.decodedCount <= 105, "\(tree.objects.decodedCount) objects decoded")
        guard case let .array(className, items) = root else {
            Issue.record("not an array: \(root)")
            return
        }
        #expect(className == "NSArray")
        #expect(items.count == 100)
        #expect(items.last == .truncated(remaining: 19_901, limit: 100))
        #expect(root.declaredCount == 20_000)
        #expect(items[98] == .string("item 98"))

        let inspection = ValueInspector.inspect(archive, limits: limits)
        #expect(inspection.summary == "archive NSArray · 20000 items")
        #expect(inspection.value == root)
    }

    @Test("the reader gives what Foundation's parser gives, for every kind of value an archive holds")
    func sameAsFoundation() throws {
        let object: NSDictionary = [
            "text": "héllo ✓", "int": 42, "negative": -7, "big": Int64.max, "real": 2.5, "yes": true,
            "date": Date(timeIntervalSinceReferenceDate: 12345.5), "data": Data([1, 2, 3]),
            "list": NSArray(array: [1, "two", NSNull()]), "set": NSSet(array: [3]),
        ]
        let archive = try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false)
        // Through the reader (the default), and through Foundation's parser (the table it hands back).
        let lazy = ValueInspector.inspect(archive)
        let top = try PropertyListSerialization.propertyList(from: archive, options: [], format: nil)
        var parsed = try KeyedArchiveTree(top: top, limits: ValueInspectionLimits())
        #expect(lazy.failure == nil)
        #expect(lazy.value == (try parsed.root()))
        #expect(lazy.summary == "archive NSDictionary · 10 keys")
    }

    @Test("a property list's count past the bound: the summary and the truncated node say how many")
    func plainCounts() throws {
        let json = try JSONSerialization.data(withJSONObject: Array(0..<500))
        var limits = ValueInspectionLimits()
        limits.maximumNodes = 10
        let inspection = ValueInspector.inspect(json, limits: limits)
        #expect(inspection.summary == "JSON array · 500")
        #expect(inspection.value?.declaredCount == 500)
    }

    @Test("a damaged object in a large archive is an error where the tree reaches it, naming the object")
    func damagedObject() throws {
        var archive = try Self.strings(300)
        // "item 5" is written as an ASCII string object (marker 0x56): make its marker unknown.
        let at = try #require(archive.range(of: Data([0x56]) + Data("item 5".utf8)))
        archive[at.lowerBound] = 0x76
        let inspection = ValueInspector.inspect(archive)
        #expect(inspection.format == .keyedArchive)
        #expect(inspection.summary.hasPrefix("cannot decode: property list, object "), "\(inspection.summary)")
        #expect(inspection.summary.hasSuffix("an unknown marker 0x76"), "\(inspection.summary)")
    }
}
