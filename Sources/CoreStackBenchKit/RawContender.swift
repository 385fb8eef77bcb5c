import Foundation

/// SQLite's C API: prepared statements, bound values, one transaction per write.
struct RawContender: Contender {
    var name: String { ContenderName.raw }
    func createStore(at url: URL) throws { try PlainSchema.create(at: url) }
    func open(_ url: URL) throws -> any BenchSession { RawSession(db: try RawConnection(path: url.path)) }
}

/// An item as a plain struct: what "fully materialised" means without an object layer.
struct ItemRow {
    var code: Int64
    var name: String
    var category: String
    var quantity: Int64
    var price: Double
    var created: Double

    var fold: Int64 { ItemData.fold(code, name, category, quantity, price, created) }
}

final class RawSession: BenchSession {
    let db: RawConnection
    var codes: [Int64] = []

    init(db: RawConnection) { self.db = db }

    private func row(_ s: RawStatement) -> ItemRow {
        ItemRow(code: s.int64(0), name: s.string(1), category: s.string(2), quantity: s.int64(3), price: s.double(4), created: s.double(5))
    }

    func insert(_ items: [ItemData]) throws {
        try db.transaction {
            let s = try db.prepare("INSERT INTO item (\(PlainSchema.itemColumns)) VALUES (?, ?, ?, ?, ?, ?)")
            for item in items {
                s.bind(1, item.code)
                s.bind(2, item.name)
                s.bind(3, item.category)
                s.bind(4, item.quantity)
                s.bind(5, item.price)
                s.bind(6, item.created)
                try s.run()
            }
        }
    }

    func fetchAll() throws -> Int64 {
        let s = try db.prepare("SELECT \(PlainSchema.itemColumns) FROM item ORDER BY id")
        var rows: [ItemRow] = []
        while try s.step() { rows.append(row(s)) }
        return rows.reduce(0) { $0 &+ $1.fold }
    }

    func fetchBatched(batchSize: Int) throws -> Int64 {
        let ids = try db.prepare("SELECT id FROM item ORDER BY id")
        var keys: [Int64] = []
        while try ids.step() { keys.append(ids.int64(0)) }
        var total: Int64 = 0
        var start = 0
        var statements: [Int: RawStatement] = [:]
        while start < keys.count {
            let chunk = keys[start..<min(start + batchSize, keys.count)]
            start += batchSize
            let s: RawStatement
            if let cached = statements[chunk.count] {
                s = cached
            } else {
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                s = try db.prepare("SELECT \(PlainSchema.itemColumns) FROM item WHERE id IN (\(marks))")
                statements[chunk.count] = s
            }
            for (i, k) in chunk.enumerated() { s.bind(Int32(i + 1), k) }
            var rows: [ItemRow] = []
            rows.reserveCapacity(chunk.count)
            while try s.step() { rows.append(row(s)) }
            s.reset()
            for r in rows { total &+= r.fold }
        }
        return total
    }

    func prepare(codes: [Int64]) throws { self.codes = codes }

    func update() throws -> Int64 {
        try db.transaction {
            let select = try db.prepare("SELECT \(PlainSchema.itemColumns) FROM item WHERE id = ?")
            let update = try db.prepare("UPDATE item SET category = ?, price = ? WHERE id = ?")
            var total: Int64 = 0
            for code in codes {
                select.bind(1, code)
                guard try select.step() else { select.reset(); continue }
                var r = row(select)
                select.reset()
                r.price += 1
                r.category = "updated"
                update.bind(1, r.category)
                update.bind(2, r.price)
                update.bind(3, r.code)
                try update.run()
                total &+= Int64((r.price * 100).rounded())
            }
            return total
        }
    }

    func lookup() throws -> Int64 {
        let select = try db.prepare("SELECT \(PlainSchema.itemColumns) FROM item WHERE id = ?")
        var total: Int64 = 0
        for code in codes {
            select.bind(1, code)
            if try select.step() { total &+= row(select).fold }
            select.reset()
        }
        return total
    }

    func predicateFetch(threshold: Int64) throws -> Int64 {
        let s = try db.prepare("SELECT \(PlainSchema.itemColumns) FROM item WHERE quantity < ? ORDER BY name")
        s.bind(1, threshold)
        var rows: [ItemRow] = []
        while try s.step() { rows.append(row(s)) }
        return Self.orderedFold(rows.map(\.fold))
    }

    /// A fold that depends on the order of the rows.
    static func orderedFold(_ folds: [Int64]) -> Int64 {
        var total: Int64 = 0
        for (i, f) in folds.enumerated() { total &+= f &* Int64(i + 1) }
        return total
    }

    func insertGraph(_ g: GraphData) throws {
        try db.transaction {
            let author = try db.prepare("INSERT INTO author (id, name) VALUES (?, ?)")
            for k in 0..<g.authorCount {
                author.bind(1, Int64(k + 1))
                author.bind(2, g.name(author: k))
                try author.run()
            }
            let book = try db.prepare("INSERT INTO book (id, title, pages) VALUES (?, ?, ?)")
            let link = try db.prepare("INSERT INTO bookAuthor (bookId, authorId) VALUES (?, ?)")
            let chapter = try db.prepare("INSERT INTO chapter (bookId, position, title, number) VALUES (?, ?, ?, ?)")
            for i in 0..<g.bookCount {
                let id = Int64(i + 1)
                book.bind(1, id)
                book.bind(2, g.title(book: i))
                book.bind(3, g.pages(book: i))
                try book.run()
                for k in g.authors(book: i) {
                    link.bind(1, id)
                    link.bind(2, Int64(k + 1))
                    try link.run()
                }
                for j in 0..<GraphData.chaptersPerBook {
                    chapter.bind(1, id)
                    chapter.bind(2, Int64(j))
                    chapter.bind(3, g.chapterTitle(j))
                    chapter.bind(4, Int64(j + 1))
                    try chapter.run()
                }
            }
        }
    }

    func fetchGraph() throws -> Int64 {
        struct Book {
            var id: Int64
            var title: String
            var pages: Int64
            var authors: [String] = []
        }
        let books = try db.prepare("SELECT id, title, pages FROM book ORDER BY id")
        var list: [Book] = []
        var index: [Int64: Int] = [:]
        while try books.step() {
            index[books.int64(0)] = list.count
            list.append(Book(id: books.int64(0), title: books.string(1), pages: books.int64(2)))
        }
        let authors = try db.prepare(
            "SELECT ba.bookId, a.name FROM bookAuthor ba JOIN author a ON a.id = ba.authorId ORDER BY ba.bookId, a.id")
        while try authors.step() {
            if let i = index[authors.int64(0)] { list[i].authors.append(authors.string(1)) }
        }
        return list.reduce(0) { $0 &+ GraphData.fold(pages: $1.pages, title: $1.title, authorNames: $1.authors.sorted()) }
    }
}
