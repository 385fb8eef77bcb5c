import CoreStack
import Foundation

/// The demo library's content, drawn from one seeded generator in a fixed order: the single
/// source of the values that ``DemoLibrary/populate(_:size:)`` inserts as objects and
/// ``DemoBatchWriter`` writes with batch inserts, so the two cannot drift apart.
///
/// Draw the publishers, genres, authors and editors first, each in index order, then the books in
/// index order (each book draws its chapters); the same size then gives the same content.
///
/// Each object comes as a row: its values in the order of its entity's column list
/// (``publisherColumns`` and the others: every attribute of the entity, in the model's slot
/// order), as a `BatchInsertRequest(entityName:columns:rows:)` takes them, `.null` for an optional
/// value left out.
///
/// ```swift
/// var generator = DemoGenerator(size: 300)
/// let publishers = (0..<generator.shape.publishers).map { generator.publisher($0) }
/// // … genres, authors, editors …
/// let book = generator.book(0, publishers: publishers.count, editors: 10, authors: 30, genres: 12)
/// book.value(of: "title")   // .string("L’Écume des jours 📚")
/// ```
struct DemoGenerator {
    /// How many objects of each kind the size gives.
    let shape: DemoShape
    private var rng: SplitMix64

    /// A generator for a demo store of about `size` objects.
    init(size: Int) {
        shape = DemoShape(size: size)
        rng = SplitMix64(seed: DemoLibrary.seed ^ UInt64(truncatingIfNeeded: size))
    }

    /// The attribute names of ``publisher(_:)``'s rows.
    static let publisherColumns = ["name", "city", "founded", "uuid"]
    /// The attribute names of ``genre(_:)``'s rows.
    static let genreColumns = ["name", "code"]
    /// The attribute names of ``author(_:)``'s rows (`Person`'s, then `Author`'s).
    static let authorColumns = ["name", "born", "email", "website", "rating"]
    /// The attribute names of ``editor(_:)``'s rows (`Person`'s, then `Editor`'s).
    static let editorColumns = ["name", "born", "email", "yearsActive"]
    /// The attribute names of a `Book`'s ``Book/values``.
    static let bookColumns = [
        "title", "isbn", "pages", "wordCount", "edition", "price", "rating", "published", "inPrint", "uuid", "cover", "homepage",
    ]
    /// The attribute names of a `GraphicNovel`'s ``Book/values`` (`Book`'s, then its own).
    static let graphicNovelColumns = bookColumns + ["illustrator", "inColour"]
    /// The attribute names of each of ``Book/chapters``.
    static let chapterColumns = ["title", "number", "wordCount"]

    /// One generated book (or graphic novel) with its links and chapters.
    struct Book {
        /// Every fifth book is a `GraphicNovel`.
        var isGraphicNovel: Bool
        /// The entity to insert it as.
        var entityName: String { isGraphicNovel ? "GraphicNovel" : "Book" }
        /// The names of ``values``: ``DemoGenerator/bookColumns`` or ``DemoGenerator/graphicNovelColumns``.
        var columns: [String] { isGraphicNovel ? DemoGenerator.graphicNovelColumns : DemoGenerator.bookColumns }
        /// Attribute values in the order of ``columns`` (`.null` for optional values left out).
        var values: [AttributeValue]
        /// Index of its publisher among the publishers drawn.
        var publisher: Int
        /// Index of its editor among the editors drawn, if it has one.
        var editor: Int?
        /// Indexes of its authors among the authors drawn, ascending.
        var authors: [Int]
        /// Indexes of its genres among the genres drawn, ascending.
        var genres: [Int]
        /// Its chapters' values (in the order of ``DemoGenerator/chapterColumns``) in the
        /// (shuffled) order they are inserted, so that primary keys do not give the order; each
        /// has its `number`.
        var chapters: [[AttributeValue]]
        /// Positions in ``chapters`` in the book's order (by chapter number).
        var chapterOrder: [Int]

        /// The value of attribute `name`, nil for a name not among ``columns``.
        func value(of name: String) -> AttributeValue? {
            columns.firstIndex(of: name).map { values[$0] }
        }
    }

    /// The values of publisher `i`, in the order of ``publisherColumns``.
    mutating func publisher(_ i: Int) -> [AttributeValue] {
        let names = DemoLibrary.publisherNames
        let base = names[i % names.count]
        let name = i < names.count ? base.name : "\(base.name) \(i / names.count + 1)"
        let founded = rng.int(in: 1850...2015)
        return [.string(name), .string(base.city), .integer(Int64(founded)), .uuid(DemoLibrary.uuid(&rng))]
    }

    /// The values of genre `i`, in the order of ``genreColumns``.
    mutating func genre(_ i: Int) -> [AttributeValue] {
        [.string(DemoLibrary.genreNames[i]), .integer(Int64(100 + i))]
    }

    /// The values of author `i`, in the order of ``authorColumns``.
    mutating func author(_ i: Int) -> [AttributeValue] {
        let name = i < DemoLibrary.fixedAuthorNames.count ? DemoLibrary.fixedAuthorNames[i] : DemoLibrary.personName(&rng)
        let born = DemoLibrary.day(&rng, yearsFrom2001: -80 ... -10)
        let email: AttributeValue = rng.chance(0.8) ? .string("author\(i + 1)@example.org") : .null
        let website: AttributeValue = rng.chance(0.6) ? URL(string: "https://authors.example.org/\(i + 1)").map { .url($0) } ?? .null : .null
        let rating = Double(rng.int(in: 10...50)) / 10
        return [.string(name), .date(born), email, website, .double(rating)]
    }

    /// The values of editor `i`, in the order of ``editorColumns``.
    mutating func editor(_ i: Int) -> [AttributeValue] {
        let name = DemoLibrary.personName(&rng)
        let born = DemoLibrary.day(&rng, yearsFrom2001: -70 ... -25)
        return [.string(name), .date(born), .string("editor\(i + 1)@example.org"), .integer(Int64(rng.int(in: 1...40)))]
    }

    /// Book `i`, linked to objects among the given numbers of publishers, editors, authors and genres.
    mutating func book(_ i: Int, publishers: Int, editors: Int, authors: Int, genres: Int) -> Book {
        let isGraphicNovel = i % 5 == 4
        // A graphic novel draws its own values first, and stores them after Book's.
        let illustrator = isGraphicNovel ? DemoLibrary.personName(&rng) : nil
        let inColour = isGraphicNovel ? rng.chance(0.7) : nil
        var values: [AttributeValue] = []
        values.reserveCapacity(Self.graphicNovelColumns.count)
        // In the order of `bookColumns`, drawn in that order.
        values.append(.string(i < DemoLibrary.fixedTitles.count ? DemoLibrary.fixedTitles[i] : DemoLibrary.bookTitle(&rng)))
        values.append(.string(Self.isbn(&rng)))
        let pages = rng.int(in: 48...900)
        values.append(.integer(Int64(pages)))
        values.append(.integer(Int64(pages) * Int64(rng.int(in: 250...400))))
        values.append(.integer(Int64(rng.int(in: 1...5))))
        values.append(.decimal(Self.cents(rng.int(in: 499...4999))))
        values.append(.double(Double(rng.int(in: 10...50)) / 10))
        values.append(.date(DemoLibrary.day(&rng, yearsFrom2001: -60...23)))
        values.append(.bool(rng.chance(0.75)))
        values.append(.uuid(DemoLibrary.uuid(&rng)))
        values.append(.data(Data(rng.bytes(rng.int(in: 8...32)))))
        values.append(rng.chance(0.5) ? URL(string: "https://books.example.org/\(i + 1)").map { .url($0) } ?? .null : .null)
        if let illustrator, let inColour {
            values.append(.string(illustrator))
            values.append(.bool(inColour))
        }
        let publisher = rng.int(in: 0...(publishers - 1))
        let editor = rng.chance(0.9) ? rng.int(in: 0...(editors - 1)) : nil
        let authorIndexes = rng.distinctIndexes(rng.int(in: 1...3), below: authors)
        let genreIndexes = rng.distinctIndexes(rng.int(in: 1...3), below: genres)

        // Chapters in a shuffled order; the book lists them by number.
        let chapterCount = rng.int(in: 2...12)
        var numbers = Array(1...chapterCount)
        for j in stride(from: numbers.count - 1, to: 0, by: -1) { numbers.swapAt(j, rng.int(in: 0...j)) }
        var chapters: [[AttributeValue]] = []
        var order = [Int](repeating: 0, count: chapterCount)
        chapters.reserveCapacity(chapterCount)
        for n in numbers {
            // The titles come from a table made once (the same strings as formatting each one).
            let title = n == 1 ? Self.chapterTitles[0][0] : Self.chapterTitles[n - 1][rng.int(in: 0...(DemoLibrary.chapterWords.count - 1))]
            order[n - 1] = chapters.count
            chapters.append([.string(title), .integer(Int64(n)), .integer(Int64(rng.int(in: 1500...9000)))])
        }
        return Book(
            isGraphicNovel: isGraphicNovel, values: values, publisher: publisher, editor: editor, authors: authorIndexes,
            genres: genreIndexes, chapters: chapters, chapterOrder: order)
    }

    /// `cents` hundredths as a decimal: the significand with exponent −2, made directly (a Decimal
    /// division costs far more); Foundation drops trailing zeros (1250 gives 125 × 10⁻¹).
    static func cents(_ cents: Int) -> Decimal {
        Decimal(sign: .plus, exponent: -2, significand: Decimal(cents))
    }

    /// `Chapter N: word` for N in 1…12 (`[N − 1]`) and every chapter word (by index).
    static let chapterTitles: [[String]] = (1...12).map { n in DemoLibrary.chapterWords.map { "Chapter \(n): \($0)" } }

    /// An ISBN-like `978-d-dddd-dddd-d`, its four numbers drawn in that order, written as bytes
    /// (string interpolation of four numbers cost more than the rest of a book's values).
    static func isbn(_ rng: inout SplitMix64) -> String {
        let group = rng.int(in: 0...9), first = rng.int(in: 1000...9999), second = rng.int(in: 1000...9999), check = rng.int(in: 0...9)
        return String(unsafeUninitializedCapacity: 17) { buffer in
            var n = 0
            func put(_ byte: UInt8) { buffer[n] = byte; n += 1 }
            func digits(_ value: Int, _ count: Int) {
                var divisor = 1
                for _ in 1..<count { divisor *= 10 }
                var v = value
                while divisor > 0 { put(UInt8(ascii: "0") + UInt8(v / divisor)); v %= divisor; divisor /= 10 }
            }
            for b in "978-".utf8 { put(b) }
            digits(group, 1); put(UInt8(ascii: "-"))
            digits(first, 4); put(UInt8(ascii: "-"))
            digits(second, 4); put(UInt8(ascii: "-"))
            digits(check, 1)
            return n
        }
    }
}
