import Foundation
import GRDB

private func openQueue(_ url: URL) throws -> DatabaseQueue {
    var config = Configuration()
    config.busyMode = .timeout(10)
    return try DatabaseQueue(path: url.path, configuration: config)
}

// MARK: - GRDB Statement API

/// GRDB's statement API: prepared statements with `StatementArguments`, `Row` cursors.
struct GRDBStatementContender: Contender {
    var name: String { ContenderName.grdbStatement }
    func createStore(at url: URL) throws { try PlainSchema.create(at: url) }
    func open(_ url: URL) throws -> any BenchSession { GRDBStatementSession(queue: try openQueue(url)) }
}

final class GRDBStatementSession: BenchSession {
    let queue: DatabaseQueue
    var codes: [Int64] = []

    init(queue: DatabaseQueue) { self.queue = queue }

    private static func item(_ row: Row) -> ItemRow {
        ItemRow(code: row[0], name: row[1], category: row[2], quantity: row[3], price: row[4], created: row[5])
    }

    func insert(_ items: [ItemData]) throws {
        try queue.write { db in
            let s = try db.makeStatement(sql: "INSERT INTO item (\(PlainSchema.itemColumns)) VALUES (?, ?, ?, ?, ?, ?)")
            for item in items {
                try s.execute(arguments: [item.code, item.name, item.category, item.quantity, item.price, item.created])
            }
        }
    }

    func fetchAll() throws -> Int64 {
        try queue.read { db in
            var rows: [ItemRow] = []
            let cursor = try Row.fetchCursor(db, sql: "SELECT \(PlainSchema.itemColumns) FROM item ORDER BY id")
            while let row = try cursor.next() { rows.append(Self.item(row)) }
            return rows.reduce(0) { $0 &+ $1.fold }
        }
    }

    func fetchBatched(batchSize: Int) throws -> Int64 {
        try queue.read { db in
            let keys = try Int64.fetchAll(db, sql: "SELECT id FROM item ORDER BY id")
            var total: Int64 = 0
            var start = 0
            while start < keys.count {
                let chunk = Array(keys[start..<min(start + batchSize, keys.count)])
                start += batchSize
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                let s = try db.cachedStatement(sql: "SELECT \(PlainSchema.itemColumns) FROM item WHERE id IN (\(marks))")
                let rows = try Row.fetchCursor(s, arguments: StatementArguments(chunk))
                var batch: [ItemRow] = []
                batch.reserveCapacity(chunk.count)
                while let row = try rows.next() { batch.append(Self.item(row)) }
                for r in batch { total &+= r.fold }
            }
            return total
        }
    }

    func prepare(codes: [Int64]) throws { self.codes = codes }

    func update() throws -> Int64 {
        try queue.write { db in
            let select = try db.makeStatement(sql: "SELECT \(PlainSchema.itemColumns) FROM item WHERE id = ?")
            let update = try db.makeStatement(sql: "UPDATE item SET category = ?, price = ? WHERE id = ?")
            var total: Int64 = 0
            for code in codes {
                guard let row = try Row.fetchOne(select, arguments: [code]) else { continue }
                var r = Self.item(row)
                r.price += 1
                r.category = "updated"
                try update.execute(arguments: [r.category, r.price, r.code])
                total &+= Int64((r.price * 100).rounded())
            }
            return total
        }
    }

    func lookup() throws -> Int64 {
        try queue.read { db in
            let select = try db.makeStatement(sql: "SELECT \(PlainSchema.itemColumns) FROM item WHERE id = ?")
            var total: Int64 = 0
            for code in codes {
                if let row = try Row.fetchOne(select, arguments: [code]) { total &+= Self.item(row).fold }
            }
            return total
        }
    }

    func predicateFetch(threshold: Int64) throws -> Int64 {
        try queue.read { db in
            let cursor = try Row.fetchCursor(
                db, sql: "SELECT \(PlainSchema.itemColumns) FROM item WHERE quantity < ? ORDER BY name", arguments: [threshold])
            var rows: [ItemRow] = []
            while let row = try cursor.next() { rows.append(Self.item(row)) }
            return RawSession.orderedFold(rows.map(\.fold))
        }
    }

    func insertGraph(_ g: GraphData) throws {
        try queue.write { db in
            let author = try db.makeStatement(sql: "INSERT INTO author (id, name) VALUES (?, ?)")
            for k in 0..<g.authorCount { try author.execute(arguments: [Int64(k + 1), g.name(author: k)]) }
            let book = try db.makeStatement(sql: "INSERT INTO book (id, title, pages) VALUES (?, ?, ?)")
            let link = try db.makeStatement(sql: "INSERT INTO bookAuthor (bookId, authorId) VALUES (?, ?)")
            let chapter = try db.makeStatement(sql: "INSERT INTO chapter (bookId, position, title, number) VALUES (?, ?, ?, ?)")
            for i in 0..<g.bookCount {
                let id = Int64(i + 1)
                try book.execute(arguments: [id, g.title(book: i), g.pages(book: i)])
                for k in g.authors(book: i) { try link.execute(arguments: [id, Int64(k + 1)]) }
                for j in 0..<GraphData.chaptersPerBook {
                    try chapter.execute(arguments: [id, j, g.chapterTitle(j), j + 1])
                }
            }
        }
    }

    func fetchGraph() throws -> Int64 {
        try queue.read { db in
            struct Book {
                var title: String
                var pages: Int64
                var authors: [String] = []
            }
            var list: [Book] = []
            var index: [Int64: Int] = [:]
            let books = try Row.fetchCursor(db, sql: "SELECT id, title, pages FROM book ORDER BY id")
            while let row = try books.next() {
                index[row[0]] = list.count
                list.append(Book(title: row[1], pages: row[2]))
            }
            let authors = try Row.fetchCursor(
                db, sql: "SELECT ba.bookId, a.name FROM bookAuthor ba JOIN author a ON a.id = ba.authorId ORDER BY ba.bookId, a.id")
            while let row = try authors.next() {
                if let i = index[row[0]] { list[i].authors.append(row[1]) }
            }
            return list.reduce(0) { $0 &+ GraphData.fold(pages: $1.pages, title: $1.title, authorNames: $1.authors.sorted()) }
        }
    }
}

// MARK: - GRDB Codable records

struct ItemRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "item"
    var id: Int64
    var name: String
    var category: String
    var quantity: Int64
    var price: Double
    var created: Date

    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .timeIntervalSinceReferenceDate }
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .timeIntervalSinceReferenceDate }

    init(_ d: ItemData) {
        id = d.code
        name = d.name
        category = d.category
        quantity = d.quantity
        price = d.price
        created = Date(timeIntervalSinceReferenceDate: d.created)
    }

    var fold: Int64 { ItemData.fold(id, name, category, quantity, price, created.timeIntervalSinceReferenceDate) }
}

struct AuthorRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "author"
    var id: Int64
    var name: String
}

struct BookRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "book"
    var id: Int64
    var title: String
    var pages: Int64
    static let bookAuthors = hasMany(BookAuthorRecord.self)
    static let authors = hasMany(AuthorRecord.self, through: bookAuthors, using: BookAuthorRecord.author)
}

struct BookAuthorRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "bookAuthor"
    var bookId: Int64
    var authorId: Int64
    static let author = belongsTo(AuthorRecord.self)
}

struct ChapterRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "chapter"
    var id: Int64?
    var bookId: Int64
    var position: Int64
    var title: String
    var number: Int64
}

struct BookWithAuthors: Decodable, FetchableRecord {
    var book: BookRecord
    var authors: [AuthorRecord]
}

/// GRDB's Codable record API: `FetchableRecord & PersistableRecord` structs.
struct GRDBRecordContender: Contender {
    var name: String { ContenderName.grdbRecord }
    func createStore(at url: URL) throws { try PlainSchema.create(at: url) }
    func open(_ url: URL) throws -> any BenchSession { GRDBRecordSession(queue: try openQueue(url)) }
}

final class GRDBRecordSession: BenchSession {
    let queue: DatabaseQueue
    var codes: [Int64] = []

    init(queue: DatabaseQueue) { self.queue = queue }

    func insert(_ items: [ItemData]) throws {
        try queue.write { db in
            for item in items { try ItemRecord(item).insert(db) }
        }
    }

    func fetchAll() throws -> Int64 {
        try queue.read { db in
            try ItemRecord.order(Column("id")).fetchAll(db).reduce(0) { $0 &+ $1.fold }
        }
    }

    func fetchBatched(batchSize: Int) throws -> Int64 {
        try queue.read { db in
            let keys = try Int64.fetchAll(db, sql: "SELECT id FROM item ORDER BY id")
            var total: Int64 = 0
            var start = 0
            while start < keys.count {
                let chunk = Array(keys[start..<min(start + batchSize, keys.count)])
                start += batchSize
                for r in try ItemRecord.fetchAll(db, keys: chunk) { total &+= r.fold }
            }
            return total
        }
    }

    func prepare(codes: [Int64]) throws { self.codes = codes }

    func update() throws -> Int64 {
        try queue.write { db in
            var total: Int64 = 0
            for code in codes {
                guard var r = try ItemRecord.fetchOne(db, key: code) else { continue }
                r.price += 1
                r.category = "updated"
                try r.update(db)
                total &+= Int64((r.price * 100).rounded())
            }
            return total
        }
    }

    func lookup() throws -> Int64 {
        try queue.read { db in
            var total: Int64 = 0
            for code in codes {
                if let r = try ItemRecord.fetchOne(db, key: code) { total &+= r.fold }
            }
            return total
        }
    }

    func predicateFetch(threshold: Int64) throws -> Int64 {
        try queue.read { db in
            let rows = try ItemRecord.filter(Column("quantity") < threshold).order(Column("name")).fetchAll(db)
            return RawSession.orderedFold(rows.map(\.fold))
        }
    }

    func insertGraph(_ g: GraphData) throws {
        try queue.write { db in
            for k in 0..<g.authorCount { try AuthorRecord(id: Int64(k + 1), name: g.name(author: k)).insert(db) }
            for i in 0..<g.bookCount {
                let id = Int64(i + 1)
                try BookRecord(id: id, title: g.title(book: i), pages: g.pages(book: i)).insert(db)
                for k in g.authors(book: i) { try BookAuthorRecord(bookId: id, authorId: Int64(k + 1)).insert(db) }
                for j in 0..<GraphData.chaptersPerBook {
                    try ChapterRecord(id: nil, bookId: id, position: Int64(j), title: g.chapterTitle(j), number: Int64(j + 1)).insert(db)
                }
            }
        }
    }

    func fetchGraph() throws -> Int64 {
        try queue.read { db in
            let books = try BookRecord.including(all: BookRecord.authors).order(Column("id"))
                .asRequest(of: BookWithAuthors.self).fetchAll(db)
            return books.reduce(0) {
                $0 &+ GraphData.fold(pages: $1.book.pages, title: $1.book.title, authorNames: $1.authors.map(\.name).sorted())
            }
        }
    }
}
