import Foundation
import Testing

@testable import CoreStack

/// One predicate written both ways: a format string and a `#Predicate`, which must select the same objects.
struct TwinCase: Sendable, CustomTestStringConvertible {
    let entity: String
    let format: String
    /// The `#Predicate`, translated; given the context to look up objects by name.
    let swift: @Sendable (ManagedObjectContext) throws -> CoreStack.Predicate

    var testDescription: String { "\(entity): \(format)".debugDescription }
}

private func B(_ format: String, _ p: @escaping @Sendable () -> Foundation.Predicate<PBook>) -> TwinCase {
    TwinCase(entity: "Book", format: format) { _ in try CoreStack.Predicate(p()) }
}
private func A(_ format: String, _ p: @escaping @Sendable () -> Foundation.Predicate<PAuthor>) -> TwinCase {
    TwinCase(entity: "Author", format: format) { _ in try CoreStack.Predicate(p()) }
}
private func P(_ format: String, _ p: @escaping @Sendable () -> Foundation.Predicate<PPublisher>) -> TwinCase {
    TwinCase(entity: "Publisher", format: format) { _ in try CoreStack.Predicate(p()) }
}
private func C(_ format: String, _ p: @escaping @Sendable () -> Foundation.Predicate<PChapter>) -> TwinCase {
    TwinCase(entity: "Chapter", format: format) { _ in try CoreStack.Predicate(p()) }
}

private let d1970 = day(-11_323)
private let d2000 = day(-366)

enum TwinCases {
    static let all: [TwinCase] = basics + strings + optionals + relationships + collections + logic

    static let basics: [TwinCase] = [
        B("TRUEPREDICATE") { #Predicate { _ in true } },
        B("FALSEPREDICATE") { #Predicate { _ in false } },
        B("pages > 300") { #Predicate { $0.pages > 300 } },
        B("pages >= 300") { let n = 300; return #Predicate { $0.pages >= n } },
        B("pages < 150") { #Predicate { $0.pages < 150 } },
        B("pages <= 200") { #Predicate { 200 >= $0.pages } },
        B("pages == 164") { #Predicate { $0.pages == 164 } },
        B("pages != 127") { #Predicate { $0.pages != 127 } },
        B("pages BETWEEN {200, 300}") { #Predicate { (200...300).contains($0.pages) } },
        B("pages >= 200 AND pages < 300") { let r = 200..<300; return #Predicate { r.contains($0.pages) } },
        B("pages IN {127, 164, 201, 999}") { let list = [127, 164, 201, 999]; return #Predicate { list.contains($0.pages) } },
        B("NOT pages IN {127, 164}") { #Predicate { ![127, 164].contains($0.pages) } },
        B("pages > 100 * 3") { let base = 100; return #Predicate { $0.pages > base * 3 } },
        B("inPrint == YES") { #Predicate { $0.inPrint } },
        B("inPrint == NO") { #Predicate { !$0.inPrint } },
        B("inPrint == NO") { #Predicate { $0.inPrint == false } },
        B("inPrint != NO AND pages > 300") { #Predicate { $0.inPrint != false && $0.pages > 300 } },
        B("pages > 300 ? inPrint == YES : inPrint == NO") { #Predicate { $0.pages > 300 ? $0.inPrint : !$0.inPrint } },
    ]

    static let strings: [TwinCase] = [
        B("title == 'Dune'") { #Predicate { $0.title == "Dune" } },
        B("title != 'Dune'") { #Predicate { $0.title != "Dune" } },
        B("title BEGINSWITH 'Dune'") { #Predicate { $0.title.starts(with: "Dune") } },
        B("title CONTAINS 'of'") { #Predicate { $0.title.contains("of") } },
        B("title CONTAINS ''") { #Predicate { $0.title.contains("") } },
        B("title CONTAINS 'ß'") { #Predicate { $0.title.contains("ß") } },
        B("title ENDSWITH 'の森' OR title BEGINSWITH 'ノル'") { #Predicate { $0.title.starts(with: "ノル") } },
        B("title < 'C'") { #Predicate { $0.title < "C" } },
        B("title >= 'Z'") { #Predicate { $0.title >= "Z" } },
        B("title IN {'Dune', 'Nana', 'Missing'}") { #Predicate { ["Dune", "Nana", "Missing"].contains($0.title) } },
        A("name BEGINSWITH '村上'") { #Predicate { $0.name.starts(with: "村上") } },
        A("name CONTAINS 'García'") { #Predicate { $0.name.contains("García") } },
        C("title CONTAINS 'War'") { #Predicate { $0.title.contains("War") } },
    ]

    static let optionals: [TwinCase] = [
        B("subtitle == nil") { #Predicate { $0.tagline == nil } },
        B("subtitle != nil") { #Predicate { $0.tagline != nil } },
        B("subtitle == ''") { #Predicate { $0.tagline == "" } },
        B("subtitle != 'A Novel'") { #Predicate { $0.tagline != "A Novel" } },
        B("subtitle BEGINSWITH 'Stories'") { #Predicate { $0.tagline?.starts(with: "Stories") == true } },
        B("NOT subtitle BEGINSWITH 'Stories'") { #Predicate { !($0.tagline?.starts(with: "Stories") ?? false) } },
        B("subtitle != nil AND NOT subtitle BEGINSWITH 'Stories'") { #Predicate { $0.tagline?.starts(with: "Stories") == false } },
        B("subtitle == nil OR NOT subtitle CONTAINS 'o'") { #Predicate { $0.tagline?.contains("o") != true } },
        B("subtitle CONTAINS 'o'") { #Predicate { ($0.tagline ?? "").contains("o") } },
        B("rating > 2.5") { #Predicate { ($0.rating ?? 0) > 2.5 } },
        B("rating == nil OR rating < 1") { #Predicate { ($0.rating ?? 0) < 1 } },
        B("rating > 2.5") { #Predicate { $0.rating.flatMap { $0 > 2.5 } == true } },
        B("rating != 4") { #Predicate { $0.rating != 4 } },
        B("rating > 2.5 AND rating != nil") { #Predicate { $0.rating! > 2.5 } },
        B("price > 20") { let limit = Decimal(20); return #Predicate { ($0.price ?? 0) > limit } },
        B("price == nil") { #Predicate { $0.price == nil } },
        B("published < %@") { let d = d1970, never = Date.distantFuture; return #Predicate { ($0.published ?? never) < d } },
        B("published == nil") { #Predicate { $0.published == nil } },
        B("published BETWEEN %@") { let r = d1970...d2000; return #Predicate { $0.published.flatMap { r.contains($0) } == true } },
        A("country IN {'France', 'Japan'}") { #Predicate { $0.country.flatMap { ["France", "Japan"].contains($0) } == true } },
        P("city == nil") { #Predicate { $0.city == nil } },
        C("number == 2") { #Predicate { $0.number == 2 } },
        C("words == nil OR words < 2000") { #Predicate { ($0.words ?? 0) < 2000 } },
        C("book.title BEGINSWITH 'D'") { #Predicate { $0.book?.title.starts(with: "D") == true } },
        A("born > %@ OR born == nil") { let d = d1970, never = Date.distantFuture; return #Predicate { ($0.born ?? never) > d } },
    ]

    static let relationships: [TwinCase] = [
        B("publisher == nil") { #Predicate { $0.publisher == nil } },
        B("publisher != nil") { #Predicate { $0.publisher != nil } },
        B("publisher.name == 'Ace'") { #Predicate { $0.publisher?.name == "Ace" } },
        B("publisher.name != 'Ace'") { #Predicate { $0.publisher?.name != "Ace" } },
        B("publisher.city == nil") { #Predicate { $0.publisher?.city == nil } },
        B("publisher.city != 'Paris'") { #Predicate { $0.publisher?.city != "Paris" } },
        B("publisher.name BEGINSWITH 'G'") { #Predicate { $0.publisher?.name.starts(with: "G") ?? false } },
        C("book.publisher.name == 'Gallimard'") { #Predicate { $0.book?.publisher?.name == "Gallimard" } },
        C("book.pages > 300") { #Predicate { ($0.book?.pages ?? 0) > 300 } },
    ]

    static let collections: [TwinCase] = [
        B("authors.@count == 0") { #Predicate { $0.authors.isEmpty } },
        B("authors.@count == 2") { #Predicate { $0.authors.count == 2 } },
        B("chapters.@count >= 2") { #Predicate { $0.chapters.count >= 2 } },
        B("ANY authors.country == 'France'") { #Predicate { $0.authors.contains { $0.country == "France" } } },
        B("ANY authors.name BEGINSWITH 'Frank'") { #Predicate { $0.authors.contains { $0.name.starts(with: "Frank") } } },
        B("SUBQUERY(authors, $a, $a.country == nil).@count == 0") { #Predicate { $0.authors.allSatisfy { $0.country != nil } } },
        B("SUBQUERY(chapters, $c, $c.words > 2000).@count >= 1") { #Predicate { $0.chapters.filter { ($0.words ?? 0) > 2000 }.count >= 1 } },
        B("SUBQUERY(chapters, $c, $c.words == nil).@count == 0 AND chapters.@count > 0") {
            #Predicate { $0.chapters.allSatisfy { $0.words != nil } && !$0.chapters.isEmpty }
        },
        A("books.@count > 3") { #Predicate { $0.books.count > 3 } },
        A("ANY books.published > %@") { let d = d2000, never = Date.distantPast; return #Predicate { $0.books.contains { ($0.published ?? never) > d } } },
        A("SUBQUERY(books, $b, ANY $b.chapters.words > 3000).@count > 0") {
            #Predicate { $0.books.contains { $0.chapters.contains { ($0.words ?? 0) > 3000 } } }
        },
        P("books.@count == 0") { #Predicate { $0.books.isEmpty } },
        P("SUBQUERY(books, $b, $b.publisher.city == 'Paris').@count > 0") {
            #Predicate { $0.books.contains { $0.publisher?.city == "Paris" } }
        },
    ]

    static let logic: [TwinCase] = [
        B("pages > 300 AND inPrint == YES") { #Predicate { $0.pages > 300 && $0.inPrint } },
        B("pages > 500 OR title BEGINSWITH 'D'") { #Predicate { $0.pages > 500 || $0.title.starts(with: "D") } },
        B("NOT (pages > 300 OR rating == nil)") { #Predicate { !($0.pages > 300 || $0.rating == nil) } },
        B("(pages > 100 AND pages < 400) OR (publisher.name == 'Ace' AND NOT inPrint == YES)") {
            #Predicate { ($0.pages > 100 && $0.pages < 400) || ($0.publisher?.name == "Ace" && !$0.inPrint) }
        },
    ]
}

/// The string form of a twin, as the string language has it (objects named in angle brackets looked up).
private func stringPredicate(_ c: TwinCase, in context: ManagedObjectContext) throws -> CoreStack.Predicate {
    switch c.format {
    case "published < %@": return try CoreStack.Predicate(format: c.format, argumentArray: [d1970])
    case "published BETWEEN %@": return try CoreStack.Predicate(format: c.format, argumentArray: [[d1970, d2000]])
    case "born > %@ OR born == nil": return try CoreStack.Predicate(format: c.format, argumentArray: [d1970])
    case "ANY books.published > %@": return try CoreStack.Predicate(format: c.format, argumentArray: [d2000])
    case "pages > 300 ? inPrint == YES : inPrint == NO": return try CoreStack.Predicate(format: "(pages > 300 AND inPrint == YES) OR (pages <= 300 AND inPrint == NO)")
    case "pages > 100 * 3": return try CoreStack.Predicate(format: "pages > 300")
    case "title ENDSWITH 'の森' OR title BEGINSWITH 'ノル'": return try CoreStack.Predicate(format: "title BEGINSWITH 'ノル'")
    default: return try CoreStack.Predicate(format: c.format)
    }
}

/// The unique keys of the objects `request` selects.
private func names(_ context: ManagedObjectContext, _ entity: String, _ predicate: CoreStack.Predicate) throws -> Set<String> {
    try context.performAndWait {
        var r = FetchRequest<ManagedObject>(entityName: entity)
        r.predicate = predicate
        return Set(try context.fetch(r).map { try $0.attributeValue(forKey: PredicateFixture.uniqueKey(entity)).stringValue ?? "?" })
    }
}

@Suite("#Predicate and the string language select the same objects")
struct SwiftPredicateTwinTests {
    @Test("through SQL (SQLite store)", arguments: TwinCases.all)
    func sqlite(_ c: TwinCase) throws {
        try expectSameSelection(c, in: try PredicateFixture.sqliteStack(typed: true))
    }

    @Test("in memory (in-memory store)", arguments: TwinCases.all)
    func inMemory(_ c: TwinCase) throws {
        try expectSameSelection(c, in: try PredicateFixture.inMemoryStack(typed: true))
    }

    @Test("in memory on unsaved objects (pending insertions)", arguments: TwinCases.all)
    func unsaved(_ c: TwinCase) throws {
        let stack = try TestStack(model: try PredicateFixture.model(typed: true))
        try PredicateFixture.populate(stack.context, save: false)
        stack.context.performAndWait { #expect(stack.context.hasChanges) }
        try expectSameSelection(c, in: stack)
    }

    /// Both forms of `c` fetched from `stack`'s store select the same objects.
    private func expectSameSelection(_ c: TwinCase, in stack: TestStack) throws {
        let context = stack.context
        let strings = try names(context, c.entity, try context.performAndWait { try stringPredicate(c, in: context) })
        let swift = try names(context, c.entity, try context.performAndWait { try c.swift(context) })
        #expect(swift == strings)
    }

    @Test("in memory on objects (the evaluator), equal to the SQL fetch", arguments: TwinCases.all)
    func evaluator(_ c: TwinCase) throws {
        let stack = try PredicateFixture.sqliteStack(typed: true)
        let context = stack.context
        try context.performAndWait {
            let swift = try c.swift(context)
            let all = try context.fetch(FetchRequest<ManagedObject>(entityName: c.entity))
            let key = PredicateFixture.uniqueKey(c.entity)
            let evaluated = Set(try all.filter { try PredicateEvaluator.evaluate(swift, on: $0) }.map { try $0.attributeValue(forKey: key).stringValue ?? "?" })
            let fetched = try names(context, c.entity, try stringPredicate(c, in: context))
            #expect(evaluated == fetched)
        }
    }
}
