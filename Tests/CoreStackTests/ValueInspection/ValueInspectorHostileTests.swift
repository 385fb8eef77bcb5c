import Foundation
import Testing

@testable import CoreStack

/// Damaged and hostile values: each gives a clear "cannot decode: …" (or a bounded tree), never
/// a crash, a hang or unbounded memory.
@Suite("value inspector: hostile values")
struct ValueInspectorHostileTests {
    /// A keyed archive whose `$objects` are given.
    static func archive(_ objects: [BinaryPropertyList], root: Int = 1) -> Data {
        BinaryPropertyList.dictionary([
            ("$version", .integer(100000)),
            ("$archiver", .string("NSKeyedArchiver")),
            ("$top", .dictionary([("root", .uid(root))])),
            ("$objects", .array(objects)),
        ]).encoded()
    }

    static func arrayClass() -> BinaryPropertyList {
        .dictionary([("$classname", .string("NSArray")), ("$classes", .array([.string("NSArray"), .string("NSObject")]))])
    }

    /// A binary property list of `count` one-element arrays, each holding the next (the last
    /// holds `last`): built flat, so the test itself does not recurse.
    static func chain(_ count: Int, last: Int?) -> Data {
        var out = Data("bplist00".utf8)
        var offsets: [Int] = []
        for i in 0..<count {
            offsets.append(out.count)
            if i == count - 1, last == nil {
                out.append(0x08)  // false
            } else {
                let ref = i == count - 1 ? (last ?? 0) : i + 1
                out.append(0xA1)
                out.append(contentsOf: ImageHeaders.be32(ref))
            }
        }
        let table = out.count
        for o in offsets { out.append(contentsOf: ImageHeaders.be32(o)) }
        out.append(contentsOf: [0, 0, 0, 0, 0, 0, 4, 4])
        out.append(contentsOf: [0, 0, 0, 0] + ImageHeaders.be32(count))
        out.append(contentsOf: [0, 0, 0, 0, 0, 0, 0, 0])
        out.append(contentsOf: [0, 0, 0, 0] + ImageHeaders.be32(table))
        return out
    }

    @Test("every truncation of a real archive gives a failure naming the property list, or a decoded prefix")
    func truncatedArchive() throws {
        let full = try NSKeyedArchiver.archivedData(withRootObject: NSArray(array: ["a", 1, NSDictionary(dictionary: ["k": "v"])]), requiringSecureCoding: false)
        for length in 0..<full.count {
            let inspection = ValueInspector.inspect(full.prefix(length))
            if length >= 8 {
                #expect(inspection.failure != nil, "length \(length): \(inspection.summary)")
                #expect(inspection.summary.hasPrefix("cannot decode: property list"), "length \(length): \(inspection.summary)")
            }
        }
        #expect(ValueInspector.inspect(full).failure == nil)
    }

    @Test("a reference out of range names the object and the key")
    func referenceOutOfRange() {
        let data = Self.archive([.string("$null"), .dictionary([("$class", .uid(2)), ("NS.objects", .array([.uid(99)]))]), Self.arrayClass()])
        let inspection = ValueInspector.inspect(data)
        #expect(inspection.format == .keyedArchive)
        #expect(inspection.summary == "cannot decode: keyed archive, $objects[1].NS.objects[0]: refers to object 99 of 3")
    }

    @Test("a missing class and a root out of range are named")
    func missingClass() {
        let noClass = ValueInspector.inspect(Self.archive([.string("$null"), .dictionary([("NS.objects", .array([]))])]))
        #expect(noClass.summary == "cannot decode: keyed archive, $objects[1].$class: missing or not a reference")
        let badRoot = ValueInspector.inspect(Self.archive([.string("$null")], root: 7))
        #expect(badRoot.summary == "cannot decode: keyed archive, $top.root: refers to object 7 of 1")
    }

    @Test("an archived array that holds itself, and two that hold each other, end in references")
    func archiveCycles() {
        let itself = ValueInspector.inspect(Self.archive([.string("$null"), .dictionary([("$class", .uid(2)), ("NS.objects", .array([.uid(1)]))]), Self.arrayClass()]))
        #expect(itself.value == .array(className: "NSArray", items: [.reference(index: 1, className: "NSArray")]))
        let pair = ValueInspector.inspect(Self.archive([
            .string("$null"),
            .dictionary([("$class", .uid(3)), ("NS.objects", .array([.uid(2)]))]),
            .dictionary([("$class", .uid(3)), ("NS.objects", .array([.uid(1)]))]),
            Self.arrayClass(),
        ]))
        #expect(pair.value == .array(className: "NSArray", items: [.array(className: "NSArray", items: [.reference(index: 1, className: "NSArray")])]))
    }

    @Test("archived arrays nested 5000 deep stop at the depth limit")
    func deepArchive() {
        var objects: [BinaryPropertyList] = [.string("$null"), Self.arrayClass()]
        let n = 5000
        for i in 0..<n {
            let next: [BinaryPropertyList] = i == n - 1 ? [] : [.uid(i + 3)]
            objects.append(.dictionary([("$class", .uid(1)), ("NS.objects", .array(next))]))
        }
        let inspection = ValueInspector.inspect(Self.archive(objects, root: 2))
        #expect(inspection.failure == nil)
        var depth = 0
        var node = inspection.value
        while case let .array(_, items)? = node, let first = items.first {
            depth += 1
            node = first
        }
        #expect(depth == 64)
        #expect(node == .elided("deeper than 64 levels"))
    }

    @Test("an archive whose objects share each other exponentially is cut by the node limit, quickly")
    func exponentialSharing() {
        // Object k holds object k+1 twice: 2^40 paths. Shared objects show once, so this is small,
        // but dictionaries whose keys are the same string repeat their values: bounded by maximumNodes.
        var objects: [BinaryPropertyList] = [.string("$null"), Self.arrayClass()]
        let n = 40
        for i in 0..<n {
            let next: [BinaryPropertyList] = i == n - 1 ? [.string("leaf")] : [.uid(i + 3), .uid(i + 3)]
            objects.append(.dictionary([("$class", .uid(1)), ("NS.objects", .array(next))]))
        }
        let clock = ContinuousClock()
        let started = clock.now
        let inspection = ValueInspector.inspect(Self.archive(objects, root: 2))
        #expect(clock.now - started < .seconds(5))
        #expect(inspection.failure == nil)
    }

    @Test("plain property lists: a reference cycle, nesting 100 000 deep, lying counts and offsets")
    func hostilePropertyLists() {
        let cycle = ValueInspector.inspect(Self.chain(3, last: 0))
        #expect(cycle.summary.hasPrefix("cannot decode: property list, object 0: a reference cycle"), "\(cycle.summary)")
        let deep = ValueInspector.inspect(Self.chain(100_000, last: nil))
        #expect(deep.summary.hasPrefix("cannot decode: property list"), "\(deep.summary)")
        #expect(deep.summary.contains("nested deeper than 512 levels"), "\(deep.summary)")
        let fine = ValueInspector.inspect(Self.chain(100, last: nil))
        #expect(fine.failure == nil)

        // An array declaring 2^31 elements.
        var lying = Self.chain(2, last: nil)
        lying.replaceSubrange(8..<13, with: [0xAF, 0x12, 0x7F, 0xFF])
        let counted = ValueInspector.inspect(lying)
        #expect(counted.failure != nil, "\(counted.summary)")
        // An offset table pointing past the end, and an object count larger than the file.
        var offsets = Self.chain(2, last: nil)
        offsets.replaceSubrange((offsets.count - 8)..<offsets.count, with: [0, 0, 0, 0, 0x7F, 0, 0, 0])
        #expect(ValueInspector.inspect(offsets).summary.hasPrefix("cannot decode: property list, offset table"))
        var count = Self.chain(2, last: nil)
        count.replaceSubrange((count.count - 32 + 8)..<(count.count - 32 + 16), with: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(ValueInspector.inspect(count).summary.hasPrefix("cannot decode: property list, trailer"))
    }

    @Test("an XML property list and JSON nested 100 000 deep do not crash")
    func deepText() {
        let xml = "<?xml version=\"1.0\"?><plist version=\"1.0\">" + String(repeating: "<array>", count: 100_000)
        let inspection = ValueInspector.inspect(Data(xml.utf8))
        #expect(inspection.summary.contains("nested deeper than 512 levels"), "\(inspection.summary)")
        let json = ValueInspector.inspect(Data((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8))
        #expect(json.failure == nil || json.summary.hasPrefix("cannot decode"))
    }

    @Test("a PNG declaring 4 294 967 295 × 4 294 967 295 pixels is only described")
    func hugeImage() {
        let png = ImageHeaders.png(width: 0xFFFF_FFFF, height: 0xFFFF_FFFF)
        #expect(ValueInspector.inspect(png).summary == "PNG 4294967295×4294967295")
        #expect(ValueInspector.inspect(png.prefix(20)).summary == "PNG")
        #expect(ValueInspector.inspect(ImageHeaders.heic(width: 0xFFFF_FFFF, height: 0xFFFF_FFFF)).summary == "HEIC 4294967295×4294967295")
        var jpeg = ImageHeaders.jpeg(width: 1, height: 1)
        jpeg.replaceSubrange(4..<6, with: [0xFF, 0xFF])  // APP0 length lies
        #expect(ValueInspector.inspect(jpeg).summary == "JPEG")
    }

    @Test("a zlib bomb stops at the inflate limit; truncated gzip is named")
    func compressionBombs() throws {
        var limits = ValueInspectionLimits()
        limits.maximumInflatedSize = 1 << 20
        let bomb = try RawDeflate.deflate(Data(count: 8 << 20), windowBits: 15)
        let inspection = ValueInspector.inspect(bomb, limits: limits)
        #expect(inspection.summary == "cannot decode: zlib data, deflate stream: it inflates to more than 1048576 bytes")
        let gzip = try RawDeflate.deflate(Data("some text that is long enough".utf8), windowBits: 31)
        let truncated = ValueInspector.inspect(gzip.prefix(gzip.count / 2))
        #expect(truncated.summary.hasPrefix("cannot decode: gzip data"), "\(truncated.summary)")
    }

    @Test("10 000 mutations of real values never crash")
    func mutations() throws {
        let seeds: [Data] = [
            try NSKeyedArchiver.archivedData(
                withRootObject: NSArray(array: ["a", 1, NSDictionary(dictionary: ["k": NSDate()]), NSValue(range: NSRange(location: 1, length: 2))]),
                requiringSecureCoding: false),
            try PropertyListSerialization.data(fromPropertyList: ["a": [1, 2, ["b": Data([1, 2])]]], format: .binary, options: 0),
            try RawDeflate.deflate(Data("[1, 2, 3]".utf8), windowBits: 15),
            ImageHeaders.jpeg(width: 10, height: 10), ImageHeaders.tiff(width: 1, height: 1, littleEndian: true),
            ImageHeaders.webpLossless(width: 3, height: 3), ImageHeaders.heic(width: 2, height: 2),
        ]
        var state: UInt64 = 31
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var decoded = 0
        for i in 0..<10_000 {
            var data = seeds[i % seeds.count]
            for _ in 0..<(1 + Int(next() % 4)) {
                let at = Int(next() % UInt64(data.count))
                data[data.startIndex + at] = UInt8(truncatingIfNeeded: next())
            }
            if next() % 5 == 0 { data = data.prefix(Int(next() % UInt64(data.count))) }
            let inspection = ValueInspector.inspect(data)
            _ = inspection.summary
            if inspection.failure == nil { decoded += 1 }
        }
        #expect(decoded > 0)
    }
}
