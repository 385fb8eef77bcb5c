import CoreStack
import Foundation

/// What the demo generator inserted, per concrete entity.
public struct DemoSummary: Sendable, Equatable {
    /// Concrete entity name → objects inserted (abstract `Person` has none of its own).
    public var counts: [String: Int]
    /// Every object inserted.
    public var total: Int { counts.values.reduce(0, +) }
}

extension DemoLibrary {
    /// The seed every demo store starts from; the size is mixed in, so each size has its own content.
    static let seed: UInt64 = 0x00C0_FFEE_B00C_5EED

    /// Writes a new demo store at `url`: about `size` objects (publishers, genres, authors, editors,
    /// books, graphic novels and their chapters). The same size gives the same content every time.
    /// An existing demo store at `url` is replaced; any other existing file is refused
    /// (``StackScopeError/fileExists(path:)``) and left as it is.
    ///
    /// The objects go straight into the store with batch inserts, a few thousand books at a time
    /// (no managed objects), and `progress` hears after each one; the content is what
    /// ``populate(_:size:)`` saves.
    ///
    /// ```swift
    /// let summary = try DemoLibrary.create(at: URL(fileURLWithPath: "/tmp/library.sqlite"))
    /// summary.counts["Book"] // 24
    /// try DemoLibrary.create(at: URL(fileURLWithPath: "/tmp/big.sqlite"), size: 1_000_000) { print($0.written) }
    /// ```
    @discardableResult
    public static func create(
        at url: URL, size: Int = 300, files: any StoreFileAccess = StoreFiles.standard,
        progress: (DemoProgress) -> Void = { _ in }
    ) throws -> DemoSummary {
        guard size >= 1 else { throw StackScopeError.invalidOption(name: "--size", reason: "\(size) is not a positive number") }
        guard size <= 1_000_000 else { throw StackScopeError.invalidOption(name: "--size", reason: "\(size) is more than 1000000") }
        let model = try model()
        if let existing = try? files.metadata(at: url), matches(existing) {
            try files.removeStore(at: url)
        }
        let store = try files.createStore(at: url, model: model)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(store)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator, name: "demo")
        let summary = try context.performAndWait { try DemoBatchWriter(context: context, size: size).write(progress: progress) }
        coordinator.removePersistentStore()
        return summary
    }

    /// Inserts the demo objects for `size` into `context` (whose model must be the demo model) and
    /// saves. Call it on the context's queue.
    @discardableResult
    public static func populate(_ context: ManagedObjectContext, size: Int) throws -> DemoSummary {
        var generator = DemoGenerator(size: size)
        let shape = generator.shape
        var counts: [String: Int] = [:]
        /// Inserts one object of `entity` with `values`, named by `columns`.
        func insert(_ entity: String, _ columns: [String], _ values: [AttributeValue]) throws -> ManagedObject {
            let o = try context.insertObject(forEntityName: entity)
            for (key, value) in zip(columns, values) where value != .null { try o.setAttributeValue(value, forKey: key) }
            counts[entity, default: 0] += 1
            return o
        }

        let publishers = try (0..<shape.publishers).map { try insert("Publisher", DemoGenerator.publisherColumns, generator.publisher($0)) }
        let genres = try (0..<shape.genres).map { try insert("Genre", DemoGenerator.genreColumns, generator.genre($0)) }
        let authors = try (0..<shape.authors).map { try insert("Author", DemoGenerator.authorColumns, generator.author($0)) }
        let editors = try (0..<shape.editors).map { try insert("Editor", DemoGenerator.editorColumns, generator.editor($0)) }

        // Books, every fifth one a graphic novel, each with its chapters in order.
        for i in 0..<shape.books {
            let drawn = generator.book(i, publishers: publishers.count, editors: editors.count, authors: authors.count, genres: genres.count)
            let book = try insert(drawn.entityName, drawn.columns, drawn.values)
            try book.setObject(publishers[drawn.publisher], forKey: "publisher")
            if let editor = drawn.editor { try book.setObject(editors[editor], forKey: "editor") }
            try book.setObjects(drawn.authors.map { authors[$0] }, forKey: "authors")
            try book.setObjects(drawn.genres.map { genres[$0] }, forKey: "genres")
            let chapters = try drawn.chapters.map { try insert("Chapter", DemoGenerator.chapterColumns, $0) }
            try book.setObjects(drawn.chapterOrder.map { chapters[$0] }, forKey: "chapters")
        }
        // Permanent IDs one entity at a time, in insertion order: the coordinator hands out keys to
        // several entities of one tree (Book, GraphicNovel) in no fixed order when asked for all at once.
        var groups: [String: [ManagedObject]] = [:]
        var groupOrder: [String] = []
        for o in context.inserted {
            if groups[o.entity.name] == nil { groupOrder.append(o.entity.name) }
            groups[o.entity.name, default: []].append(o)
        }
        for name in groupOrder { try context.obtainPermanentIDs(for: groups[name] ?? []) }
        try context.save()
        return DemoSummary(counts: counts)
    }

    // MARK: Values

    static func uuid(_ rng: inout SplitMix64) -> UUID {
        var b = rng.bytes(16)
        b[6] = (b[6] & 0x0F) | 0x40  // version 4
        b[8] = (b[8] & 0x3F) | 0x80  // RFC 4122 variant
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }

    /// Midnight UTC of a day some years before or after 2001-01-01.
    static func day(_ rng: inout SplitMix64, yearsFrom2001 years: ClosedRange<Int>) -> Date {
        let days = rng.int(in: (years.lowerBound * 365)...(years.upperBound * 365))
        return Date(timeIntervalSinceReferenceDate: Double(days) * 86_400)
    }

    static func personName(_ rng: inout SplitMix64) -> String {
        if rng.chance(0.1) { return rng.pick(japaneseNames) }
        let first = rng.int(in: 0...(firstNames.count - 1))
        return fullNames[first * lastNames.count + rng.int(in: 0...(lastNames.count - 1))]
    }

    static func bookTitle(_ rng: inout SplitMix64) -> String {
        let article = rng.int(in: 0...(articles.count - 1))
        let adjective = rng.int(in: 0...(adjectives.count - 1))
        return bookTitles[(article * adjectives.count + adjective) * nouns.count + rng.int(in: 0...(nouns.count - 1))]
    }

    /// `first last` for every first name and last name (by `first * lastNames.count + last`),
    /// made once: the same strings as formatting each name, without the formatting.
    static let fullNames: [String] = firstNames.flatMap { first in lastNames.map { "\(first) \($0)" } }
    /// `article adjective noun` for every combination, by `(article * adjectives + adjective) * nouns + noun`.
    static let bookTitles: [String] = articles.flatMap { a in adjectives.flatMap { j in nouns.map { "\(a) \(j) \($0)" } } }

    // MARK: Word lists (non-ASCII on purpose: accents, ø, ß, Japanese, emoji, curly apostrophes)

    static let fixedTitles = ["L’Écume des jours 📚", "日本語の庭", "Über den Fluß", "The Cartographer’s Daughter", "Ørkenens Sønner"]
    static let fixedAuthorNames = ["Zoë Brontë-Øster", "山田 太郎", "Søren Kierkegård"]
    static let publisherNames: [(name: String, city: String)] = [
        ("Éditions du Lac", "Genève"), ("Süderhaus Verlag", "München"), ("Nordlys Forlag", "Tromsø"),
        ("講談 Books", "東京"), ("Penguin & Sons", "London"), ("Casa Azul", "Sevilla"),
    ]
    static let genreNames = [
        "Science Fiction", "Fantasy", "Mystery", "Poésie", "Histoire", "Biografía", "Romance", "Horror",
        "Manga 漫画", "Essays", "Children’s", "Travel",
    ]
    static let firstNames = [
        "Zoë", "José", "Jürgen", "Søren", "Chloé", "Björn", "Ana", "Łukasz", "Amélie", "Noël", "Mårten",
        "Hélène", "Ingrid", "Otto", "Maya", "Kenji", "Farah", "Tomás", "Siobhán", "Ayşe",
    ]
    static let lastNames = [
        "Brontë", "Müller", "Øster", "Núñez", "Dvořák", "O’Brien", "Kowalski", "García", "Lefèvre",
        "Sørensen", "Tanaka", "Åberg", "Smith", "D’Amico", "Weiß",
    ]
    static let japaneseNames = ["佐藤 花子", "鈴木 一郎", "高橋 美咲", "田中 健"]
    static let articles = ["The", "A", "Our", "Their", "No"]
    static let adjectives = [
        "Silent", "Crimson", "Forgotten", "Hidden", "Last", "Winter’s", "Endless", "Golden", "Broken",
        "Quiet", "Naïve", "Café", "Distant",
    ]
    static let nouns = [
        "Garden", "River", "Library", "Cartographer", "Lighthouse", "Orchard", "Station", "Archive",
        "Harbour", "Fjord", "Déjà Vu", "Atlas",
    ]
    static let chapterWords = [
        "Beginnings", "Départ", "Crossing", "Nightfall", "Rückkehr", "Storm", "Letters", "Ærø",
        "The Lighthouse Keeper’s Log", "雨", "Epilogue", "Interlude ☕",
    ]
}
