import CoreStack
import Foundation
import Testing
@testable import StackScope

/// How `demo create` writes its rows: chapters once each, with their book and order key, under
/// IDs reserved beforehand; the generator's cheaper values.
@Suite struct DemoBatchWriterRowsTests {
    /// The output of `sqlite3 STORE SQL`, trimmed.
    static func sqlite(_ url: URL, _ sql: String) throws -> String {
        let p = Process()
        let out = Pipe()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        p.arguments = [url.path, sql]
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("each chapter is written once, with its book, the book's entity and its order key in its INSERT (version 1)",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")))
    func chaptersWrittenOnce() throws {
        let (url, summary) = try TestSupport.demoStore(size: 300)
        let chapters = summary.counts["Chapter"] ?? 0
        #expect(chapters > 100)
        #expect(try Self.sqlite(url, "SELECT COUNT(*), MIN(Z_OPT), MAX(Z_OPT) FROM ZCHAPTER") == "\(chapters)|1|1")
        #expect(try Self.sqlite(url, "SELECT COUNT(*) FROM ZCHAPTER WHERE ZBOOK IS NULL OR Z1_BOOK IS NULL OR Z_FOK_BOOK IS NULL") == "0")
        // Order keys 1024, 2048, … per book, by chapter number.
        #expect(try Self.sqlite(url, "SELECT COUNT(*) FROM ZCHAPTER WHERE Z_FOK_BOOK != ZNUMBER * 1024") == "0")
        // Z_MAX covers every reserved key.
        #expect(try Self.sqlite(url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Chapter'") == "\(chapters)")
    }

    @Test("cents(_:) is the decimal of that many hundredths", arguments: [0, 1, 499, 1250, 4999])
    func cents(_ n: Int) {
        #expect(DemoGenerator.cents(n) == Decimal(n) / Decimal(100))
        #expect(DemoGenerator.cents(n).exponent >= -2)
    }

    @Test("the generator's prices are whole cents, its ISBNs and titles formatted as before")
    func generatorValues() throws {
        var generator = DemoGenerator(size: 300)
        for i in 0..<generator.shape.publishers { _ = generator.publisher(i) }
        for i in 0..<generator.shape.genres { _ = generator.genre(i) }
        for i in 0..<generator.shape.authors { _ = generator.author(i) }
        for i in 0..<generator.shape.editors { _ = generator.editor(i) }
        for i in 0..<20 {
            let book = generator.book(i, publishers: 6, editors: 5, authors: 10, genres: 12)
            guard case let .decimal(price)? = book.value(of: "price"), case let .string(isbn)? = book.value(of: "isbn"),
                case let .string(title)? = book.value(of: "title")
            else {
                Issue.record("book \(i) lacks price, isbn or title")
                continue
            }
            #expect(price.exponent >= -2 && price >= DemoGenerator.cents(499) && price <= DemoGenerator.cents(4999))
            #expect(isbn.wholeMatch(of: /978-[0-9]-[1-9][0-9]{3}-[1-9][0-9]{3}-[0-9]/) != nil, "\(isbn)")
            #expect(i < DemoLibrary.fixedTitles.count || title.split(separator: " ").count >= 3, "\(title)")
            for row in book.chapters {
                let chapter = Dictionary(uniqueKeysWithValues: zip(DemoGenerator.chapterColumns, row))
                guard case let .integer(n)? = chapter["number"], case let .string(t)? = chapter["title"] else { continue }
                #expect(t.hasPrefix("Chapter \(n): ") && DemoLibrary.chapterWords.contains(String(t.dropFirst("Chapter \(n): ".count))))
            }
        }
    }

    @Test("the generator's column lists are each entity's attributes in slot order, and its rows are that wide")
    func columnsInSlotOrder() throws {
        let model = try DemoLibrary.model()
        let columns = [
            "Publisher": DemoGenerator.publisherColumns, "Genre": DemoGenerator.genreColumns, "Author": DemoGenerator.authorColumns,
            "Editor": DemoGenerator.editorColumns, "Book": DemoGenerator.bookColumns, "GraphicNovel": DemoGenerator.graphicNovelColumns,
            "Chapter": DemoGenerator.chapterColumns,
        ]
        for (entity, names) in columns {
            // Every attribute in slot order: the batch insert keeps such rows as they are.
            #expect(model.entity(named: entity)?.allAttributes.map(\.name) == names, "\(entity)")
        }
        var generator = DemoGenerator(size: 300)
        #expect(generator.publisher(0).count == DemoGenerator.publisherColumns.count)
        #expect(generator.genre(0).count == DemoGenerator.genreColumns.count)
        #expect(generator.author(0).count == DemoGenerator.authorColumns.count)
        #expect(generator.editor(0).count == DemoGenerator.editorColumns.count)
        for i in 0..<10 {
            let book = generator.book(i, publishers: 6, editors: 5, authors: 10, genres: 12)
            #expect(book.values.count == book.columns.count && book.columns.count == (i % 5 == 4 ? 14 : 12))
            #expect(book.chapters.allSatisfy { $0.count == DemoGenerator.chapterColumns.count })
        }
    }
}
