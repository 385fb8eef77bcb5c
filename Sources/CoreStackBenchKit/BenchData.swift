import Foundation

/// One row of the item workloads: six attributes (integer, two strings, integer, double, date).
public struct ItemData: Sendable {
    public var code: Int64
    public var name: String
    public var category: String
    public var quantity: Int64
    public var price: Double
    /// Seconds since the reference date, as Core Data stores dates.
    public var created: Double

    /// The deterministic item number `code` (1-based).
    public init(code: Int64) {
        self.code = code
        name = "Item \(code)"
        category = "category-\(code % 20)"
        // 7919 is prime to 1000: every block of 1000 codes holds each quantity once, so
        // `quantity < 10` selects exactly 1% of the rows.
        quantity = (code &* 7919) % 1000
        price = Double((code &* 104_729) % 100_000) / 100
        created = 700_000_000 + Double(code) * 60
    }

    public static func make(count: Int) -> [ItemData] {
        (0..<max(0, count)).map { ItemData(code: Int64($0 + 1)) }
    }

    /// What every contender folds over the values it read, so results can be compared.
    @inline(__always)
    public static func fold(_ code: Int64, _ name: String, _ category: String, _ quantity: Int64, _ price: Double, _ created: Double) -> Int64 {
        code &+ Int64(name.utf8.count) &+ Int64(category.utf8.count) &* 3 &+ quantity &* 7
            &+ Int64((price * 100).rounded()) &+ Int64(created.rounded()) % 1_000_003
    }
}

/// The object graph of workload 7: books, a pool of authors (three per book, many-to-many) and
/// ten ordered chapters per book.
public struct GraphData: Sendable {
    public var bookCount: Int
    public var authorCount: Int
    public static let chaptersPerBook = 10
    public static let authorsPerBook = 3

    public init(books: Int) {
        bookCount = max(1, books)
        authorCount = max(Self.authorsPerBook, books / 4)
    }

    public func title(book i: Int) -> String { "Book \(i + 1)" }
    public func pages(book i: Int) -> Int64 { Int64(100 + i % 400) }
    public func name(author k: Int) -> String { "Author \(k + 1)" }
    public func chapterTitle(_ j: Int) -> String { "Chapter \(j + 1)" }
    /// The distinct author indexes (0-based) of book `i`.
    public func authors(book i: Int) -> [Int] {
        let first = (i * Self.authorsPerBook) % authorCount
        return (0..<Self.authorsPerBook).map { (first + $0) % authorCount }
    }

    /// What a fetch of the books with their authors folds: pages, title lengths and author names.
    public static func fold(pages: Int64, title: String, authorNames: [String]) -> Int64 {
        var v = pages &+ Int64(title.utf8.count) &* 31
        for n in authorNames { v &+= Int64(n.utf8.count) &* 7 &+ Int64(n.utf8.last ?? 0) }
        return v
    }
}
