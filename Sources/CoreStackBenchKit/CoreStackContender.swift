import CoreStack
import Foundation

/// The item entity of workloads 1–6 and 8.
final class BenchItem: ManagedObject {
    @Attribute("code") var code: Int64
    @Attribute("name") var name: String
    @Attribute("category") var category: String
    @Attribute("quantity") var quantity: Int64
    @Attribute("price") var price: Double
    @Attribute("created") var created: Date?

    var fold: Int64 {
        ItemData.fold(code, name, category, quantity, price, created?.timeIntervalSinceReferenceDate ?? 0)
    }
}

final class BenchBook: ManagedObject {
    @Attribute("title") var title: String
    @Attribute("pages") var pages: Int64
    @ToMany("authors") var authors: Set<BenchAuthor>
    @OrderedToMany("chapters") var chapters: [BenchChapter]
}

final class BenchAuthor: ManagedObject {
    @Attribute("name") var name: String
    @ToMany("books") var books: Set<BenchBook>
}

final class BenchChapter: ManagedObject {
    @Attribute("title") var title: String
    @Attribute("number") var number: Int64
    @ToOne("book") var book: BenchBook?
}

/// The benchmark's CoreStack model.
public enum BenchModel {
    public static func make() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionName: "Bench") {
            EntityDescription("Item", class: BenchItem.self) {
                AttributeDescription("code", .integer64, isOptional: false, defaultValue: 0)
                AttributeDescription("name", .string, isOptional: false)
                AttributeDescription("category", .string, isOptional: false)
                AttributeDescription("quantity", .integer32, isOptional: false, defaultValue: 0)
                AttributeDescription("price", .double, isOptional: false, defaultValue: 0.0)
                AttributeDescription("created", .date)
            }
            EntityDescription("Book", class: BenchBook.self) {
                AttributeDescription("title", .string, isOptional: false)
                AttributeDescription("pages", .integer32, isOptional: false, defaultValue: 0)
                RelationshipDescription("authors", destination: "Author", inverse: "books", toMany: true)
                RelationshipDescription("chapters", destination: "Chapter", inverse: "book", toMany: true, isOrdered: true, deleteRule: .cascade)
            }
            EntityDescription("Author", class: BenchAuthor.self) {
                AttributeDescription("name", .string, isOptional: false)
                RelationshipDescription("books", destination: "Book", inverse: "authors", toMany: true)
            }
            EntityDescription("Chapter", class: BenchChapter.self) {
                AttributeDescription("title", .string, isOptional: false)
                AttributeDescription("number", .integer16, isOptional: false, defaultValue: 0)
                RelationshipDescription("book", destination: "Book", inverse: "chapters")
            }
        }
    }
}

/// Throws the first error a typed accessor swallowed.
func checkAccessors(_ o: ManagedObject) throws {
    if let e = o.lastAccessorError { throw e }
}

/// CoreStack: a private-queue root context on a coordinator with an SQLite store.
public struct CoreStackContender: Contender {
    public var name: String { ContenderName.coreStack }
    public let model: ManagedObjectModel

    public init() throws { model = try BenchModel.make() }

    public func createStore(at url: URL) throws { _ = try SQLiteStore(url: url, model: model) }

    public func open(_ url: URL) throws -> any BenchSession {
        try CoreStackSession(url: url, model: model)
    }
}

final class CoreStackSession: BenchSession {
    let store: SQLiteStore
    let coordinator: PersistentStoreCoordinator
    let context: ManagedObjectContext
    var ids: [ManagedObjectID] = []

    init(url: URL, model: ManagedObjectModel) throws {
        store = try SQLiteStore(url: url, model: model)
        coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(store)
        // `corestack-bench --row-cache-limit N|none` (through the environment, so W3's child
        // process sees it too).
        if let raw = ProcessInfo.processInfo.environment[rowCacheLimitVariable] {
            coordinator.rowCacheLimit = raw == "none" ? nil : Int(raw) ?? PersistentStoreCoordinator.defaultRowCacheLimit
        }
        context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: "bench")
    }

    func insert(_ items: [ItemData]) throws {
        try context.performAndWait {
            try CoreStackSession.insert(items, into: context)
            try context.save()
        }
    }

    static func insert(_ items: [ItemData], into context: ManagedObjectContext) throws {
        for item in items {
            let o = try context.insert(BenchItem.self)
            o.code = item.code
            o.name = item.name
            o.category = item.category
            o.quantity = item.quantity
            o.price = item.price
            o.created = Date(timeIntervalSinceReferenceDate: item.created)
            try checkAccessors(o)
        }
    }

    private func items(_ configure: (inout FetchRequest<BenchItem>) -> Void) throws -> [BenchItem] {
        var request = FetchRequest<BenchItem>(entityName: "Item")
        configure(&request)
        return try context.fetch(request)
    }

    func fetchAll() throws -> Int64 {
        try context.performAndWait {
            let objects = try items { $0.returnsObjectsAsFaults = false }
            return objects.reduce(0) { $0 &+ $1.fold }
        }
    }

    func fetchBatched(batchSize: Int) throws -> Int64 {
        try context.performAndWait {
            // A batched result: objects made a batch at a time, passed batches released.
            var request = FetchRequest<BenchItem>(entityName: "Item")
            request.fetchBatchSize = batchSize
            let objects = try context.fetchBatched(request)
            var total: Int64 = 0
            for o in objects { total &+= o.fold }
            return total
        }
    }

    func prepare(codes: [Int64]) throws {
        // Primary keys follow insertion order, so item `code` has Z_PK `code`; an ID comes from
        // its URI, as an app would keep it.
        ids = try codes.map { code in
            guard let url = URL(string: "x-coredata://\(store.identifier)/Item/p\(code)"),
                let id = coordinator.managedObjectID(forURIRepresentation: url)
            else { throw BenchError.usage("no object ID for item \(code)") }
            return id
        }
    }

    func update() throws -> Int64 {
        try context.performAndWait {
            let list = Expression.list(ids.map { Expression.object($0) })
            let objects = try items {
                $0.predicate = .comparison(Comparison(.evaluatedObject, .in, list))
                $0.returnsObjectsAsFaults = false
            }
            var total: Int64 = 0
            for o in objects {
                o.price += 1
                o.category = "updated"
                try checkAccessors(o)
                total &+= Int64((o.price * 100).rounded())
            }
            try context.save()
            return total
        }
    }

    func lookup() throws -> Int64 {
        try context.performAndWait {
            var total: Int64 = 0
            for id in ids {
                guard let o = try context.existingObject(with: id) as? BenchItem else { continue }
                total &+= o.fold
            }
            return total
        }
    }

    func predicateFetch(threshold: Int64) throws -> Int64 {
        try context.performAndWait {
            let objects = try items {
                $0.predicate = .key("quantity") < .integer(threshold)
                $0.sortDescriptors = [SortDescriptor("name")]
                $0.returnsObjectsAsFaults = false
            }
            return RawSession.orderedFold(objects.map(\.fold))
        }
    }

    func insertGraph(_ g: GraphData) throws {
        try context.performAndWait {
            var authors: [BenchAuthor] = []
            authors.reserveCapacity(g.authorCount)
            for k in 0..<g.authorCount {
                let a = try context.insert(BenchAuthor.self)
                a.name = g.name(author: k)
                authors.append(a)
            }
            for i in 0..<g.bookCount {
                let b = try context.insert(BenchBook.self)
                b.title = g.title(book: i)
                b.pages = g.pages(book: i)
                var chapters: [BenchChapter] = []
                for j in 0..<GraphData.chaptersPerBook {
                    let c = try context.insert(BenchChapter.self)
                    c.title = g.chapterTitle(j)
                    c.number = Int64(j + 1)
                    chapters.append(c)
                }
                b.chapters = chapters
                b.authors = Set(g.authors(book: i).map { authors[$0] })
                try checkAccessors(b)
            }
            try context.save()
        }
    }

    func fetchGraph() throws -> Int64 {
        try context.performAndWait {
            var request = FetchRequest<BenchBook>(entityName: "Book")
            request.returnsObjectsAsFaults = false
            request.relationshipKeyPathsForPrefetching = ["authors"]
            let books = try context.fetch(request)
            var total: Int64 = 0
            for b in books {
                total &+= GraphData.fold(pages: b.pages, title: b.title, authorNames: b.authors.map(\.name).sorted())
                try checkAccessors(b)
            }
            return total
        }
    }
}

/// The environment variable that sets the CoreStack sessions' row-cache limit (a row count or
/// `none`); unset, the coordinator's default.
public let rowCacheLimitVariable = "CORESTACK_BENCH_ROW_CACHE_LIMIT"
