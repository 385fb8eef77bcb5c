import Foundation
import Testing
@testable import CoreStack

@Suite("Predicate format parser and printer")
struct PredicateParserTests {
    @Test("comparisons, operators and modifiers parse to the AST")
    func basics() throws {
        #expect(try Predicate(format: "title == 'Dune'") == .comparison(Comparison(.keyPath("title"), .equal, .constant("Dune"))))
        #expect(try Predicate(format: "pages >= 100") == .comparison(Comparison(.keyPath("pages"), .greaterThanOrEqual, .constant(100))))
        #expect(try Predicate(format: "pages => 100") == Predicate(format: "pages >= 100"))
        #expect(try Predicate(format: "pages =< 100") == Predicate(format: "pages <= 100"))
        #expect(try Predicate(format: "pages <> 1") == Predicate(format: "pages != 1"))
        #expect(try Predicate(format: "pages = 1") == Predicate(format: "pages == 1"))
        #expect(try Predicate(format: "title BEGINSWITH[cd] %@", "du")
            == .comparison(Comparison(.keyPath("title"), .beginsWith, .constant("du"), options: [.caseInsensitive, .diacriticInsensitive])))
        #expect(try Predicate(format: "ANY authors.name == %@", "X")
            == .comparison(Comparison(.keyPath("authors.name"), .equal, .constant("X"), modifier: .any)))
        #expect(try Predicate(format: "some authors.name == 'X'") == Predicate(format: "ANY authors.name == 'X'"))
        #expect(try Predicate(format: "NONE authors.name == 'X'")
            == .not(.comparison(Comparison(.keyPath("authors.name"), .equal, .constant("X"), modifier: .any))))
        #expect(try Predicate(format: "pages BETWEEN {1, 5}")
            == .comparison(Comparison(.keyPath("pages"), .between, .list([.constant(1), .constant(5)]))))
        #expect(try Predicate(format: "title IN %@", ["a", "b"])
            == .comparison(Comparison(.keyPath("title"), .in, .list([.constant("a"), .constant("b")]))))
        #expect(try Predicate(format: "publisher == nil") == .comparison(Comparison(.keyPath("publisher"), .equal, .constant(.null))))
        #expect(try Predicate(format: "publisher == NULL") == Predicate(format: "publisher == nil"))
        #expect(try Predicate(format: "flag == YES AND other == false")
            == .and([.comparison(Comparison(.keyPath("flag"), .equal, .constant(true))), .comparison(Comparison(.keyPath("other"), .equal, .constant(false)))]))
        #expect(try Predicate(format: "TRUEPREDICATE") == .constant(true))
        #expect(try Predicate(format: "falsepredicate") == .constant(false))
        #expect(try Predicate(format: "books.@count > 2") == .comparison(Comparison(.keyPath("books.@count"), .greaterThan, .constant(2))))
        #expect(try Predicate(format: "SELF == %@", ManagedObjectIDStub.none as Any?) == .comparison(Comparison(.evaluatedObject, .equal, .constant(.null))))
    }

    @Test("precedence: NOT binds tighter than AND, AND tighter than OR; parentheses group")
    func precedence() throws {
        let a = Predicate.comparison(Comparison(.keyPath("a"), .equal, .constant(1)))
        let b = Predicate.comparison(Comparison(.keyPath("b"), .equal, .constant(2)))
        let c = Predicate.comparison(Comparison(.keyPath("c"), .equal, .constant(3)))
        #expect(try Predicate(format: "a == 1 OR b == 2 AND c == 3") == .or([a, .and([b, c])]))
        #expect(try Predicate(format: "(a == 1 || b == 2) && c == 3") == .and([.or([a, b]), c]))
        #expect(try Predicate(format: "NOT a == 1 AND b == 2") == .and([.not(a), b]))
        #expect(try Predicate(format: "!(a == 1)") == .not(a))
    }

    @Test("format specifiers, keywords as keys, variables, subqueries, casts")
    func specifiersAndMore() throws {
        #expect(try Predicate(format: "%K == %d", "pages", 12) == Predicate(format: "pages == 12"))
        #expect(try Predicate(format: "%K == %ld AND price < %f AND title == %s", "pages", Int64(3), 2.5, "x")
            == Predicate(format: "pages == 3 AND price < 2.5 AND title == 'x'"))
        #expect(try Predicate(format: "#in == 1") == .comparison(Comparison(.keyPath("in"), .equal, .constant(1))))
        #expect(try Predicate(format: "%K == 1", "AND") == .comparison(Comparison(.keyPath("AND"), .equal, .constant(1))))
        let template = try Predicate(format: "pages > $MIN AND title == $T")
        #expect(try template.withSubstitutionVariables(["MIN": 5, "T": "x"]) == Predicate(format: "pages > 5 AND title == 'x'"))
        #expect(throws: CoreStackError.invalidPredicate("no value for the variable $T")) { try template.withSubstitutionVariables(["MIN": 1]) }
        let sub = try Predicate(format: "SUBQUERY(chapters, $c, $c.title CONTAINS[c] 'war' AND $c.pages > $N).@count > 0")
        let expected = Predicate.comparison(Comparison(
            .aggregate("@count", of: .subquery(
                collection: "chapters", variable: "c",
                predicate: .and([
                    .comparison(Comparison(.keyPath("$c.title"), .contains, .constant("war"), options: .caseInsensitive)),
                    .comparison(Comparison(.keyPath("$c.pages"), .greaterThan, .variable("N"))),
                ]))),
            .greaterThan, .constant(0)))
        #expect(sub == expected)
        // $c is bound by the SUBQUERY; $N is substituted.
        let substituted = try sub.withSubstitutionVariables(["N": 10])
        #expect(substituted.predicateFormat.contains("$c.pages > 10"))
        let date = Date(timeIntervalSinceReferenceDate: 12.5)
        #expect(try Predicate(format: "born < %@", date) == Predicate(format: "born < CAST(12.5, 'NSDate')"))
        let u = UUID()
        #expect(try Predicate(format: "isbn == %@", u) == Predicate(format: "isbn == CAST(%@, 'UUID')", u.uuidString))
        #expect(try Predicate(format: "title == \"a\\\"b\\n\\u00e9\"") == .comparison(Comparison(.keyPath("title"), .equal, .constant("a\"b\né"))))
        #expect(try Predicate(format: "n == 0x1F OR n == -2.5e1") == Predicate(format: "n == 31 OR n == -25.0"))
    }

    @Test("printing and parsing again gives an equal predicate")
    func roundTrip() throws {
        let formats = [
            "title == \"Dune\"", "title BEGINSWITH[cd] \"du\" AND pages > 300", "NOT (a == 1) OR (b == 2 AND c != nil)",
            "ANY authors.name ==[c] \"x\"", "ALL chapters.pages > 10", "NONE authors.name == \"y\"",
            "pages BETWEEN {1, 9}", "title IN {\"a\", \"b\", \"c\\\"d\"}", "books.@count >= 2", "books.pages.@sum < 1000",
            "SUBQUERY(books, $b, $b.pages > 100 AND $b.title LIKE[c] \"*war*\").@count == 0",
            "#in == 1 AND #self.#and == 2", "flag == TRUE", "price < 2.5", "born > CAST(100.0, \"NSDate\")",
            "isbn == CAST(\"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\", \"UUID\")", "TRUEPREDICATE", "SELF == $OBJ",
            "cost == CAST(\"1.25\", \"NSDecimalNumber\")", "title MATCHES \"^[A-Z].*\"", "tags CONTAINS \"x\"",
        ]
        for f in formats {
            let p = try Predicate(format: f)
            let printed = p.predicateFormat
            let again = try Predicate(format: printed)
            #expect(again == p, "\(f) printed as \(printed)")
        }
    }

    @Test("syntax errors say what was expected and where")
    func errors() {
        func message(_ format: String, _ args: Any?...) -> String {
            do {
                _ = try Predicate(format: format, argumentArray: args)
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        #expect(message("title == ") == "cannot parse predicate \"title == \": expected a value after \"==\", found the end of the predicate at column 10")
        #expect(message("title =! 3").contains("at column"))
        #expect(message("title ~ 3").contains("unexpected character \"~\" at column 7"))
        #expect(message("title == 'abc").contains("unterminated string"))
        #expect(message("(a == 1").contains("expected \")\" to close the parenthesis opened at column 1"))
        #expect(message("a == %@").contains("missing argument for %@"))
        #expect(message("a == 1", 5).contains("argument(s) left over"))
        #expect(message("%K == 1", 5).contains("the argument for %K must be a key name"))
        #expect(message("a BETWEEN {1}").contains("BETWEEN needs two values"))
        #expect(message("AND == 1").contains("the keyword \"AND\""))
        #expect(message("a ==[x] 1").contains("unknown comparison option"))
        #expect(message("a.@foo > 1").contains("unknown aggregate"))
        #expect(message("a == 1 b == 2").contains("expected AND, OR or the end of the predicate"))
        #expect(message("a == %d", "x").contains("must be an integer"))
    }
}

/// A nil of an optional type, to pass nil as a `%@` argument.
enum ManagedObjectIDStub { static let none: ManagedObjectID? = nil }

@Suite("Getting started predicate example (DocC)")
struct ReadmePredicateExampleTests {
    @Test("the format-language example of GettingStarted.md prints what the article says")
    func readmeExample() throws {
        let p = try Predicate(format: "title BEGINSWITH[cd] %@ AND folder.notes.@count > %d", "call", 2)
        #expect(p.predicateFormat == "(title BEGINSWITH[cd] \"call\") AND (folder.notes.@count > 2)")
    }
}
