import Foundation
import Testing

@testable import CoreStack

/// Keyed archives written by Foundation's own `NSKeyedArchiver`, decoded into a tree without
/// instantiating any class.
@Suite("value inspector: keyed archives")
struct ValueInspectorArchiveTests {
    static func archived(_ object: Any) throws -> Data {
        try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false)
    }

    static func fields(_ value: InspectedValue?) -> [String: InspectedValue] {
        guard case let .object(o)? = value else { return [:] }
        return Dictionary(o.fields.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
    }

    @Test("an array of a string, numbers and a boolean: its class, its items, the summary")
    func array() throws {
        let data = try Self.archived(NSArray(array: ["two", 1, 3.5, true]))
        let inspection = ValueInspector.inspect(data)
        #expect(inspection.format == .keyedArchive)
        #expect(inspection.failure == nil)
        guard case let .array(className, items)? = inspection.value else {
            Issue.record("not an array: \(String(describing: inspection.value))")
            return
        }
        #expect(className == "NSArray")
        #expect(items.count == 4)
        #expect(items.first == .string("two"))
        #expect(items[1] == .integer(1))
        #expect(items[2] == .real(3.5))
        #expect(items[3] == .bool(true) || items[3] == .integer(1))
        #expect(inspection.summary == "archive NSArray · 4 items")
    }

    @Test("dictionaries, sets and ordered sets keep their class and their elements")
    func collections() throws {
        let dict = ValueInspector.inspect(try Self.archived(NSDictionary(dictionary: ["name": "Ada", "year": 1815])))
        #expect(dict.summary == "archive NSDictionary · 2 keys")
        guard case let .dictionary(_, entries)? = dict.value else {
            Issue.record("not a dictionary")
            return
        }
        let byKey = Dictionary(entries.compactMap { e -> (String, InspectedValue)? in
            if case let .string(k) = e.key { return (k, e.value) }
            return nil
        }, uniquingKeysWith: { a, _ in a })
        #expect(byKey["name"] == .string("Ada"))
        #expect(byKey["year"] == .integer(1815))

        let set = ValueInspector.inspect(try Self.archived(NSSet(array: ["a", "b", "c"])))
        #expect(set.summary == "archive NSSet · 3 items")
        let ordered = ValueInspector.inspect(try Self.archived(NSOrderedSet(array: ["x", "y"])))
        guard case let .array(className, items)? = ordered.value else {
            Issue.record("not an ordered set: \(ordered.summary)")
            return
        }
        #expect(className == "NSOrderedSet")
        #expect(items == [.string("x"), .string("y")])
    }

    @Test("strings, dates, data, URLs, UUIDs and null as values of their own")
    func scalars() throws {
        #expect(ValueInspector.inspect(try Self.archived(NSString(string: "hello"))).value == .string("hello"))
        #expect(ValueInspector.inspect(try Self.archived(NSString(string: "hello"))).summary == "archive NSString · \"hello\"")
        let date = ValueInspector.inspect(try Self.archived(NSDate(timeIntervalSinceReferenceDate: 0.5)))
        #expect(date.value == .date(Date(timeIntervalSinceReferenceDate: 0.5)))
        #expect(date.summary == "archive NSDate · 2001-01-01T00:00:00.500Z")
        let bytes = Data([1, 2, 3])
        #expect(ValueInspector.inspect(try Self.archived(NSData(data: bytes))).value == .data(bytes))
        let url = try #require(URL(string: "https://example.com/a/b?c=1"))
        #expect(ValueInspector.inspect(try Self.archived(url as NSURL)).value == .url("https://example.com/a/b?c=1"))
        let uuid = UUID()
        #expect(ValueInspector.inspect(try Self.archived(NSUUID(uuidString: uuid.uuidString) as Any)).value == .uuid(uuid))
        let withNull = ValueInspector.inspect(try Self.archived(NSArray(array: [NSNull()])))
        #expect(withNull.value == .array(className: "NSArray", items: [.null]))
    }

    @Test("NSValue ranges and points, locales, time zones and index sets say what they are")
    func foundationValues() throws {
        let range = ValueInspector.inspect(try Self.archived(NSValue(range: NSRange(location: 2, length: 3))))
        guard case let .object(o)? = range.value else {
            Issue.record("range: \(range.summary)")
            return
        }
        #expect(o.className == "NSValue")
        #expect(o.description == "range {2, 3}")
        #expect(Self.fields(range.value)["length"] == .integer(3))
        #expect(range.summary == "archive NSValue · range {2, 3}")

        let point = ValueInspector.inspect(try Self.archived(NSValue(point: NSPoint(x: 1, y: 2))))
        guard case let .object(p)? = point.value else {
            Issue.record("point: \(point.summary)")
            return
        }
        #expect(p.description?.hasPrefix("point {1") == true, "\(p)")

        let locale = ValueInspector.inspect(try Self.archived(NSLocale(localeIdentifier: "fr_CH")))
        #expect(locale.summary == "archive NSLocale · locale fr_CH", "\(locale)")
        let zone = ValueInspector.inspect(try Self.archived(try #require(NSTimeZone(name: "Europe/Zurich"))))
        #expect(zone.summary.hasSuffix("time zone Europe/Zurich"), "\(zone.summary)")

        var indexes = IndexSet(integersIn: 1...3)
        indexes.insert(7)
        let set = ValueInspector.inspect(try Self.archived(indexes as NSIndexSet))
        guard case let .object(s)? = set.value else {
            Issue.record("index set: \(set.summary)")
            return
        }
        #expect(s.description == "4 indexes: 1–3, 7")
    }

    @Test("an attributed string: its text and its attribute runs")
    func attributedString() throws {
        let text = NSMutableAttributedString(string: "Hello world")
        text.addAttribute(NSAttributedString.Key("bold"), value: NSNumber(value: true), range: NSRange(location: 0, length: 5))
        let inspection = ValueInspector.inspect(try Self.archived(text))
        #expect(inspection.failure == nil, "\(inspection.summary)")
        let f = Self.fields(inspection.value)
        #expect(f["text"] == .string("Hello world"))
        guard case let .array(_, runs)? = f["runs"] else {
            Issue.record("no runs: \(inspection)")
            return
        }
        #expect(runs.count == 2)
        let first = Self.fields(runs.first)
        #expect(first["range"] == .string("{0, 5}"))
        #expect(first["bold"] != nil)
        #expect(Self.fields(runs.last)["range"] == .string("{5, 6}"))
    }

    @Test("colours from AppKit and UIKit archives: model and components")
    func colours() throws {
        func colour(_ className: String, _ fields: [(String, BinaryPropertyList)]) -> Data {
            BinaryPropertyList.dictionary([
                ("$version", .integer(100000)),
                ("$archiver", .string("NSKeyedArchiver")),
                ("$top", .dictionary([("root", .uid(1))])),
                ("$objects", .array([
                    .string("$null"),
                    .dictionary([("$class", .uid(2))] + fields),
                    .dictionary([("$classname", .string(className)), ("$classes", .array([.string(className), .string("NSObject")]))]),
                ])),
            ]).encoded()
        }
        let ns = ValueInspector.inspect(colour("NSColor", [("NSColorSpace", .integer(1)), ("NSRGB", .data(Data("1 0 0.5\0".utf8)))]))
        #expect(ns.summary == "archive NSColor · rgba 1 0 0.5 1", "\(ns.summary)")
        #expect(Self.fields(ns.value)["blue"] == .real(0.5))
        let ui = ValueInspector.inspect(colour("UIColor", [("UIRed", .real(0)), ("UIGreen", .real(1)), ("UIBlue", .real(0)), ("UIAlpha", .real(0.25))]))
        #expect(ui.summary == "archive UIColor · rgba 0 1 0 0.25", "\(ui.summary)")
    }

    @Test("an app's class archived on iOS: its class chain and its fields")
    func appClass() throws {
        let data = try #require(Data(base64Encoded: ArchivedValueSummaryTests.cover))
        let inspection = ValueInspector.inspect(data)
        guard case let .object(o)? = inspection.value else {
            Issue.record("\(inspection)")
            return
        }
        #expect(o.className == "CoreDataPlus_Tests.Cover")
        #expect(o.classChain == ["CoreDataPlus_Tests.Cover", "NSObject"])
        #expect(o.fields == [InspectedField(name: "text", value: .string("default cover"))])
        #expect(inspection.summary == "archive CoreDataPlus_Tests.Cover · text: \"default cover\"")
    }

    @Test("a shared object is shown once, then by reference; an array that holds itself ends")
    func sharingAndCycles() throws {
        let shared = NSMutableDictionary(dictionary: ["k": "v"])
        let inspection = ValueInspector.inspect(try Self.archived(NSArray(array: [shared, shared])))
        guard case let .array(_, items)? = inspection.value, items.count == 2 else {
            Issue.record("\(inspection)")
            return
        }
        guard case .dictionary = items[0], case let .reference(_, className) = items[1] else {
            Issue.record("expected a dictionary then a reference: \(items)")
            return
        }
        #expect(className.hasSuffix("Dictionary"))

        // Two objects of an app's class that point at each other.
        let first = Ring(name: "first")
        let second = Ring(name: "second")
        first.next = second
        second.next = first
        let cyclic = ValueInspector.inspect(try Self.archived(first))
        #expect(cyclic.failure == nil)
        guard case let .object(a)? = cyclic.value else {
            Issue.record("\(cyclic)")
            return
        }
        #expect(a.className.hasSuffix("Ring"))
        #expect(a.classChain.last == "NSObject")
        let fields = Dictionary(a.fields.map { ($0.name, $0.value) }, uniquingKeysWith: { x, _ in x })
        #expect(fields["name"] == .string("first"))
        guard case let .object(b)? = fields["next"] else {
            Issue.record("next: \(a.fields)")
            return
        }
        #expect(b.fields.contains(InspectedField(name: "next", value: .reference(index: a.index, className: a.className))), "\(b.fields)")
    }
}
