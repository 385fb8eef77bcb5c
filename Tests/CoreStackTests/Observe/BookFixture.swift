import Foundation
@testable import CoreStack

/// A hundred real novels: the fixture of the fetched-results controller and entity monitor tests.
/// It has "1984", titles with curly apostrophes (’), and titles that file under "#" (digits,
/// a leading apostrophe).
enum BookFixture {
    static let titles: [String] = [
        "1984", "2001: A Space Odyssey", "’Salem’s Lot",
        "A Clockwork Orange", "A Farewell to Arms", "A Passage to India", "A Tale of Two Cities", "Anna Karenina",
        "Atonement", "Americanah",
        "Beloved", "Brave New World", "Brideshead Revisited", "Blood Meridian", "Bleak House",
        "Catch-22", "Charlotte’s Web", "Crime and Punishment", "Cold Comfort Farm",
        "David Copperfield", "Don Quixote", "Dracula", "Dune", "Death on the Nile",
        "Emma", "Ender’s Game", "East of Eden",
        "Fahrenheit 451", "Frankenstein", "Foucault’s Pendulum", "Far from the Madding Crowd",
        "Great Expectations", "Gone with the Wind", "Gulliver’s Travels", "Gilead",
        "Heart of Darkness", "Howl’s Moving Castle", "Hard Times",
        "Invisible Man", "Ivanhoe",
        "Jane Eyre", "Jude the Obscure",
        "Kafka on the Shore", "Kidnapped",
        "Lolita", "Little Women", "Lord of the Flies", "Love in the Time of Cholera",
        "Middlemarch", "Moby-Dick", "Madame Bovary", "Mansfield Park", "Midnight’s Children",
        "Never Let Me Go", "North and South", "Northanger Abbey", "Nostromo",
        "Of Mice and Men", "One Hundred Years of Solitude", "Oliver Twist", "On the Road", "Orlando",
        "Pride and Prejudice", "Persuasion", "Possession",
        "Rebecca", "Robinson Crusoe",
        "Sense and Sensibility", "Slaughterhouse-Five", "Silas Marner", "Swann’s Way", "Sula",
        "The Great Gatsby", "The Catcher in the Rye", "The Grapes of Wrath", "The Handmaid’s Tale", "The Hobbit",
        "The Remains of the Day", "The Road", "The Sound and the Fury", "The Trial", "To Kill a Mockingbird",
        "To the Lighthouse", "Tess of the d’Urbervilles", "Things Fall Apart", "Treasure Island", "The Time Machine",
        "The Moonstone", "The Secret History", "The Name of the Rose",
        "Ulysses", "Uncle Tom’s Cabin",
        "Vanity Fair", "Villette",
        "War and Peace", "Wuthering Heights", "Wide Sargasso Sea", "White Teeth", "Watership Down",
        "Zuleika Dobson",
    ]

    /// A stack holding the hundred books (saved), each with distinct page counts.
    static func makeStack() throws -> TestStack {
        let stack = try TestStack()
        let context = stack.context
        try context.performAndWait {
            for (i, title) in titles.enumerated() {
                let b = try Book(context: context)
                b.title = title
                b.pages = 100 + (i * 37) % 900
            }
            try context.save()
        }
        return stack
    }

    /// The section of a title: its first letter, uppercased and without diacritics, or "#".
    static func initial(_ title: String) -> String {
        guard let c = title.first, c.isLetter else { return "#" }
        return StringMatching.fold(String(c), options: [.caseInsensitive, .diacriticInsensitive]).uppercased()
    }

    /// Books sorted by title, case-insensitively.
    static func byTitle(predicate: Predicate? = nil) -> FetchRequest<Book> {
        FetchRequest<Book>(
            entityName: "Book", predicate: predicate,
            sortDescriptors: [SortDescriptor("title", comparison: .caseInsensitive), SortDescriptor("pages")])
    }

    /// A controller of books by title, in sections by initial.
    static func controller(_ context: ManagedObjectContext, predicate: Predicate? = nil) -> FetchedResultsController<Book> {
        FetchedResultsController(fetchRequest: byTitle(predicate: predicate), context: context, cacheName: "books") { book in
            initial(book.title)
        }
    }
}

/// Records everything a controller reports, batch by batch.
final class RecordingDelegate: FetchedResultsControllerDelegate {
    /// One will/did pair.
    struct Batch {
        var sections: [FetchedResultsSectionChange<Book>] = []
        var objects: [FetchedResultsChange<Book>] = []
    }

    var batches: [Batch] = []
    var willCount = 0
    var didCount = 0
    var fetchCount = 0
    /// The controller's count when each batch began (the old results).
    var countsAtWill: [Int] = []
    private var current: Batch?

    func controllerWillChangeContent(_ controller: FetchedResultsController<Book>) {
        willCount += 1
        countsAtWill.append(controller.count)
        current = Batch()
    }

    func controller(_ controller: FetchedResultsController<Book>, didChange change: FetchedResultsChange<Book>) {
        current?.objects.append(change)
    }

    func controller(_ controller: FetchedResultsController<Book>, didChangeSection change: FetchedResultsSectionChange<Book>) {
        current?.sections.append(change)
    }

    func controllerDidChangeContent(_ controller: FetchedResultsController<Book>) {
        didCount += 1
        if let current { batches.append(current) }
        current = nil
    }

    func controllerDidPerformFetch(_ controller: FetchedResultsController<Book>) { fetchCount += 1 }

    var allObjectChanges: [FetchedResultsChange<Book>] { batches.flatMap(\.objects) }
    var allSectionChanges: [FetchedResultsSectionChange<Book>] { batches.flatMap(\.sections) }

    func reset() {
        batches = []
        willCount = 0
        didCount = 0
    }
}

/// Sections as plain values, to compare results.
struct SectionSnapshot: Equatable, CustomStringConvertible {
    var name: String
    var objects: [ObjectIdentifier]
    var titles: [String]

    var description: String { "\(name): \(titles)" }

    static func of(_ controller: FetchedResultsController<Book>) -> [SectionSnapshot] {
        controller.sections.map { s in
            SectionSnapshot(name: s.name, objects: s.objects.map { ObjectIdentifier($0) }, titles: s.objects.map(\.title))
        }
    }
}

/// Applies reported batches to old sections with the table-view rule: row deletes (and move
/// sources) at old index paths, last first; then section deletes; then section inserts; then row
/// inserts (and move destinations) at new index paths, first first. Returns nil (and a message)
/// when a change does not fit.
enum ChangeApplier {
    static func apply(_ batch: RecordingDelegate.Batch, to old: [SectionSnapshot]) -> Result<[SectionSnapshot], Failure> {
        var s = old
        var deletes: [(IndexPath, Book)] = []
        var inserts: [(IndexPath, Book)] = []
        var updates: [(IndexPath, Book)] = []
        for c in batch.objects {
            switch c {
            case let .delete(o, p): deletes.append((p, o))
            case let .insert(o, p): inserts.append((p, o))
            case let .move(o, from, to):
                deletes.append((from, o))
                inserts.append((to, o))
            case let .update(o, _, new): updates.append((new, o))
            }
        }
        for (p, o) in deletes.sorted(by: { $0.0 > $1.0 }) {
            guard s.indices.contains(p.section), s[p.section].objects.indices.contains(p.row) else {
                return .failure(Failure("delete at \(p) out of range"))
            }
            guard s[p.section].objects[p.row] == ObjectIdentifier(o) else {
                return .failure(Failure("delete at \(p): \(s[p.section].titles[p.row]), not \(o.title)"))
            }
            s[p.section].objects.remove(at: p.row)
            s[p.section].titles.remove(at: p.row)
        }
        var sectionDeletes: [Int] = []
        var sectionInserts: [(Int, String)] = []
        for c in batch.sections {
            switch c {
            case let .delete(_, i): sectionDeletes.append(i)
            case let .insert(info, i): sectionInserts.append((i, info.name))
            }
        }
        for i in sectionDeletes.sorted(by: >) {
            guard s.indices.contains(i), s[i].objects.isEmpty else { return .failure(Failure("section delete \(i) not empty")) }
            s.remove(at: i)
        }
        for (i, name) in sectionInserts.sorted(by: { $0.0 < $1.0 }) {
            guard i <= s.count else { return .failure(Failure("section insert \(i) out of range")) }
            s.insert(SectionSnapshot(name: name, objects: [], titles: []), at: i)
        }
        for (p, o) in inserts.sorted(by: { $0.0 < $1.0 }) {
            guard s.indices.contains(p.section), p.row <= s[p.section].objects.count else {
                return .failure(Failure("insert at \(p) out of range"))
            }
            s[p.section].objects.insert(ObjectIdentifier(o), at: p.row)
            s[p.section].titles.insert(o.title, at: p.row)
        }
        for (p, o) in updates {
            guard s.indices.contains(p.section), s[p.section].objects.indices.contains(p.row),
                s[p.section].objects[p.row] == ObjectIdentifier(o)
            else { return .failure(Failure("update at \(p) is not \(o.title)")) }
            s[p.section].titles[p.row] = o.title
        }
        return .success(s)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }
}

/// A small deterministic PRNG (SplitMix64), so random sequences replay exactly.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
