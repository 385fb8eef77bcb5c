import CoreStack
import Foundation

/// Writes the demo library straight into a store with batch inserts (``BatchInsertRequest``), a
/// few thousand books at a time, so that memory stays bounded and a million objects take seconds.
///
/// Its values come from ``DemoGenerator``, as ``DemoLibrary/populate(_:size:)``'s do, as rows
/// by position (`BatchInsertRequest(entityName:columns:rows:)`, with the generator's column lists:
/// no dictionary per object). Each chunk
/// of books reserves its IDs first (chapters, then books, then graphic novels: the order in which
/// `populate`'s save, and this writer before reserved IDs, gave out primary keys), then writes the
/// chapters, books and graphic novels in one save, the chapters with their book and their place
/// in its order in their own rows. So while all books fit in one chunk (sizes up to 10 ×
/// ``booksPerChunk``) the store is the one `populate` saves; larger sizes interleave the keys of
/// `Book` and `GraphicNovel` per chunk instead (still the same content for the same size every
/// time).
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
    /// Books (with their chapters) per save.
    var booksPerChunk = 5_000
    /// People or publishers per batch insert.
    var rowsPerRequest = 20_000

    /// Generates and writes every object, reporting after each save; call it on the context's queue.
    func write(progress: (DemoProgress) -> Void = { _ in }) throws -> DemoSummary {
        var generator = DemoGenerator(size: size)
        let shape = generator.shape
        var counts: [String: Int] = [:]
        var written = 0
        var expectedTotal = shape.expectedTotal
        /// Inserts the requests in one save and reports; returns each one's IDs.
        func insert(_ requests: [BatchInsertRequest]) throws -> [[ManagedObjectID]] {
            let requests = requests.filter { $0.objectCount > 0 }
            guard !requests.isEmpty else { return [] }
            let results = try context.executeBatchInsert(requests)
            for (request, result) in zip(requests, results) {
                counts[request.entityName, default: 0] += result.objectIDs.count
                written += result.objectIDs.count
            }
            progress(DemoProgress(written: written, expectedTotal: max(expectedTotal, written)))
            return results.map(\.objectIDs)
        }
        /// Inserts `count` rows of one entity (values named by `columns`), `rowsPerRequest` at a
        /// time, and returns their IDs.
        func insertAll(_ entity: String, columns: [String], count: Int, row: (Int) -> [AttributeValue]) throws -> [ManagedObjectID] {
            var ids: [ManagedObjectID] = []
            ids.reserveCapacity(count)
            var start = 0
            while start < count {
                let end = min(count, start + rowsPerRequest)
                ids += try insert([BatchInsertRequest(entityName: entity, columns: columns, rows: (start..<end).map(row))]).first ?? []
                start = end
            }
            return ids
        }

        let publishers = try insertAll("Publisher", columns: DemoGenerator.publisherColumns, count: shape.publishers) { generator.publisher($0) }
        let genres = try insertAll("Genre", columns: DemoGenerator.genreColumns, count: shape.genres) { generator.genre($0) }
        let authors = try insertAll("Author", columns: DemoGenerator.authorColumns, count: shape.authors) { generator.author($0) }
        let editors = try insertAll("Editor", columns: DemoGenerator.editorColumns, count: shape.editors) { generator.editor($0) }

        var chunkStart = 0
        while chunkStart < shape.books {
            let chunkEnd = min(shape.books, chunkStart + booksPerChunk)
            var chapterRows: [[AttributeValue]] = []
            var chapterOrder: [[Int]] = []  // per book of the chunk: its chapters' rows, by number
            var books = Shelf(entity: "Book", columns: DemoGenerator.bookColumns)
            var novels = Shelf(entity: "GraphicNovel", columns: DemoGenerator.graphicNovelColumns)
            for i in chunkStart..<chunkEnd {
                let book = generator.book(i, publishers: publishers.count, editors: editors.count, authors: authors.count, genres: genres.count)
                // Room for every link, "chapters" included (added once the chapters have IDs).
                var links = [String: [ManagedObjectID]](minimumCapacity: 5)
                links["publisher"] = [publishers[book.publisher]]
                if let editor = book.editor { links["editor"] = [editors[editor]] }
                links["authors"] = book.authors.map { authors[$0] }
                links["genres"] = book.genres.map { genres[$0] }
                chapterOrder.append(book.chapterOrder.map { chapterRows.count + $0 })
                chapterRows += book.chapters
                if book.isGraphicNovel {
                    novels.append(book.values, links, chunkIndex: i - chunkStart)
                } else {
                    books.append(book.values, links, chunkIndex: i - chunkStart)
                }
            }
            expectedTotal = written + chapterRows.count + (chunkEnd - chunkStart) + (shape.books - chunkEnd) * 8
            // Keys in the order the writes without reserved IDs took them: chapters, books, novels.
            let chapterIDs = try context.reserveObjectIDs(forEntityName: "Chapter", count: chapterRows.count)
            var requests = [
                BatchInsertRequest(entityName: "Chapter", columns: DemoGenerator.chapterColumns, rows: chapterRows, objectIDs: chapterIDs)
            ]
            chapterRows = []
            /// Reserves the shelf's IDs and adds its request (its links completed in place, not copied).
            func add(_ shelf: inout Shelf) throws {
                let ids = try context.reserveObjectIDs(forEntityName: shelf.entity, count: shelf.rows.count)
                requests.append(shelf.request(objectIDs: ids, chapterIDs: chapterIDs, chapterOrder: chapterOrder))
            }
            try add(&books)
            try add(&novels)
            _ = try insert(requests)
            chunkStart = chunkEnd
        }
        progress(DemoProgress(written: written, expectedTotal: written, isFinished: true))
        return DemoSummary(counts: counts)
    }

    /// The books or graphic novels of one chunk, waiting for their chapters' IDs.
    private struct Shelf {
        let entity: String
        /// The attribute names of ``rows``.
        let columns: [String]
        var rows: [[AttributeValue]] = []
        var links: [[String: [ManagedObjectID]]] = []
        /// Each one's position in the chunk (where its chapter order is).
        var chunkIndexes: [Int] = []

        mutating func append(_ values: [AttributeValue], _ links: [String: [ManagedObjectID]], chunkIndex: Int) {
            rows.append(values)
            self.links.append(links)
            chunkIndexes.append(chunkIndex)
        }

        /// The shelf's batch insert under `ids`, each one's `chapters` set to its chapters'
        /// `chapterIDs` in the book's order (`chapterOrder`, by chunk index).
        mutating func request(objectIDs ids: [ManagedObjectID], chapterIDs: [ManagedObjectID], chapterOrder: [[Int]]) -> BatchInsertRequest {
            for (n, index) in chunkIndexes.enumerated() {
                links[n]["chapters"] = chapterOrder[index].map { chapterIDs[$0] }
            }
            return BatchInsertRequest(entityName: entity, columns: columns, rows: rows, relationships: links, objectIDs: ids)
        }
    }
}
