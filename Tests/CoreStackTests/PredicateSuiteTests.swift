import Foundation
import Testing

@testable import CoreStack

// MARK: - Arguments and cases

/// A format argument, Sendable; objects are named and looked up in each store.
enum Arg: Sendable {
    case s(String), i(Int), d(Double), dec(Decimal), date(Date), b(Bool), null
    case list([Arg])
    case book(String), author(String), publisher(String)

    func value(in context: ManagedObjectContext) throws -> Any? {
        switch self {
        case let .s(v): return v
        case let .i(v): return v
        case let .d(v): return v
        case let .dec(v): return v
        case let .date(v): return v
        case let .b(v): return v
        case .null: return nil
        case let .list(items): return try items.map { try $0.value(in: context) } as [Any?]
        case let .book(t): return try Self.object("Book", t, context)
        case let .author(n): return try Self.object("Author", n, context)
        case let .publisher(n): return try Self.object("Publisher", n, context)
        }
    }

    var hasObject: Bool {
        switch self {
        case .book, .author, .publisher: true
        case let .list(items): items.contains(where: \.hasObject)
        default: false
        }
    }

    private static func object(_ entity: String, _ key: String, _ context: ManagedObjectContext) throws -> ManagedObjectID {
        var r = FetchRequest<ManagedObject>(entityName: entity)
        r.predicate = .key(PredicateFixture.uniqueKey(entity)) == .string(key)
        guard let id = try context.fetchObjectIDs(r).first else { throw CoreStackError.objectNotFound("\(entity) \(key)") }
        return id
    }
}

/// One predicate of the suite with its oracle: a plain closure over the fixture's structs.
struct SuiteCase: Sendable, CustomTestStringConvertible {
    let entity: String
    let format: String
    let args: [Arg]
    let variables: [String: Arg]
    let expected: @Sendable () -> Set<String>

    var testDescription: String {
        let shown = args.isEmpty ? "" : " \(args)"
        return "\(entity): \(format)\(shown)".debugDescription
    }

    func predicate(in context: ManagedObjectContext) throws -> Predicate {
        let values = try args.map { try $0.value(in: context) }
        let p = try Predicate(format: format, argumentArray: values)
        guard !variables.isEmpty else { return p }
        var vars: [String: Any?] = [:]
        for (k, v) in variables { vars[k] = try v.value(in: context) }
        return try p.withSubstitutionVariables(vars)
    }
}

private func B(_ format: String, _ args: Arg..., vars: [String: Arg] = [:], _ oracle: @escaping @Sendable (FBook) -> Bool) -> SuiteCase {
    SuiteCase(entity: "Book", format: format, args: args, variables: vars) {
        Set(PredicateFixture.data.books.filter(oracle).map(\.title))
    }
}
private func A(_ format: String, _ args: Arg..., oracle: @escaping @Sendable (FAuthor) -> Bool) -> SuiteCase {
    SuiteCase(entity: "Author", format: format, args: args, variables: [:]) {
        Set(PredicateFixture.data.authors.filter(oracle).map(\.name))
    }
}
private func P(_ format: String, _ args: Arg..., oracle: @escaping @Sendable (FPublisher) -> Bool) -> SuiteCase {
    SuiteCase(entity: "Publisher", format: format, args: args, variables: [:]) {
        Set(PredicateFixture.data.publishers.filter(oracle).map(\.name))
    }
}
private func C(_ format: String, _ args: Arg..., oracle: @escaping @Sendable (FChapter) -> Bool) -> SuiteCase {
    SuiteCase(entity: "Chapter", format: format, args: args, variables: [:]) {
        Set(PredicateFixture.data.chapters.filter(oracle).map(\.title))
    }
}

// MARK: - The oracle's own string rules (plain Foundation, not CoreStack)

/// Folds for [c], [d], [cd]; always canonically composed.
private func fold(_ s: String, _ o: String) -> String {
    var opts: String.CompareOptions = []
    if o.contains("c") { opts.insert(.caseInsensitive) }
    if o.contains("d") { opts.insert(.diacriticInsensitive) }
    let f = opts.isEmpty ? s : s.folding(options: opts, locale: nil)
    return f.precomposedStringWithCanonicalMapping
}
/// SQLite's BINARY equality: bytes, not canonical equivalence.
private func same(_ a: String?, _ b: String) -> Bool { a.map { Array($0.utf8) == Array(b.utf8) } ?? false }
private func less(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }
private func eq(_ a: String?, _ b: String, _ o: String) -> Bool { a.map { fold($0, o) == fold(b, o) } ?? false }
private func begins(_ a: String?, _ b: String, _ o: String = "") -> Bool { a.map { fold($0, o).hasPrefix(fold(b, o)) } ?? false }
private func ends(_ a: String?, _ b: String, _ o: String = "") -> Bool { a.map { fold($0, o).hasSuffix(fold(b, o)) } ?? false }
private func has(_ a: String?, _ b: String, _ o: String = "") -> Bool {
    a.map { b.isEmpty || fold($0, o).contains(fold(b, o)) } ?? false
}
private func wildcard(_ a: String?, _ pattern: String, _ o: String = "") -> Bool {
    guard let a else { return false }
    var re = "^"
    for ch in fold(pattern, o) {
        switch ch {
        case "*": re += ".*"
        case "?": re += "."
        default: re += NSRegularExpression.escapedPattern(for: String(ch))
        }
    }
    re += "$"
    return regex(fold(a, o), re, caseInsensitive: false)
}
private func regex(_ a: String?, _ pattern: String, caseInsensitive: Bool = false) -> Bool {
    guard let a, let re = try? NSRegularExpression(pattern: pattern, options: caseInsensitive ? [.caseInsensitive, .dotMatchesLineSeparators] : [.dotMatchesLineSeparators]) else { return false }
    let r = NSRange(a.startIndex..., in: a)
    return re.firstMatch(in: a, options: [.anchored], range: r).map { $0.range == r } ?? false
}
private func avg(_ xs: [Double]) -> Double? { xs.isEmpty ? nil : xs.reduce(0, +) / Double(xs.count) }

private let d1970 = day(-11_323)  // 1970-01-01
private let d2000 = day(-366)  // 2000-01-01
private let d2010 = day(3_287)  // 2010-01-01
private let d1950 = day(-18_628)
private let d1980 = day(-7_671)  // 1980-01-01

// MARK: - The suite

enum SuiteCases {
    static let all: [SuiteCase] = basics + strings + dates + nils + relationships + aggregates + collections + subqueries + logic + substitution + longLists

    static let basics: [SuiteCase] = [
        B("TRUEPREDICATE") { _ in true },
        B("FALSEPREDICATE") { _ in false },
        B("pages > 300") { $0.pages > 300 },
        B("pages >= %d", .i(400)) { $0.pages >= 400 },
        B("pages < 150") { $0.pages < 150 },
        B("pages =< 200") { $0.pages <= 200 },
        B("pages => 500") { $0.pages >= 500 },
        B("pages == %ld", .i(127)) { $0.pages == 127 },
        B("pages = 164") { $0.pages == 164 },
        B("pages != 127") { $0.pages != 127 },
        B("pages <> 127 AND pages <> 164") { $0.pages != 127 && $0.pages != 164 },
        B("pages BETWEEN {200, 300}") { (200...300).contains($0.pages) },
        B("pages BETWEEN %@", .list([.i(100), .i(150)])) { (100...150).contains($0.pages) },
        B("pages IN {127, 164, 201, 999}") { [127, 164, 201].contains($0.pages) },
        B("pages IN %@", .list([.i(90), .i(127)])) { [90, 127].contains($0.pages) },
        B("NOT pages IN {127, 164}") { ![127, 164].contains($0.pages) },
        B("rating > 2.5") { ($0.rating ?? -1) > 2.5 },
        B("rating <= %f", .d(1.0)) { $0.rating.map { $0 <= 1.0 } ?? false },
        B("rating == 4.5") { $0.rating == 4.5 },
        B("rating BETWEEN {1.5, 3}") { $0.rating.map { (1.5...3).contains($0) } ?? false },
        B("price > 20") { ($0.price ?? -1) > 20 },
        B("price < %@", .dec(Decimal(10))) { $0.price.map { $0 < 10 } ?? false },
        B("price BETWEEN {10.25, 20.5}") { $0.price.map { (10.25...20.5).contains($0) } ?? false },
        B("price == 27.25") { $0.price == 27.25 },
        B("inPrint == YES") { $0.inPrint },
        B("inPrint == FALSE") { !$0.inPrint },
        B("inPrint = 1") { $0.inPrint },
        B("inPrint == 2") { _ in false },
        B("inPrint != NO AND pages > 300") { $0.inPrint && $0.pages > 300 },
        B("pages > rating") { b in b.rating.map { Double(b.pages) > $0 } ?? false },
        B("%@ < pages", .i(450)) { 450 < $0.pages },
        B("pages == TRUE") { $0.pages == 1 },
        P("SELF IN %@", .list([.publisher("Ace"), .publisher("Suhrkamp")])) { ["Ace", "Suhrkamp"].contains($0.name) },
        P("SELF == %@", .publisher("Gallimard")) { $0.name == "Gallimard" },
        P("SELF != %@", .publisher("Gallimard")) { $0.name != "Gallimard" },
        B("SELF IN %@", .list([.book("Dune"), .book("Solaris"), .book("Идиот")])) { ["Dune", "Solaris", "Идиот"].contains($0.title) },
        B("NOT SELF IN %@", .list([.book("Dune")])) { $0.title != "Dune" },
    ]

    static let strings: [SuiteCase] = [
        B("title == 'Dune'") { same($0.title, "Dune") },
        B("title == \"dune\"") { same($0.title, "dune") },
        B("title ==[c] 'dune'") { eq($0.title, "dune", "c") },
        B("title ==[cd] 'naive cafe'") { eq($0.title, "naive cafe", "cd") },
        B("title ==[d] 'naive cafe'") { eq($0.title, "naive cafe", "d") },
        B("title ==[c] 'NAÏVE CAFÉ'") { eq($0.title, "NAÏVE CAFÉ", "c") },
        B("title !=[c] 'dune'") { !eq($0.title, "dune", "c") },
        B("title != 'Dune'") { !same($0.title, "Dune") },
        B("title BEGINSWITH 'Dune'") { begins($0.title, "Dune") },
        B("title BEGINSWITH[c] 'the'") { begins($0.title, "the", "c") },
        B("title BEGINSWITH[cd] 'cronica'") { begins($0.title, "cronica", "cd") },
        B("title BEGINSWITH %@", .s("Пр")) { begins($0.title, "Пр") },
        B("title BEGINSWITH[c] %@", .s("пре")) { begins($0.title, "пре", "c") },
        B("title ENDSWITH 'Dune'") { ends($0.title, "Dune") },
        B("title ENDSWITH[c] 'SUN'") { ends($0.title, "SUN", "c") },
        B("title ENDSWITH[d] 'Raquin'") { ends($0.title, "Raquin", "d") },
        B("title ENDSWITH 'の森'") { ends($0.title, "の森") },
        B("title CONTAINS 'of'") { has($0.title, "of") },
        B("title CONTAINS[c] 'OF'") { has($0.title, "OF", "c") },
        B("title CONTAINS[cd] 'o'") { has($0.title, "o", "cd") },
        B("title CONTAINS[d] 'Ols'") { has($0.title, "Ols", "d") },
        B("title CONTAINS[cd] 'OLSARDINEN'") { has($0.title, "OLSARDINEN", "cd") },
        B("title CONTAINS 'ß'") { has($0.title, "ß") },
        B("title CONTAINS[c] 'ÆRØ'") { has($0.title, "ÆRØ", "c") },
        B("title CONTAINS ''") { has($0.title, "") },
        B("title CONTAINS %@", .s("%")) { has($0.title, "%") },
        B("title CONTAINS '_'") { has($0.title, "_") },
        B("title CONTAINS %@", .s("D\0")) { has($0.title, "D\0") },
        B("title BEGINSWITH[c] %@", .s("\0")) { begins($0.title, "\0", "c") },
        B("title == %@", .s("Dune\0")) { same($0.title, "Dune\0") },
        B("title != %@", .s("Dune\0")) { !same($0.title, "Dune\0") },
        B("title < %@", .s("C\0")) { less($0.title, "C\0") },
        B("title > %@", .s("Dune\0x")) { less("Dune\0x", $0.title) },
        B("title BETWEEN %@", .list([.s("D\0"), .s("G")])) { !less($0.title, "D\0") && !less("G", $0.title) },
        B("title LIKE 'Dune*'") { wildcard($0.title, "Dune*") },
        B("title LIKE[c] '*dune*'") { wildcard($0.title, "*dune*", "c") },
        B("title LIKE '????'") { wildcard($0.title, "????") },
        B("title LIKE[cd] 'na?ve*'") { wildcard($0.title, "na?ve*", "cd") },
        B("title LIKE '*\\\\?*'") { has($0.title, "?") },
        B("title LIKE 'Idiot'") { wildcard($0.title, "Idiot") },
        B("title LIKE[c] 'и*'") { wildcard($0.title, "и*", "c") },
        B("title MATCHES '[A-Z][a-z]+'") { regex($0.title, "[A-Z][a-z]+") },
        B("title MATCHES '.*[0-9].*'") { regex($0.title, ".*[0-9].*") },
        B("title MATCHES[c] 'dune.*'") { regex($0.title, "dune.*", caseInsensitive: true) },
        B("title MATCHES '\\\\p{Cyrillic}+'") { regex($0.title, "\\p{Cyrillic}+") },
        B("title < 'C'") { less($0.title, "C") },
        B("title >= 'Z'") { !less($0.title, "Z") },
        B("title <[c] 'b'") { less(fold($0.title, "c"), "b") },
        B("title BETWEEN {'A', 'D'}") { !less($0.title, "A") && !less("D", $0.title) },
        B("title IN {'Dune', 'Nana', 'Missing'}") { ["Dune", "Nana"].contains($0.title) },
        B("title IN[c] {'dune', 'NANA'}") { eq($0.title, "dune", "c") || eq($0.title, "nana", "c") },
        B("title IN %@", .list([.s("1Q84"), .s("Бесы")])) { ["1Q84", "Бесы"].contains($0.title) },
        B("subtitle == ''") { $0.subtitle == "" },
        B("subtitle BEGINSWITH 'Stories'") { begins($0.subtitle, "Stories") },
        B("NOT subtitle BEGINSWITH 'Stories'") { !begins($0.subtitle, "Stories") },
        B("subtitle ==[c] 'a novel'") { eq($0.subtitle, "a novel", "c") },
        B("subtitle !=[c] 'a novel'") { !eq($0.subtitle, "a novel", "c") },
        A("name == 'Émile Zola'") { same($0.name, "Émile Zola") },
        A("name BEGINSWITH[cd] 'emile'") { begins($0.name, "emile", "cd") },
        A("name CONTAINS[cd] 'garcia marquez'") { has($0.name, "garcia marquez", "cd") },
        A("name CONTAINS 'García'") { has($0.name, "García") },
        A("name == %@", .s("Renée Vivien")) { same($0.name, "Renée Vivien") },
        A("name ==[c] %@", .s("renée vivien")) { eq($0.name, "renée vivien", "c") },
        A("name ==[cd] 'renee vivien'") { eq($0.name, "renee vivien", "cd") },
        A("name BEGINSWITH[d] 'Rene'") { begins($0.name, "Rene", "d") },
        A("name ENDSWITH[c] 'LEM'") { ends($0.name, "LEM", "c") },
        A("name CONTAINS[c] 'ДОСТОЕВ'") { has($0.name, "ДОСТОЕВ", "c") },
        A("name ==[cd] 'ФЕДОР ДОСТОЕВСКИЙ'") { eq($0.name, "ФЕДОР ДОСТОЕВСКИЙ", "cd") },
        A("name BEGINSWITH '村上'") { begins($0.name, "村上") },
        A("name LIKE[cd] 's?ren*'") { wildcard($0.name, "s?ren*", "cd") },
        A("name MATCHES '.* .*'") { regex($0.name, ".* .*") },
        A("name CONTAINS[cd] 'Ł'") { has($0.name, "Ł", "cd") },
        A("name CONTAINS[c] 'ø'") { has($0.name, "ø", "c") },
        A("name CONTAINS[d] 'o'") { has($0.name, "o", "d") },
        P("name ENDSWITH[cd] 'zoe'") { ends($0.name, "zoe", "cd") },
        C("title BEGINSWITH[cd] 'epilogue'") { begins($0.title, "epilogue", "cd") },
        C("title CONTAINS 'War'") { has($0.title, "War") },
    ]

    static let dates: [SuiteCase] = [
        B("published < %@", .date(d1980)) { $0.published.map { $0 < d1980 } ?? false },
        B("published >= %@", .date(d2000)) { $0.published.map { $0 >= d2000 } ?? false },
        B("published BETWEEN %@", .list([.date(d1970), .date(d2000)])) { $0.published.map { (d1970...d2000).contains($0) } ?? false },
        B("published > CAST(0, 'NSDate')") { $0.published.map { $0 > day(0) } ?? false },
        B("published == nil") { $0.published == nil },
        B("published != nil AND published < %@", .date(d2010)) { $0.published.map { $0 < d2010 } ?? false },
        B("published != %@", .date(day(-9_000))) { $0.published != day(-9_000) },
        B("published == %@", .date(day(-8_600))) { $0.published == day(-8_600) },
        A("born < %@", .date(d1950)) { $0.born.map { $0 < d1950 } ?? false },
        A("born > %@ OR born == nil", .date(d1950)) { $0.born.map { $0 > d1950 } ?? true },
        A("ANY books.published > %@", .date(d2000)) { $0.books.contains { $0.published.map { $0 > d2000 } ?? false } },
        B("ANY authors.born < %@", .date(d1950)) { $0.authors.contains { $0.born.map { $0 < d1950 } ?? false } },
        B("authors.born.@max > %@", .date(d1950)) { b in b.authors.compactMap(\.born).max().map { $0 > d1950 } ?? false },
        A("books.@min.published < %@", .date(d1980)) { a in a.books.compactMap(\.published).min().map { $0 < d1980 } ?? false },
    ]

    static let nils: [SuiteCase] = [
        B("price == nil") { $0.price == nil },
        B("price != nil") { $0.price != nil },
        B("price != 12.5") { $0.price != 12.5 },
        B("price = NULL") { $0.price == nil },
        B("rating != 4") { $0.rating != 4 },
        B("rating < 100") { $0.rating != nil },
        B("NOT rating < 100") { $0.rating == nil },
        B("rating > nil") { _ in false },
        B("NOT (rating > nil)") { _ in true },
        B("subtitle == nil") { $0.subtitle == nil },
        B("subtitle != nil") { $0.subtitle != nil },
        B("subtitle != 'A Novel'") { $0.subtitle != "A Novel" },
        B("subtitle CONTAINS 'o'") { has($0.subtitle, "o") },
        B("NOT subtitle CONTAINS 'o'") { !has($0.subtitle, "o") },
        B("subtitle IN {nil, 'A Novel'}") { $0.subtitle == nil || $0.subtitle == "A Novel" },
        B("publisher == nil") { $0.publisher == nil },
        B("publisher != nil") { $0.publisher != nil },
        B("publisher.name == nil") { $0.publisher == nil },
        B("publisher.city == nil") { $0.publisher?.city == nil },
        B("publisher.city != 'Paris'") { $0.publisher?.city != "Paris" },
        B("publisher.name != 'Ace'") { $0.publisher?.name != "Ace" },
        B("publisher != %@", .publisher("Ace")) { $0.publisher?.name != "Ace" },
        A("country == nil") { $0.country == nil },
        A("country != 'France'") { $0.country != "France" },
        A("ANY books.price == nil") { $0.books.contains { $0.price == nil } },
        C("words == nil") { $0.words == nil },
        C("words > 2000") { ($0.words ?? 0) > 2000 },
    ]

    static let relationships: [SuiteCase] = [
        B("publisher.name == 'Ace'") { $0.publisher?.name == "Ace" },
        B("publisher.name BEGINSWITH[cd] 'edition'") { begins($0.publisher?.name, "edition", "cd") },
        B("publisher.city IN {'Paris', 'Berlin'}") { ["Paris", "Berlin"].contains($0.publisher?.city ?? "") },
        B("publisher == %@", .publisher("Gallimard")) { $0.publisher?.name == "Gallimard" },
        B("publisher IN %@", .list([.publisher("Ace"), .publisher("Suhrkamp")])) { ["Ace", "Suhrkamp"].contains($0.publisher?.name ?? "") },
        B("%K == %@", .s("publisher.name"), .s("Suhrkamp")) { $0.publisher?.name == "Suhrkamp" },
        C("book.title BEGINSWITH 'Dune'") { begins($0.book.title, "Dune") },
        C("book.publisher.name == 'Gallimard'") { $0.book.publisher?.name == "Gallimard" },
        C("book.publisher.city == nil") { $0.book.publisher?.city == nil },
        C("book.pages > 400 AND number == 1") { $0.book.pages > 400 && $0.number == 1 },
        C("book == %@", .book("Germinal")) { $0.book.title == "Germinal" },
        C("ANY book.authors.name CONTAINS[cd] 'zola'") { $0.book.authors.contains { has($0.name, "zola", "cd") } },
        B("ANY authors.name == 'Frank Herbert'") { $0.authors.contains { $0.name == "Frank Herbert" } },
        B("SOME authors.name BEGINSWITH[c] 'ursula'") { $0.authors.contains { begins($0.name, "ursula", "c") } },
        B("authors.name CONTAINS[cd] 'lem'") { $0.authors.contains { has($0.name, "lem", "cd") } },
        B("ALL authors.name CONTAINS ' '") { $0.authors.allSatisfy { has($0.name, " ") } },
        B("ALL authors.country == 'France'") { $0.authors.allSatisfy { $0.country == "France" } },
        B("NONE authors.country == 'France'") { !$0.authors.contains { $0.country == "France" } },
        B("ANY authors.country == nil") { $0.authors.contains { $0.country == nil } },
        B("ALL authors.country != nil") { $0.authors.allSatisfy { $0.country != nil } },
        B("ANY authors.country != 'USA'") { $0.authors.contains { $0.country != "USA" } },
        B("ANY authors == %@", .author("Émile Zola")) { $0.authors.contains { $0.name == "Émile Zola" } },
        B("authors CONTAINS %@", .author("Stanisław Lem")) { $0.authors.contains { $0.name == "Stanisław Lem" } },
        B("NOT authors CONTAINS %@", .author("Stanisław Lem")) { !$0.authors.contains { $0.name == "Stanisław Lem" } },
        B("%@ IN authors", .author("Frank Herbert")) { $0.authors.contains { $0.name == "Frank Herbert" } },
        B("ANY authors IN %@", .list([.author("Frank Herbert"), .author("村上春樹")])) { $0.authors.contains { ["Frank Herbert", "村上春樹"].contains($0.name) } },
        B("%@ IN authors.name", .s("Søren Kierkegaard")) { $0.authors.contains { $0.name == "Søren Kierkegaard" } },
        B("'USA' IN authors.country") { $0.authors.contains { $0.country == "USA" } },
        B("ANY chapters.title BEGINSWITH 'War'") { $0.chapters.contains { begins($0.title, "War") } },
        B("ALL chapters.number <= 2") { $0.chapters.allSatisfy { $0.number <= 2 } },
        B("NONE chapters.words > 4000") { !$0.chapters.contains { ($0.words ?? 0) > 4000 } },
        B("ALL chapters.words > 1500") { $0.chapters.allSatisfy { ($0.words ?? 0) > 1500 } },
        B("ANY chapters.words BETWEEN {1000, 2000}") { $0.chapters.contains { $0.words.map { (1000...2000).contains($0) } ?? false } },
        A("ANY books.publisher.name == 'Gallimard'") { $0.books.contains { $0.publisher?.name == "Gallimard" } },
        A("ANY books.chapters.title CONTAINS 'Peace'") { $0.books.contains { $0.chapters.contains { has($0.title, "Peace") } } },
        A("ALL books.pages > 200") { $0.books.allSatisfy { $0.pages > 200 } },
        A("NONE books.inPrint == YES") { !$0.books.contains { $0.inPrint } },
        A("ANY books.title ==[cd] 'germinal'") { $0.books.contains { eq($0.title, "germinal", "cd") } },
        P("ANY books.authors.name BEGINSWITH 'F'") { $0.books.contains { $0.authors.contains { begins($0.name, "F") } } },
        P("ALL books.inPrint == YES") { $0.books.allSatisfy(\.inPrint) },
        P("ANY books == %@", .book("Dune")) { $0.books.contains { $0.title == "Dune" } },
    ]

    static let aggregates: [SuiteCase] = [
        B("authors.@count == 0") { $0.authors.isEmpty },
        B("authors.@count == 2") { $0.authors.count == 2 },
        B("authors.@count >= 1") { !$0.authors.isEmpty },
        B("chapters.@count > 2") { $0.chapters.count > 2 },
        B("chapters.@count BETWEEN {1, 2}") { (1...2).contains($0.chapters.count) },
        B("chapters.@count IN {0, 3}") { [0, 3].contains($0.chapters.count) },
        B("chapters.@count == 0 AND authors.@count == 0") { $0.chapters.isEmpty && $0.authors.isEmpty },
        B("chapters.words.@sum > 5000") { $0.chapters.compactMap(\.words).reduce(0, +) > 5000 },
        B("chapters.words.@sum == 0") { $0.chapters.compactMap(\.words).reduce(0, +) == 0 },
        B("chapters.words.@avg > 2500") { avg($0.chapters.compactMap(\.words).map(Double.init)).map { $0 > 2500 } ?? false },
        B("chapters.words.@avg == nil") { $0.chapters.compactMap(\.words).isEmpty },
        B("chapters.words.@min < 1500") { $0.chapters.compactMap(\.words).min().map { $0 < 1500 } ?? false },
        B("chapters.words.@max >= 4000") { $0.chapters.compactMap(\.words).max().map { $0 >= 4000 } ?? false },
        B("chapters.number.@max == 3") { $0.chapters.map(\.number).max() == 3 },
        B("chapters.words.@count == 2") { $0.chapters.count == 2 },
        B("NOT chapters.words.@max > 3000") { !($0.chapters.compactMap(\.words).max().map { $0 > 3000 } ?? false) },
        B("authors.books.@count > 4") { $0.authors.flatMap(\.books).count > 4 },
        B("publisher.books.@count > 8") { $0.publisher.map { $0.books.count > 8 } ?? false },
        B("publisher.books.@count < 9") { $0.publisher.map { $0.books.count < 9 } ?? false },
        B("publisher.books.pages.@sum > 2500") { $0.publisher.map { $0.books.map(\.pages).reduce(0, +) > 2500 } ?? false },
        B("pages > publisher.books.pages.@avg") { b in b.publisher.flatMap { avg($0.books.map { Double($0.pages) }) }.map { Double(b.pages) > $0 } ?? false },
        B("chapters.@count < authors.@count") { $0.chapters.count < $0.authors.count },
        A("books.@count == 0") { $0.books.isEmpty },
        A("books.@count > 3") { $0.books.count > 3 },
        A("books.pages.@sum > 1200") { $0.books.map(\.pages).reduce(0, +) > 1200 },
        A("books.pages.@sum == 0") { $0.books.isEmpty },
        A("books.pages.@avg >= 300") { avg($0.books.map { Double($0.pages) }).map { $0 >= 300 } ?? false },
        A("books.pages.@avg < 300") { avg($0.books.map { Double($0.pages) }).map { $0 < 300 } ?? false },
        A("books.pages.@min < 150") { $0.books.map(\.pages).min().map { $0 < 150 } ?? false },
        A("books.pages.@max > 500") { $0.books.map(\.pages).max().map { $0 > 500 } ?? false },
        A("books.price.@sum > 40") { $0.books.compactMap(\.price).reduce(0, +) > 40 },
        A("books.rating.@avg > 2.5") { avg($0.books.compactMap(\.rating)).map { $0 > 2.5 } ?? false },
        A("books.chapters.@count >= 4") { $0.books.flatMap(\.chapters).count >= 4 },
        A("books.chapters.words.@sum > 10000") { $0.books.flatMap(\.chapters).compactMap(\.words).reduce(0, +) > 10_000 },
        A("books.@count > 0 AND books.pages.@max < 400") { !$0.books.isEmpty && ($0.books.map(\.pages).max() ?? 0) < 400 },
        P("books.@count == 0") { $0.books.isEmpty },
        P("books.@count > 9") { $0.books.count > 9 },
        P("books.price.@max > 35") { $0.books.compactMap(\.price).max().map { $0 > 35 } ?? false },
        P("books.pages.@sum BETWEEN {2000, 4000}") { (2000...4000).contains($0.books.map(\.pages).reduce(0, +)) },
        P("books.authors.@count > 10") { $0.books.flatMap(\.authors).count > 10 },
    ]

    static let collections: [SuiteCase] = [
        B("title IN {}") { _ in false },
        B("NOT title IN {}") { _ in true },
        B("pages IN {127} OR title IN {'Dune'}") { $0.pages == 127 || $0.title == "Dune" },
        B("ANY authors.name IN %@", .list([.s("Frank Herbert"), .s("Stanisław Lem")])) { $0.authors.contains { ["Frank Herbert", "Stanisław Lem"].contains($0.name) } },
        B("ALL authors.name IN %@", .list([.s("Frank Herbert"), .s("Stanisław Lem")])) { $0.authors.allSatisfy { ["Frank Herbert", "Stanisław Lem"].contains($0.name) } },
        B("NONE authors.name IN %@", .list([.s("Frank Herbert")])) { !$0.authors.contains { $0.name == "Frank Herbert" } },
        B("ALL chapters.title CONTAINS '.'") { $0.chapters.allSatisfy { has($0.title, ".") } },
        B("ANY chapters.number IN {3}") { $0.chapters.contains { $0.number == 3 } },
        // An aggregate over a key path through two to-manys counts the flattened collection.
        A("books.authors.@count > 6") { $0.books.flatMap(\.authors).count > 6 },
        B("authors.@max.born > %@", .date(d1950)) { b in b.authors.compactMap(\.born).max().map { $0 > d1950 } ?? false },
    ]

    // Lists longer than SQLitePredicateCompiler.jsonListThreshold bind as JSON through json_each:
    // every storage class (integer, REAL, text, BLOB), folding, NULL and objects, as short lists do.
    private static let books = PredicateFixture.data.books
    private static func fillers(_ n: Int = 40, _ make: (Int) -> Arg) -> [Arg] { (0..<n).map(make) }
    private static let evenPages = Set(books.filter { $0.index % 2 == 0 }.map(\.pages))
    private static let someDates = Set(books.filter { $0.index % 3 == 0 }.compactMap(\.published))
    private static let allButFive = books.filter { $0.index % 8 != 1 }.map(\.title)
    static let longLists: [SuiteCase] = [
        B("pages IN %@", .list(evenPages.sorted().map { .i($0) } + fillers { .i(10_000 + $0) })) { evenPages.contains($0.pages) },
        B("pages IN %@", .list([.d(127), .d(164.5), .i(201), .i(Int.min), .i(Int.max)] + fillers { .d(10_000.25 + Double($0)) })) { [127, 201].contains($0.pages) },
        B("NOT pages IN %@", .list(evenPages.sorted().map { .i($0) } + fillers { .i(-$0) })) { !evenPages.contains($0.pages) },
        B("rating IN %@", .list([.d(1.5), .d(3), .d(4.5)] + fillers { .d(100.1 * Double($0 + 1)) })) { [1.5, 3, 4.5].contains($0.rating ?? -1) },
        B("price IN %@", .list([.dec(Decimal(string: "6.5") ?? 0), .dec(Decimal(string: "9.25") ?? 0)] + fillers { .dec(Decimal(1000 + $0)) })) { [6.5, 9.25].contains($0.price ?? -1) },
        B("published IN %@", .list(someDates.sorted().map { .date($0) } + fillers { .date(day(Double($0) + 0.5)) })) { $0.published.map(someDates.contains) ?? false },
        B("inPrint IN %@", .list([.b(true)] + fillers { .i(5 + $0) })) { $0.inPrint },
        B("title IN %@", .list(allButFive.map { .s($0) } + fillers { .s("filler \($0)") })) { allButFive.contains($0.title) },
        B("title IN %@", .list([.s("Dune"), .s("L'Assommoir"), .s("Zoë's Garden"), .s("Du\0ne"), .s("a\"b\\c\n\u{1}")] + fillers { .s("x\t\($0)\u{7F}") })) { ["Dune", "L'Assommoir", "Zoë's Garden"].contains($0.title) },
        B("title IN[c] %@", .list([.s("dune"), .s("NANA"), .s("solaris\0")] + fillers { .s("FILLER \($0)") })) { eq($0.title, "dune", "c") || eq($0.title, "nana", "c") },
        B("title IN[cd] %@", .list([.s("naive cafe"), .s("THERESE RAQUIN")] + fillers { .s("filler \($0)") })) { eq($0.title, "naive cafe", "cd") || eq($0.title, "therese raquin", "cd") },
        B("subtitle IN %@", .list([.null, .s("A Novel")] + fillers { .s("Stories of filler \($0)") })) { $0.subtitle == nil || $0.subtitle == "A Novel" },
        B("publisher.city IN %@", .list([.s("Paris")] + fillers { .s("City \($0)") })) { $0.publisher?.city == "Paris" },
        B("ANY authors.name IN %@", .list([.s("Frank Herbert"), .s("Stanisław Lem")] + fillers { .s("Nobody \($0)") })) { $0.authors.contains { ["Frank Herbert", "Stanisław Lem"].contains($0.name) } },
        B("SELF IN %@", .list(allButFive.map { .book($0) })) { allButFive.contains($0.title) },
        B("pages > 300 AND NOT (" + (0..<40).map { "pages == \(100 + 7 * $0)" }.joined(separator: " OR ") + ")") { b in
            b.pages > 300 && !(0..<40).contains { b.pages == 100 + 7 * $0 }
        },
    ]

    static let subqueries: [SuiteCase] = [
        B("SUBQUERY(chapters, $c, $c.words > 3000).@count > 0") { $0.chapters.contains { ($0.words ?? 0) > 3000 } },
        B("SUBQUERY(chapters, $c, $c.words > 3000).@count == 0") { !$0.chapters.contains { ($0.words ?? 0) > 3000 } },
        B("SUBQUERY(chapters, $c, $c.title CONTAINS[c] 'war' OR $c.number == 3).@count >= 1") { $0.chapters.contains { has($0.title, "war", "c") || $0.number == 3 } },
        B("SUBQUERY(authors, $a, $a.country == 'France' AND $a.born != nil).@count > 0") { $0.authors.contains { $0.country == "France" && $0.born != nil } },
        B("SUBQUERY(authors, $a, $a.books.@count > 4).@count == authors.@count") { b in b.authors.filter { $0.books.count > 4 }.count == b.authors.count },
        B("SUBQUERY(authors, $a, ANY $a.books.publisher.name == 'Suhrkamp').@count > 0") { $0.authors.contains { $0.books.contains { $0.publisher?.name == "Suhrkamp" } } },
        B("SUBQUERY(chapters, $c, $c.book.pages > 400).@count > 1") { b in b.pages > 400 && b.chapters.count > 1 },
        B("SUBQUERY(chapters, $c, $c.number > 1 AND $c.words == nil).@count > 0") { $0.chapters.contains { $0.number > 1 && $0.words == nil } },
        B("SUBQUERY(chapters, $c, TRUEPREDICATE).@count == chapters.@count") { _ in true },
        B("SUBQUERY(chapters, $c, $c == nil).@count > 0") { _ in false },
        B("SUBQUERY(authors, $a, $a == %@).@count == 1", .author("Émile Zola")) { $0.authors.contains { $0.name == "Émile Zola" } },
        B("SUBQUERY(authors, $a, $a IN %@).@count == 1", .list([.author("Émile Zola"), .author("Frank Herbert")])) { $0.authors.filter { ["Émile Zola", "Frank Herbert"].contains($0.name) }.count == 1 },
        B("SUBQUERY(authors, $a, SUBQUERY($a.books, $b, $b.pages > 500).@count > 0).@count > 0") { $0.authors.contains { $0.books.contains { $0.pages > 500 } } },
        B("SUBQUERY(publisher.books, $b, $b.inPrint == NO).@count > 3") { $0.publisher.map { $0.books.filter { !$0.inPrint }.count > 3 } ?? false },
        B("SUBQUERY(publisher.books, $b, $b.inPrint == NO).@count == 0") { $0.publisher.map { $0.books.allSatisfy(\.inPrint) } ?? true },
        A("SUBQUERY(books, $b, $b.pages > 300 AND $b.inPrint == YES).@count >= 2") { $0.books.filter { $0.pages > 300 && $0.inPrint }.count >= 2 },
        A("SUBQUERY(books, $b, $b.chapters.@count == 3).@count > 0") { $0.books.contains { $0.chapters.count == 3 } },
        A("SUBQUERY(books, $b, $b.title BEGINSWITH[cd] 'e').@count > 0") { $0.books.contains { begins($0.title, "e", "cd") } },
        A("SUBQUERY(books.chapters, $c, $c.title BEGINSWITH 'Peace').@count > 1") { $0.books.flatMap(\.chapters).filter { begins($0.title, "Peace") }.count > 1 },
        P("SUBQUERY(books, $b, ALL $b.authors.country != nil).@count > 5") { $0.books.filter { $0.authors.allSatisfy { $0.country != nil } }.count > 5 },
        P("SUBQUERY(books, $b, $b.price == nil).@count == 0") { !$0.books.contains { $0.price == nil } },
    ]

    static let logic: [SuiteCase] = [
        B("pages > 300 AND inPrint == YES") { $0.pages > 300 && $0.inPrint },
        B("pages > 500 OR pages < 120") { $0.pages > 500 || $0.pages < 120 },
        B("pages > 300 && inPrint == YES || title BEGINSWITH 'N'") { ($0.pages > 300 && $0.inPrint) || begins($0.title, "N") },
        B("pages > 300 AND (inPrint == YES OR title BEGINSWITH 'N')") { $0.pages > 300 && ($0.inPrint || begins($0.title, "N")) },
        B("NOT (pages > 300 OR price == nil)") { !($0.pages > 300 || $0.price == nil) },
        B("!(pages > 300) && !(rating < 2)") { !($0.pages > 300) && !($0.rating.map { $0 < 2 } ?? false) },
        B("NOT NOT inPrint == YES") { $0.inPrint },
        B("(((pages > 100)))") { $0.pages > 100 },
        B("TRUEPREDICATE AND pages > 400") { $0.pages > 400 },
        B("FALSEPREDICATE OR pages < 110") { $0.pages < 110 },
        B("NOT FALSEPREDICATE") { _ in true },
        B("publisher.name == 'Ace' OR ANY authors.country == 'Japan'") { $0.publisher?.name == "Ace" || $0.authors.contains { $0.country == "Japan" } },
        B("NOT (ANY authors.country == 'France') AND chapters.@count > 0") { !$0.authors.contains { $0.country == "France" } && !$0.chapters.isEmpty },
        B("(price > 20 OR rating > 4) AND NOT publisher == nil") { (($0.price ?? 0) > 20 || ($0.rating ?? 0) > 4) && $0.publisher != nil },
        B("title BEGINSWITH 'D' AND NOT title ENDSWITH 'e'") { begins($0.title, "D") && !ends($0.title, "e") },
        A("country == 'France' OR country == 'Japan' OR name CONTAINS 'Lem'") { $0.country == "France" || $0.country == "Japan" || has($0.name, "Lem") },
        A("NOT (books.@count > 2 AND born < %@)", .date(d1950)) { !($0.books.count > 2 && ($0.born.map { $0 < d1950 } ?? false)) },
        C("(number == 1 OR number == 3) AND NOT words == nil") { ($0.number == 1 || $0.number == 3) && $0.words != nil },
    ]

    static let substitution: [SuiteCase] = [
        B("%K > %d", .s("pages"), .i(450)) { $0.pages > 450 },
        B("%K BEGINSWITH[c] %@", .s("title"), .s("d")) { begins($0.title, "d", "c") },
        B("ANY %K.%K == %@", .s("authors"), .s("name"), .s("Frank Herbert")) { $0.authors.contains { $0.name == "Frank Herbert" } },
        B("%K.@count == %i", .s("chapters"), .i(1)) { $0.chapters.count == 1 },
        B("title == %s", .s("Идиот")) { $0.title == "Идиот" },
        B("pages > $MIN AND pages < $MAX", vars: ["MIN": .i(200), "MAX": .i(300)]) { (201...299).contains($0.pages) },
        B("title BEGINSWITH[cd] $PREFIX", vars: ["PREFIX": .s("CRONICA")]) { begins($0.title, "CRONICA", "cd") },
        B("publisher == $P", vars: ["P": .publisher("Suhrkamp")]) { $0.publisher?.name == "Suhrkamp" },
        B("price == $NOTHING", vars: ["NOTHING": .null]) { $0.price == nil },
        B("pages IN $LIST", vars: ["LIST": .list([.i(127), .i(164)])]) { [127, 164].contains($0.pages) },
        B("SUBQUERY(chapters, $c, $c.words > $W).@count > 0", vars: ["W": .i(4000)]) { $0.chapters.contains { ($0.words ?? 0) > 4000 } },
        B("published < $DATE", vars: ["DATE": .date(d1980)]) { $0.published.map { $0 < d1980 } ?? false },
        B("#title == 'Dune'") { $0.title == "Dune" },
        B("title ==[c] %@ OR title ==[c] %@", .s("NANA"), .s("idiot")) { eq($0.title, "NANA", "c") || eq($0.title, "idiot", "c") },
    ]
}

// MARK: - Running the suite

enum SuiteRunner {
    static func keys(_ objects: [ManagedObject], entity: String) throws -> Set<String> {
        let key = PredicateFixture.uniqueKey(entity)
        return Set(try objects.map { try $0.attributeValue(forKey: key).stringValue ?? "?" })
    }

    /// A fetch through a context (SQL for an SQLite store, the store's rows for an in-memory one).
    static func fetched(_ p: Predicate, entity: String, in context: ManagedObjectContext) throws -> Set<String> {
        try context.performAndWait {
            var r = FetchRequest<ManagedObject>(entityName: entity)
            r.predicate = p
            return try keys(context.fetch(r), entity: entity)
        }
    }

    /// The predicate evaluated in memory on every object of the entity.
    static func evaluated(_ p: Predicate, entity: String, in context: ManagedObjectContext) throws -> Set<String> {
        try context.performAndWait {
            let all = try context.fetch(FetchRequest<ManagedObject>(entityName: entity))
            try PredicateValidator.validate(p, entity: try context.persistentStoreCoordinator.managedObjectModel.requireEntity(entity))
            return try keys(all.filter { try PredicateEvaluator.evaluate(p, on: $0) }, entity: entity)
        }
    }
}

@Suite("Predicate suite: SQL, memory and an in-memory store agree with an oracle")
struct PredicateSuiteTests {
    @Test("the suite has at least 150 predicates")
    func size() {
        #expect(SuiteCases.all.count >= 150)
        #expect(Set(SuiteCases.all.map(\.testDescription)).count == SuiteCases.all.count)
        // Most predicates must select some objects and leave some out, or they test little.
        let d = PredicateFixture.data
        let totals = ["Book": d.books.count, "Author": d.authors.count, "Publisher": d.publishers.count, "Chapter": d.chapters.count]
        let trivial = SuiteCases.all.filter { c in
            let n = c.expected().count
            return n == 0 || n == totals[c.entity]
        }
        #expect(trivial.count <= 25, "\(trivial.map(\.testDescription))")
    }

    @Test("each predicate: SQL == memory == in-memory store == oracle; print → parse gives the same AST", arguments: SuiteCases.all)
    func agree(_ c: SuiteCase) throws {
        let sql = try PredicateFixture.sqliteStack()
        let p = try sql.context.performAndWait { try c.predicate(in: sql.context) }
        let viaSQL = try SuiteRunner.fetched(p, entity: c.entity, in: sql.context)
        let inMemory = try SuiteRunner.evaluated(p, entity: c.entity, in: sql.context)
        let mem = try PredicateFixture.inMemoryStack()
        let pm = try mem.context.performAndWait { try c.predicate(in: mem.context) }
        let viaStore = try SuiteRunner.fetched(pm, entity: c.entity, in: mem.context)
        let expected = c.expected()
        #expect(viaSQL == expected, "SQL")
        #expect(inMemory == expected, "memory")
        #expect(viaStore == expected, "in-memory store")
        // Print and parse again.
        if !(c.args + c.variables.values).contains(where: \.hasObject) {
            let again = try Predicate(format: p.predicateFormat)
            #expect(again == p, "\(p.predicateFormat)")
        } else {
            #expect(!p.predicateFormat.isEmpty)
        }
        let template = try Predicate(format: c.format, argumentArray: try sql.context.performAndWait { try c.args.map { try $0.value(in: sql.context) } })
        if !c.args.contains(where: \.hasObject) {
            #expect(try Predicate(format: template.predicateFormat) == template)
        }
    }
}
