import Foundation
import TestSupportKit
import Testing

@testable import CoreStack

/// Predicates far larger than hand-written ones, against a real SQLite store file: `IN` with
/// 100,000 values of every storage class, and chains of 5,000 comparisons. SQLite refuses one
/// `?` per value past its variable limit and expression trees past 1,000 deep ("Expression
/// tree is too large"); the compiler binds long lists as JSON and balances long chains.
@Suite("Predicates: 100,000-value IN lists and 5,000-term chains on a SQLite store")
struct PredicateLimitsTests {
    struct Item: Sendable {
        let number: Int
        let name: String
        let score: Double
        let stamp: Date
        let tag: UUID
    }

    static let count = 3_000

    static let items: [Item] = (0..<count).map { i in
        Item(
            number: i * 3, name: "item \(i)", score: Double(i) / 7,
            stamp: Date(timeIntervalSinceReferenceDate: Double(i) * 1_234.567_89),
            tag: uuid(i))
    }

    static func uuid(_ i: Int) -> UUID {
        let hex = String(i, radix: 16)
        return UUID(uuidString: "6A1F0C2E-0000-4000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex) ?? UUID()
    }

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionName: "Limits") {
            EntityDescription("Item") {
                AttributeDescription("number", .integer64, isOptional: false, defaultValue: 0)
                AttributeDescription("name", .string, isOptional: false)
                AttributeDescription("score", .double)
                AttributeDescription("stamp", .date)
                AttributeDescription("tag", .uuid)
            }
        }
    }

    /// A SQLite store file holding ``items``, opened again from the file by a fresh stack.
    static func store() throws -> (TestStack, URL) {
        let url = try TemporaryRoot.folder("limits").appendingPathComponent("Limits.sqlite")
        let model = try model()
        do {
            let writer = try TestStack(model: model) { try SQLiteStore(url: url, model: $0) }
            try writer.context.performAndWait {
                for item in items {
                    let o = try writer.context.insertObject(forEntityName: "Item")
                    try o.setAttributeValue(.integer(Int64(item.number)), forKey: "number")
                    try o.setAttributeValue(.string(item.name), forKey: "name")
                    try o.setAttributeValue(.double(item.score), forKey: "score")
                    try o.setAttributeValue(.date(item.stamp), forKey: "stamp")
                    try o.setAttributeValue(.uuid(item.tag), forKey: "tag")
                }
                try writer.context.save()
            }
        }
        return (try TestStack(model: model) { try SQLiteStore(url: url, model: $0) }, url)
    }

    static func count(_ p: Predicate, in stack: TestStack) throws -> Int {
        try stack.context.performAndWait {
            var r = FetchRequest<ManagedObject>(entityName: "Item")
            r.predicate = p
            let n = try stack.context.count(for: r)
            #expect(try stack.context.fetchObjectIDs(r).count == n)
            return n
        }
    }

    @Test("IN with 100,000 integers, strings, doubles, dates and UUIDs returns the right rows")
    func hugeInLists() throws {
        let (stack, _) = try Self.store()
        let n = 100_000
        // Integers: the even numbers below 200,000.
        let evens = (0..<n).map { $0 * 2 }
        let evensSet = Set(evens)
        let expectedNumbers = Self.items.filter { evensSet.contains($0.number) }.count
        #expect(expectedNumbers > 0 && expectedNumbers < Self.count)
        #expect(try Self.count(Predicate(format: "number IN %@", evens), in: stack) == expectedNumbers)
        #expect(try Self.count(Predicate(format: "NOT number IN %@", evens), in: stack) == Self.count - expectedNumbers)

        // Strings, written out in the format: `name IN {"item 0", "item 2", …}`.
        let names = (0..<n).map { "item \($0 * 2)" }
        let literal = "name IN {" + names.map { "\"\($0)\"" }.joined(separator: ", ") + "}"
        let nameSet = Set(names)
        let expectedNames = Self.items.filter { nameSet.contains($0.name) }.count
        #expect(expectedNames == Self.count / 2)
        #expect(try Self.count(Predicate(format: literal), in: stack) == expectedNames)
        // Case-insensitive: both sides folded.
        #expect(try Self.count(Predicate(format: "name IN[c] %@", names.map { $0.uppercased() }), in: stack) == expectedNames)

        // Doubles, compared exactly (every third item's score, and values no item has).
        let scores = (0..<n).map { Double($0 * 3) / 7 }
        let scoreSet = Set(scores)
        let expectedScores = Self.items.filter { scoreSet.contains($0.score) }.count
        #expect(expectedScores == Self.count / 3)
        #expect(try Self.count(Predicate(format: "score IN %@", scores), in: stack) == expectedScores)

        // Dates and UUIDs (stored as REAL seconds and 16-byte BLOBs).
        let stamps = (0..<n).map { Date(timeIntervalSinceReferenceDate: Double($0 * 5) * 1_234.567_89) }
        let stampSet = Set(stamps)
        let expectedStamps = Self.items.filter { stampSet.contains($0.stamp) }.count
        #expect(expectedStamps == Self.count / 5)
        #expect(try Self.count(Predicate(format: "stamp IN %@", stamps), in: stack) == expectedStamps)
        let tags = (0..<n).map { Self.uuid($0 * 4 + 1) }
        let tagSet = Set(tags)
        let expectedTags = Self.items.filter { tagSet.contains($0.tag) }.count
        #expect(expectedTags == Self.count / 4)
        #expect(try Self.count(Predicate(format: "tag IN %@", tags), in: stack) == expectedTags)

        // The same predicates as batch requests compile through the same path.
        let update = BatchUpdateRequest(entityName: "Item", predicate: try Predicate(format: "number IN %@", evens), propertiesToUpdate: ["name": .string("even")])
        try stack.context.performAndWait { _ = try stack.context.execute(update) }
        #expect(try Self.count(Predicate(format: "name == 'even'"), in: stack) == expectedNumbers)
    }

    @Test("a 5,000-term OR chain and a 5,000-term AND chain run in SQLite and agree with memory")
    func longChains() throws {
        let (stack, _) = try Self.store()
        let wanted = (0..<5_000).map { $0 * 6 }
        let wantedSet = Set(wanted)
        let expected = Self.items.filter { wantedSet.contains($0.number) }.count
        #expect(expected == Self.count / 2)
        let or = try Predicate(format: wanted.map { "number == \($0)" }.joined(separator: " OR "))
        #expect(try Self.count(or, in: stack) == expected)
        let and = try Predicate(format: wanted.map { "number != \($0)" }.joined(separator: " AND "))
        #expect(try Self.count(and, in: stack) == Self.count - expected)
        // Built in code, mixing keys, and nested one level in NOT.
        let mixed = Predicate.or(wanted.map { .key("number") == .integer(Int64($0)) } + [.key("name") == "item 1"])
        #expect(try Self.count(mixed, in: stack) == expected + 1)
        #expect(try Self.count(!mixed, in: stack) == Self.count - expected - 1)
        // In memory, on 300 of the objects (5,000 comparisons each), the chain selects the same ones.
        let (memory, sqlPart) = try stack.context.performAndWait {
            var r = FetchRequest<ManagedObject>(entityName: "Item")
            r.predicate = .key("number") < .integer(900)
            let some = try stack.context.fetch(r)
            r.predicate = or && .key("number") < .integer(900)
            return (try some.filter { try PredicateEvaluator.evaluate(or, on: $0) }.count, try stack.context.count(for: r))
        }
        #expect(memory == 150 && sqlPart == 150)
    }

    @Test("long chains compile to a balanced tree of parentheses, short ones stay flat")
    func balancedSQL() {
        let short = SQLitePredicateCompiler.balanced(["a", "b", "c"], "OR")
        #expect(short == "(a OR b OR c)")
        let terms = (0..<5_000).map { "x = \($0)" }
        let sql = SQLitePredicateCompiler.balanced(terms, "OR")
        var depth = 0, deepest = 0
        for c in sql {
            if c == "(" { depth += 1; deepest = max(deepest, depth) }
            if c == ")" { depth -= 1 }
        }
        #expect(depth == 0)
        #expect(deepest <= 16)
        #expect(sql.components(separatedBy: " OR ").count == 5_000)
    }

    @Test("JSON-bound lists encode text, REALs and BLOBs so SQLite reads them back exactly")
    func jsonListEncoding() throws {
        var s = ""
        SQLiteJSONList.appendString("a\"b\\c\n\u{1}é😀", to: &s)
        #expect(s == "\"a\\\"b\\\\c\\u000a\\u0001é😀\"")
        #expect(SQLiteJSONList.hex(Data([0x00, 0x0F, 0xA0, 0xFF])) == "000fa0ff")
        let values: [(AttributeValue, AttributeType)] = [(.integer(1), .integer64), (.double(2.5), .double), (.string("x"), .string), (.data(Data([1])), .binaryData), (.null, .string)]
        let sources = SQLiteJSONList(values.map { SQLiteValueCodec.databaseValue($0, type: $1) }).sources { $0 }
        #expect(sources.map(\.sql) == [
            "SELECT value FROM json_each(?)", "SELECT cs_real(value) FROM json_each(?)", "SELECT cs_blob(value) FROM json_each(?)",
        ])
        #expect(sources.map(\.json) == ["[1,\"x\"]", "[\(Int64(bitPattern: 2.5.bitPattern))]", "[\"01\"]"])
    }
}
