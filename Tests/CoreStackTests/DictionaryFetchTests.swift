import Foundation
import TestSupportKit
import Testing
@testable import CoreStack

@Suite("Dictionary fetches and aggregates: in SQL, and in memory over unsaved changes")
struct DictionaryFetchTests {
    /// 30 books: pages 10, 20, … 300; prices 1.5 for even ones, none for odd ones; titles "B00"….
    static func stack(_ kind: StoreKind) throws -> TestStack {
        let stack = try TestStack(kind)
        try stack.context.performAndWait {
            for i in 0..<30 {
                let b = try Book(context: stack.context)
                b.title = String(format: "B%02d", i)
                b.pages = (i + 1) * 10
                b.price = i % 2 == 0 ? 1.5 : nil
            }
            try stack.context.save()
        }
        return stack
    }

    static func request(_ props: [String], groupBy: [String]? = nil) -> FetchRequest<Book> {
        var r = FetchRequest<Book>(entityName: "Book")
        r.propertiesToFetch = props
        r.propertiesToGroupBy = groupBy
        return r
    }

    @Test("aggregates over every row: count, sum, avg, min, max, count of non-nil", arguments: StoreKind.allCases)
    func aggregatesOverAllRows(kind: StoreKind) throws {
        let stack = try Self.stack(kind)
        let ctx = stack.newContext()
        try ctx.performAndWait {
            let rows = try ctx.fetchDictionaries(Self.request(["@count", "@sum.pages", "@avg.pages", "@min.title", "@max.pages", "@count.price", "@sum.price"]))
            #expect(rows == [[
                "@count": .integer(30), "@sum.pages": .integer(4650), "@avg.pages": .double(155), "@min.title": .string("B00"),
                "@max.pages": .integer(300), "@count.price": .integer(15), "@sum.price": .double(22.5),
            ]])
            // Nothing was made or cached to answer it.
            #expect(ctx.registeredObjects.isEmpty)
            var filtered = Self.request(["@count", "@max.pages"])
            filtered.predicate = .key("pages") > 1000
            let got1 = try ctx.fetchDictionaries(filtered)
            #expect(got1 == [["@count": .integer(0), "@max.pages": .null]])
        }
    }

    @Test("grouped by an attribute: one row per group, ordered by the sort or the group key; limit and offset on groups", arguments: StoreKind.allCases)
    func grouped(kind: StoreKind) throws {
        let stack = try Self.stack(kind)
        let ctx = stack.newContext()
        try ctx.performAndWait {
            var r = Self.request(["price", "@count", "@sum.pages"], groupBy: ["price"])
            let rows = try ctx.fetchDictionaries(r)
            #expect(rows == [
                ["price": .null, "@count": .integer(15), "@sum.pages": .integer(2400)],
                ["price": .double(1.5), "@count": .integer(15), "@sum.pages": .integer(2250)],
            ])
            r.sortDescriptors = [SortDescriptor("price", ascending: false)]
            r.fetchLimit = 1
            let got2 = try ctx.fetchDictionaries(r)
            #expect(got2 == [["price": .double(1.5), "@count": .integer(15), "@sum.pages": .integer(2250)]])
            r.fetchOffset = 1
            let got3 = try ctx.fetchDictionaries(r)
            #expect(got3 == [["price": .null, "@count": .integer(15), "@sum.pages": .integer(2400)]])
        }
    }

    @Test("with unsaved changes the context's own view is aggregated, and matches SQL once saved", arguments: StoreKind.allCases)
    func unsavedChanges(kind: StoreKind) throws {
        let stack = try Self.stack(kind)
        let ctx = stack.newContext()
        try ctx.performAndWait {
            let r = Self.request(["price", "@count", "@max.pages"], groupBy: ["price"])
            let books = try ctx.fetch(FetchRequest<Book>(entityName: "Book", sortDescriptors: [SortDescriptor("pages")]))
            try ctx.delete(books[29])  // 300 pages, no price (odd)
            books[0].pages = 999
            let extra = try Book(context: ctx)
            extra.title = "New"
            extra.pages = 5
            extra.price = 2
            let pending = try ctx.fetchDictionaries(r)
            let expected: [[String: AttributeValue]] = [
                ["price": .null, "@count": .integer(14), "@max.pages": .integer(280)],
                ["price": .double(1.5), "@count": .integer(15), "@max.pages": .integer(999)],
                ["price": .double(2), "@count": .integer(1), "@max.pages": .integer(5)],
            ]
            #expect(pending == expected)
            try ctx.save()
            let got4 = try ctx.fetchDictionaries(r)
            #expect(got4 == expected)
        }
    }

    @Test("plain columns in SQL keep nil attributes and leave out nil to-ones; bad requests are refused")
    func plainColumnsAndErrors() throws {
        let stack = try Self.stack(.sqlite)
        let ctx = stack.newContext()
        try ctx.performAndWait {
            var r = Self.request(["title", "price", "publisher"])
            r.sortDescriptors = [SortDescriptor("pages", ascending: false)]
            r.fetchLimit = 2
            let got5 = try ctx.fetchDictionaries(r)
            #expect(got5 == [["title": .string("B29"), "price": .null], ["title": .string("B28"), "price": .double(1.5)]])
            #expect(throws: CoreStackError.self) { try ctx.fetchDictionaries(Self.request(["title", "@count"])) }
            #expect(throws: CoreStackError.self) { try ctx.fetchDictionaries(Self.request(["title", "@count"], groupBy: ["price"])) }
            #expect(throws: CoreStackError.self) { try ctx.fetchDictionaries(Self.request(["@sum.title"])) }
            #expect(throws: CoreStackError.self) { try ctx.fetchDictionaries(Self.request(["@median.pages"])) }
            #expect(throws: CoreStackError.self) { try ctx.fetchDictionaries(Self.request(["authors"])) }
            #expect(throws: CoreStackError.self) { try ctx.fetchDictionaries(Self.request(["nope"])) }
        }
    }
}
