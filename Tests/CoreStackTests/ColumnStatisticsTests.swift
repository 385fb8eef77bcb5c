import Foundation
import Testing

@testable import CoreStack

/// ``SQLiteStore/columnStatistics(_:cancellation:)``: the figures of a column, computed in SQL,
/// checked against what was inserted.
@Suite struct ColumnStatisticsTests {
    /// Books with known pages (one without), publishers, authors and chapters.
    private func library() throws -> (LibraryStore, publishers: [ManagedObjectID]) {
        let lib = try LibraryStore()
        let penguin = try lib.insert("Publisher", ["name": .string("Penguin")])
        let tor = try lib.insert("Publisher", ["name": .string("Tor")])
        let pages: [Int64?] = [100, 100, 100, 250, 400, nil, 1000]
        var books: [ManagedObjectID] = []
        for (i, p) in pages.enumerated() {
            books.append(try lib.insert(
                "Book", ["title": .string("B\(i)"), "pages": p.map { .integer($0) } ?? .null],
                toOne: i < 4 ? ["publisher": penguin] : (i < 6 ? ["publisher": tor] : [:])))
        }
        let a = try lib.insert("Author", ["name": .string("A")])
        let b = try lib.insert("Author", ["name": .string("B")])
        try lib.link(books[0], "authors", to: [a, b])
        try lib.link(books[1], "authors", to: [a])
        return (lib, [penguin, tor])
    }

    @Test("an integer attribute: rows, nulls, distinct values, range, mean, most common values and a histogram over the whole entity")
    func integerAttribute() throws {
        let (lib, _) = try library()
        let stats = try lib.store.columnStatistics(ColumnStatisticsRequest(entity: lib.entity("Book"), property: "pages"))
        #expect(stats.rowCount == 7)
        #expect(stats.nullCount == 1)
        #expect(stats.distinctCount == 4)
        #expect(stats.minimum == .attribute(.integer(100)))
        #expect(stats.maximum == .attribute(.integer(1000)))
        #expect(abs((stats.mean ?? 0) - 1950.0 / 6.0) < 1e-9)
        #expect(stats.mostCommon.first == .init(value: .attribute(.integer(100)), count: 3))
        #expect(stats.mostCommon.count == 4)
        #expect(stats.histogram.count == 10)
        #expect(stats.histogram.map(\.count).reduce(0, +) == 6, "every value that is not nil is in a bin")
        #expect(stats.histogram.first?.count == 3)
        #expect(stats.histogram.last?.count == 1, "the maximum falls in the last bin")
        #expect(stats.histogram.first?.lowerBound == 100 && stats.histogram.last?.upperBound == 1000)
    }

    @Test("the request's predicate narrows the objects described (the table's filter)")
    func predicateFilters() throws {
        let (lib, _) = try library()
        let request = ColumnStatisticsRequest(
            entity: lib.entity("Book"), property: "pages", predicate: try Predicate(format: "pages >= %@", 250))
        let stats = try lib.store.columnStatistics(request)
        #expect(stats.rowCount == 3)
        #expect(stats.nullCount == 0)
        #expect(stats.minimum == .attribute(.integer(250)))
    }

    @Test("a to-one relationship: objects per destination; a to-many one: the number of linked objects per object")
    func relationships() throws {
        let (lib, publishers) = try library()
        let perPublisher = try lib.store.columnStatistics(ColumnStatisticsRequest(entity: lib.entity("Book"), property: "publisher"))
        #expect(perPublisher.nullCount == 1)
        #expect(perPublisher.distinctCount == 2)
        #expect(perPublisher.mostCommon == [.init(value: .object(publishers[0]), count: 4), .init(value: .object(publishers[1]), count: 2)])
        #expect(perPublisher.histogram.isEmpty)
        let authors = try lib.store.columnStatistics(ColumnStatisticsRequest(entity: lib.entity("Book"), property: "authors"))
        #expect(authors.rowCount == 7)
        #expect(authors.nullCount == 0)
        #expect(authors.mostCommon.first == .init(value: .count(0), count: 5))
        #expect(authors.maximum == .count(2))
        #expect(abs((authors.mean ?? 0) - 3.0 / 7.0) < 1e-9)
    }

    @Test("a text attribute has no mean and no histogram; an unknown property or a transient one is a typed error")
    func textAndErrors() throws {
        let (lib, _) = try library()
        let titles = try lib.store.columnStatistics(ColumnStatisticsRequest(entity: lib.entity("Book"), property: "title"))
        #expect(titles.distinctCount == 7 && titles.mean == nil && titles.histogram.isEmpty)
        #expect(titles.minimum == .attribute(.string("B0")))
        #expect(throws: CoreStackError.unknownKey(entity: "Book", key: "nope")) {
            try lib.store.columnStatistics(ColumnStatisticsRequest(entity: lib.entity("Book"), property: "nope"))
        }
        #expect(throws: CoreStackError.self) {
            try lib.store.columnStatistics(ColumnStatisticsRequest(entity: lib.entity("Author"), property: "scratch"))
        }
    }

    @Test("a cancelled request throws CancellationError")
    func cancelled() throws {
        let (lib, _) = try library()
        let cancellation = FetchCancellation()
        cancellation.cancel()
        #expect(throws: CancellationError.self) {
            try lib.store.columnStatistics(ColumnStatisticsRequest(entity: lib.entity("Book"), property: "pages"), cancellation: cancellation)
        }
    }
}
