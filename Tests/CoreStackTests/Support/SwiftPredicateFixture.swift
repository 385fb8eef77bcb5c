import Foundation

@testable import CoreStack

// The predicate fixture's entities as classes with property wrappers, for `#Predicate` and key
// paths (PredicateFixture.model(typed: true) maps the entities to them).

final class PAuthor: ManagedObject {
    @Attribute("name") var name: String
    @Attribute("born") var born: Date?
    @Attribute("country") var country: String?
    @ToMany("books") var books: Set<PBook>
    /// A computed property: not a model property.
    var initial: String { String(name.prefix(1)) }
}

final class PPublisher: ManagedObject {
    @Attribute("name") var name: String
    @Attribute("city") var city: String?
    @ToMany("books") var books: Set<PBook>
}

final class PBook: ManagedObject {
    @Attribute("title") var title: String
    @Attribute("pages") var pages: Int
    @Attribute("price") var price: Decimal?
    @Attribute("rating") var rating: Double?
    @Attribute("published") var published: Date?
    @Attribute("inPrint") var inPrint: Bool
    /// Named differently from its model key.
    @Attribute("subtitle") var tagline: String?
    @ToOne("publisher") var publisher: PPublisher?
    @ToMany("authors") var authors: Set<PAuthor>
    @OrderedToMany("chapters") var chapters: [PChapter]
    /// Computed, read-only: sections by it go through a closure.
    var initial: String { String(title.prefix(1)) }
    /// A plain stored Swift property: not in the model.
    var scratch = 0
}

final class PChapter: ManagedObject {
    @Attribute("title") var title: String
    @Attribute("number") var number: Int16
    @Attribute("words") var words: Int?
    @ToOne("book") var book: PBook?
}
