import CoreStack
import Foundation
import StackScope
import Testing

/// `stackscope stats`: a column's figures on the demo store, agreeing with counts made by fetches.
@Suite struct StatsCommandTests {
    @Test("stats of Book.pages agree with fetch counts (objects, nil), the text shows the sections and the JSON parses with the same figures")
    func pagesAgreeWithFetches() throws {
        let (url, _) = try TestSupport.demoStore(size: 60)
        let stats = try StatsCommand.statistics(storePath: url.path, modelPath: nil, entity: "Book", property: "pages")
        let session = try StoreSession.open(storePath: url.path, modelPath: nil)
        defer { session.close() }
        let context = session.context
        let (all, none) = try context.performAndWait {
            (try context.count(for: FetchRequest<ManagedObject>(entityName: "Book")),
             try context.count(for: FetchRequest<ManagedObject>(entityName: "Book", predicate: try Predicate(format: "pages == nil"))))
        }
        #expect(stats.rowCount == all)
        #expect(stats.nullCount == none)
        #expect(stats.histogram.map(\.count).reduce(0, +) == all - none)
        let text = StatsCommand.renderText(stats)
        #expect(text.hasPrefix("Book.pages\nObjects:   \(all)\n"))
        #expect(text.contains("Most common") && text.contains("Histogram"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(StatsCommand.renderJSON(stats).utf8)) as? [String: Any])
        #expect(json["objects"] as? Int == all)
        #expect((json["histogram"] as? [Any])?.count == 10)
    }

    @Test("--predicate narrows the objects; an unknown entity or property is a clear error")
    func predicateAndErrors() throws {
        let (url, _) = try TestSupport.demoStore(size: 60)
        let all = try StatsCommand.statistics(storePath: url.path, modelPath: nil, entity: "Book", property: "pages")
        let some = try StatsCommand.statistics(
            storePath: url.path, modelPath: nil, entity: "Book", property: "pages", predicate: try Predicate(format: "pages > 500"))
        #expect(some.rowCount < all.rowCount)
        if case let .attribute(.integer(low))? = some.minimum { #expect(low > 500) } else { Issue.record("no minimum: \(some)") }
        #expect(throws: StackScopeError.self) { try StatsCommand.run(storePath: url.path, modelPath: nil, entity: "Nope", property: "x") }
        #expect(throws: CoreStackError.unknownKey(entity: "Book", key: "nope")) {
            try StatsCommand.run(storePath: url.path, modelPath: nil, entity: "Book", property: "nope")
        }
    }

    /// sqlite3's answer to `sql` on the store at `url`: one line per row, columns split at `|`.
    static func sqlite3(_ url: URL, _ sql: String) throws -> [[String]] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", "-readonly", url.path, sql]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "sqlite3 is needed (apt-get install sqlite3)")
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
    }

    @Test("relationship columns against sqlite3's own counts: Book.publisher (to-one) objects per publisher; Book.chapters (to-many by foreign key) and Book.authors (to-many through a join table) the number of linked objects per book", .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "needs sqlite3"))
    func relationshipsAgainstSQLite() throws {
        let (url, _) = try TestSupport.demoStore(size: 300)
        // To-one: books per publisher, nil counted apart.
        let publisher = try StatsCommand.statistics(storePath: url.path, modelPath: nil, entity: "Book", property: "publisher", top: 100)
        let perPublisher = try Self.sqlite3(url, "SELECT ZPUBLISHER, COUNT(*) FROM ZBOOK WHERE ZPUBLISHER IS NOT NULL GROUP BY ZPUBLISHER ORDER BY 2 DESC, 1")
        #expect(publisher.mostCommon.map(\.count) == perPublisher.map { Int($0[1]) ?? -1 })
        #expect(publisher.mostCommon.map { value -> Int64? in
            if case let .object(id) = value.value { return id.primaryKey }
            return nil
        } == perPublisher.map { Int64($0[0]) })
        let nilPublisher = try Self.sqlite3(url, "SELECT COUNT(*) FROM ZBOOK WHERE ZPUBLISHER IS NULL")
        #expect(publisher.nullCount == Int(nilPublisher[0][0]))
        #expect(publisher.distinctCount == perPublisher.count)

        // To-many: how many books have n linked objects, per n.
        func countsPerBook(_ sql: String) throws -> [Int: Int] {
            var out: [Int: Int] = [:]
            for row in try Self.sqlite3(url, "SELECT n, COUNT(*) FROM (\(sql)) GROUP BY n") { out[Int(row[0]) ?? -1] = Int(row[1]) }
            return out
        }
        for (property, sql) in [
            ("chapters", "SELECT (SELECT COUNT(*) FROM ZCHAPTER c WHERE c.ZBOOK = b.Z_PK) AS n FROM ZBOOK b"),
            ("authors", "SELECT (SELECT COUNT(*) FROM Z_1AUTHORS j WHERE j.Z_1BOOKS = b.Z_PK) AS n FROM ZBOOK b"),
        ] {
            let stats = try StatsCommand.statistics(storePath: url.path, modelPath: nil, entity: "Book", property: property, top: 1_000)
            let expected = try countsPerBook(sql)
            var got: [Int: Int] = [:]
            for common in stats.mostCommon {
                guard case let .count(n) = common.value else {
                    Issue.record("\(property): \(common.value) is not a count")
                    continue
                }
                got[n] = common.count
            }
            #expect(got == expected, "\(property)")
            #expect(stats.rowCount == expected.values.reduce(0, +))
            #expect(stats.histogram.map(\.count).reduce(0, +) == stats.rowCount)
            // A bin's filter keeps as many books as the bin counts.
            let first = try #require(StatsCommand.filter(forBin: 0, of: stats))
            #expect(first.hasPrefix("\(property).@count >= "))
            let kept = try StatsCommand.statistics(
                storePath: url.path, modelPath: nil, entity: "Book", property: property, predicate: try CoreStack.Predicate(format: first))
            #expect(kept.rowCount == stats.histogram[0].count, "\(first)")
        }
    }

    @Test("a date column's bin filter casts its bounds to dates and keeps the bin's objects")
    func dateBinFilter() throws {
        let (url, _) = try TestSupport.demoStore(size: 200)
        let stats = try StatsCommand.statistics(storePath: url.path, modelPath: nil, entity: "Book", property: "published")
        let index = try #require(stats.histogram.firstIndex { $0.count > 0 })
        let filter = try #require(StatsCommand.filter(forBin: index, of: stats))
        #expect(filter.hasPrefix("published >= CAST("))
        #expect(filter.contains(", \"NSDate\")"))
        let kept = try StatsCommand.statistics(
            storePath: url.path, modelPath: nil, entity: "Book", property: "published", predicate: try CoreStack.Predicate(format: filter))
        #expect(kept.rowCount == stats.histogram[index].count)
    }

    @Test("attribute columns against sqlite3's own figures: objects, nil, distinct, minimum, maximum, mean, the most common values and the histogram's bins (integers, reals, text)", .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "needs sqlite3"))
    func attributesAgainstSQLite() throws {
        let (url, _) = try TestSupport.demoStore(size: 400)
        for (entity, table, property, column, isText) in [
            ("Chapter", "ZCHAPTER", "wordCount", "ZWORDCOUNT", false), ("Chapter", "ZCHAPTER", "number", "ZNUMBER", false),
            ("Chapter", "ZCHAPTER", "title", "ZTITLE", true), ("Book", "ZBOOK", "rating", "ZRATING", false),
        ] {
            let stats = try StatsCommand.statistics(storePath: url.path, modelPath: nil, entity: entity, property: property, top: 5, bins: 7)
            let summary = try Self.sqlite3(url, "SELECT COUNT(*), COUNT(\(column)), COUNT(DISTINCT \(column)), printf('%.17g', AVG(\(column))) FROM \(table)")[0]
            #expect(stats.rowCount == Int(summary[0]), "\(property)")
            #expect(stats.nullCount == (Int(summary[0]) ?? 0) - (Int(summary[1]) ?? 0), "\(property)")
            #expect(stats.distinctCount == Int(summary[2]), "\(property)")
            if isText {
                #expect(stats.mean == nil)
                #expect(stats.histogram.isEmpty)
            } else {
                // Integers: exact. Reals: summed in another order by another SQLite (the CLI's), so to the last bits.
                let expected = try #require(Double(summary[3]))
                let mean = try #require(stats.mean)
                if property == "rating" {
                    #expect(abs(mean - expected) <= 1e-12 * abs(expected), "\(property): \(mean) against \(expected)")
                } else {
                    #expect(mean == expected, "\(property): \(mean) against \(expected)")
                }
            }
            let top = try Self.sqlite3(url, "SELECT \(column), COUNT(*) AS n FROM \(table) WHERE \(column) IS NOT NULL GROUP BY \(column) ORDER BY n DESC, \(column) LIMIT 5")
            #expect(stats.mostCommon.map(\.count) == top.map { Int($0[1]) ?? -1 }, "\(property)")
            func parsed(_ text: String) -> ColumnStatistics.Value {
                .attribute(isText ? .string(text) : property == "rating" ? .double(Double(text) ?? .nan) : .integer(Int64(text) ?? 0))
            }
            #expect(stats.mostCommon.map(\.value) == top.map { parsed($0[0]) }, "\(property)")
            guard !isText else { continue }
            let range = try Self.sqlite3(url, "SELECT MIN(\(column)), MAX(\(column)) FROM \(table)")[0]
            #expect(stats.minimum == parsed(range[0]) && stats.maximum == parsed(range[1]), "\(property)")
            let bins = try Self.sqlite3(url, """
                SELECT MIN(MAX(CAST((\(column) - (SELECT MIN(\(column)) FROM \(table))) / ((SELECT MAX(\(column)) - MIN(\(column)) FROM \(table)) / 7.0) AS INTEGER), 0), 6) AS b, COUNT(*)
                FROM \(table) WHERE \(column) IS NOT NULL GROUP BY b ORDER BY b
                """)
            var expected = [Int](repeating: 0, count: 7)
            for row in bins { expected[Int(row[0]) ?? 0] = Int(row[1]) ?? 0 }
            #expect(stats.histogram.map(\.count) == expected, "\(property)")
        }
    }
}
