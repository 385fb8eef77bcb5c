import CoreStack
import Foundation

/// Writes the demo library straight into a store with batch inserts (``BatchInsertRequest``), a
/// few thousand books at a time, so that memory stays bounded and a million objects take seconds.
///
/// It draws from the generator in exactly the order ``DemoLibrary/populate(_:size:)`` does, and
/// writes each entity in the order that method's save gives out primary keys, so while all books
/// fit in one chunk (sizes up to 10 × ``booksPerChunk``) the store is the one `populate` saves.
/// Larger sizes interleave the keys of `Book` and `GraphicNovel` per chunk instead (still the same
/// content for the same size every time).
///
/// ```swift
/// let summary = try context.performAndWait {
///     try DemoBatchWriter(context: context, size: 1_000_000).write { print($0.written) }
/// }
/// ```
struct DemoBatchWriter {
    /// A context on the demo model whose store receives the rows; used on its queue.
    let context: ManagedObjectContext
    let size: Int
    /// Books (with their chapters) per round of batch inserts.
    var booksPerChunk = 5_000
    /// People or publishers per batch insert.
    var rowsPerRequest = 20_000

    /// Generates and writes every object, reporting after each batch insert; call it on the
    /// context's queue.
    func write(progress: (DemoProgress) -> Void = { _ in }) throws -> DemoSummary {
        var rng = SplitMix64(seed: DemoLibrary.seed ^ UInt64(truncatingIfNeeded: size))
        let shape = DemoShape(size: size)
        var counts: [String: Int] = [:]
        var written = 0
        var expectedTotal = shape.expectedTotal
        func insert(_ entity: String, _ objects: [[String: AttributeValue]], _ relationships: [[String: [ManagedObjectID]]] = []) throws -> [ManagedObjectID] {
            guard !objects.isEmpty else { return [] }
            let ids = try context.executeBatchInsert(
                BatchInsertRequest(entityName: entity, objects: objects, relationships: relationships)).objectIDs
            counts[entity, default: 0] += ids.count
            written += ids.count
            progress(DemoProgress(written: written, expectedTotal: max(expectedTotal, written)))
            return ids
        }
        /// Inserts `count` rows of one entity, `rowsPerRequest` at a time, and returns their IDs.
        func insertAll(_ entity: String, count: Int, row: (Int) -> [String: AttributeValue]) throws -> [ManagedObjectID] {
            var ids: [ManagedObjectID] = []
            ids.reserveCapacity(count)
            var start = 0
            while start < count {
                let end = min(count, start + rowsPerRequest)
                ids += try insert(entity, (start..<end).map(row))
                start = end
            }
            return ids
        }

        let publishers = try insertAll("Publisher", count: shape.publishers) { i in
            let base = DemoLibrary.publisherNames[i % DemoLibrary.publisherNames.count]
            let name = i < DemoLibrary.publisherNames.count ? base.name : "\(base.name) \(i / DemoLibrary.publisherNames.count + 1)"
            return [
                "name": .string(name), "city": .string(base.city), "founded": .integer(Int64(rng.int(in: 1850...2015))),
                "uuid": .uuid(DemoLibrary.uuid(&rng)),
            ]
        }
        let genres = try insertAll("Genre", count: shape.genres) { i in
            ["name": .string(DemoLibrary.genreNames[i]), "code": .integer(Int64(100 + i))]
        }
        let authors = try insertAll("Author", count: shape.authors) { i in
            let name = i < DemoLibrary.fixedAuthorNames.count ? DemoLibrary.fixedAuthorNames[i] : DemoLibrary.personName(&rng)
            let born = DemoLibrary.day(&rng, yearsFrom2001: -80 ... -10)
            let email: AttributeValue = rng.chance(0.8) ? .string("author\(i + 1)@example.org") : .null
            let website: AttributeValue = rng.chance(0.6) ? URL(string: "https://authors.example.org/\(i + 1)").map { .url($0) } ?? .null : .null
            let rating = Double(rng.int(in: 10...50)) / 10
            return ["name": .string(name), "born": .date(born), "email": email, "website": website, "rating": .double(rating)]
        }
        let editors = try insertAll("Editor", count: shape.editors) { i in
            let name = DemoLibrary.personName(&rng)
            let born = DemoLibrary.day(&rng, yearsFrom2001: -70 ... -25)
            return [
                "name": .string(name), "born": .date(born), "email": .string("editor\(i + 1)@example.org"),
                "yearsActive": .integer(Int64(rng.int(in: 1...40))),
            ]
        }

        var chunkStart = 0
        while chunkStart < shape.books {
            let chunkEnd = min(shape.books, chunkStart + booksPerChunk)
            var chapterRows: [[String: AttributeValue]] = []
            var chapterOrder: [[Int]] = []  // per book of the chunk: its chapters' rows, by number
            var books = Shelf(entity: "Book"), novels = Shelf(entity: "GraphicNovel")
            for i in chunkStart..<chunkEnd {
                var values: [String: AttributeValue] = [:]
                if i % 5 == 4 {
                    values["illustrator"] = .string(DemoLibrary.personName(&rng))
                    values["inColour"] = .bool(rng.chance(0.7))
                }
                values["title"] = .string(i < DemoLibrary.fixedTitles.count ? DemoLibrary.fixedTitles[i] : DemoLibrary.bookTitle(&rng))
                values["isbn"] = .string("978-\(rng.int(in: 0...9))-\(rng.int(in: 1000...9999))-\(rng.int(in: 1000...9999))-\(rng.int(in: 0...9))")
                let pages = rng.int(in: 48...900)
                values["pages"] = .integer(Int64(pages))
                values["wordCount"] = .integer(Int64(pages) * Int64(rng.int(in: 250...400)))
                values["edition"] = .integer(Int64(rng.int(in: 1...5)))
                values["price"] = .decimal(Decimal(rng.int(in: 499...4999)) / Decimal(100))
                values["rating"] = .double(Double(rng.int(in: 10...50)) / 10)
                values["published"] = .date(DemoLibrary.day(&rng, yearsFrom2001: -60...23))
                values["inPrint"] = .bool(rng.chance(0.75))
                values["uuid"] = .uuid(DemoLibrary.uuid(&rng))
                values["cover"] = .data(Data(rng.bytes(rng.int(in: 8...32))))
                values["homepage"] = rng.chance(0.5) ? URL(string: "https://books.example.org/\(i + 1)").map { .url($0) } ?? .null : .null
                var links: [String: [ManagedObjectID]] = ["publisher": [rng.pick(publishers)]]
                if rng.chance(0.9) { links["editor"] = [rng.pick(editors)] }
                links["authors"] = rng.distinctIndexes(rng.int(in: 1...3), below: authors.count).map { authors[$0] }
                links["genres"] = rng.distinctIndexes(rng.int(in: 1...3), below: genres.count).map { genres[$0] }

                // Chapters in a shuffled order, as populate inserts them; the book lists them by number.
                let chapterCount = rng.int(in: 2...12)
                var numbers = Array(1...chapterCount)
                for j in stride(from: numbers.count - 1, to: 0, by: -1) { numbers.swapAt(j, rng.int(in: 0...j)) }
                var rowsByNumber = [Int](repeating: 0, count: chapterCount)
                for n in numbers {
                    let title = n == 1 ? "Chapter 1: \(DemoLibrary.chapterWords[0])" : "Chapter \(n): \(rng.pick(DemoLibrary.chapterWords))"
                    rowsByNumber[n - 1] = chapterRows.count
                    chapterRows.append(["number": .integer(Int64(n)), "title": .string(title), "wordCount": .integer(Int64(rng.int(in: 1500...9000)))])
                }
                chapterOrder.append(rowsByNumber)
                if i % 5 == 4 { novels.append(values, links, chunkIndex: i - chunkStart) } else { books.append(values, links, chunkIndex: i - chunkStart) }
            }
            expectedTotal = written + chapterRows.count + (chunkEnd - chunkStart) + (shape.books - chunkEnd) * 8
            let chapterIDs = try insert("Chapter", chapterRows)
            chapterRows = []
            for shelf in [books, novels] {
                var links = shelf.links
                for (n, index) in shelf.chunkIndexes.enumerated() {
                    links[n]["chapters"] = chapterOrder[index].map { chapterIDs[$0] }
                }
                _ = try insert(shelf.entity, shelf.values, links)
            }
            chunkStart = chunkEnd
        }
        progress(DemoProgress(written: written, expectedTotal: written, isFinished: true))
        return DemoSummary(counts: counts)
    }

    /// The books or graphic novels of one chunk, waiting for their chapters' IDs.
    private struct Shelf {
        let entity: String
        var values: [[String: AttributeValue]] = []
        var links: [[String: [ManagedObjectID]]] = []
        /// Each one's position in the chunk (where its chapter order is).
        var chunkIndexes: [Int] = []

        mutating func append(_ values: [String: AttributeValue], _ links: [String: [ManagedObjectID]], chunkIndex: Int) {
            self.values.append(values)
            self.links.append(links)
            chunkIndexes.append(chunkIndex)
        }
    }
}
