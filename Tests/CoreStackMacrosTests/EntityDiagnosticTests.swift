import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite("@Entity's diagnostics for misuse")
struct EntityDiagnosticTests {
    @Test("a non-final class, with a fix-it that makes it final")
    func nonFinal() {
        assertExpansion(
            """
            @Entity
            class Book: ManagedObject {
                var title: String
            }
            """,
            expandedSource: """
            class Book: ManagedObject {
                var title: String
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@Entity class 'Book' must be final; a class that other entity classes inherit from is declared with @ParentEntity",
                    line: 2, column: 1, fixIts: [FixItSpec(message: "make the class final")]),
            ],
            applyFixIts: ["make the class final"],
            fixedSource: """
            @Entity
            final class Book: ManagedObject {
                var title: String
            }
            """)
    }

    @Test("a relationship without an inverse")
    func noInverse() {
        assertExpansion(
            """
            @Entity
            final class Book: ManagedObject {
                var authors: Set<Author>
                var publisher: Publisher?
            }
            """,
            expandedSource: """
            final class Book: ManagedObject {
                var authors: Set<Author>
                var publisher: Publisher?
            }
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "relationship 'authors' to 'Author' names no inverse: add @Relationship(inverse: \\Author.<the relationship back>) (both sides of a relationship name each other, as in a Core Data model)",
                    line: 3, column: 5),
                DiagnosticSpec(
                    message: "relationship 'publisher' to 'Publisher' names no inverse: add @Relationship(inverse: \\Publisher.<the relationship back>) (both sides of a relationship name each other, as in a Core Data model)",
                    line: 4, column: 5),
            ])
    }

    @Test("unsupported types: a collection of values, a type no attribute stores, a tuple")
    func unsupportedTypes() {
        let kinds = "an attribute is String, Int, Int16, Int32, Int64, Double, Float, Bool, Date, Data, UUID, URL or Decimal (optional or not); a relationship is Entity? (to-one), Set<Entity> (to-many) or [Entity] (ordered to-many)"
        assertExpansion(
            """
            @Entity
            final class Book: ManagedObject {
                var tags: [String]
                var origin: CGPoint
                var size: (Int, Int)
            }
            """,
            expandedSource: """
            final class Book: ManagedObject {
                var tags: [String]
                var origin: CGPoint
                var size: (Int, Int)
            }
            """,
            diagnostics: [
                DiagnosticSpec(message: "'tags' has type '[String]', which no attribute type stores: \(kinds)", line: 3, column: 5),
                DiagnosticSpec(message: "'origin' has type 'CGPoint', which no attribute type stores: \(kinds)", line: 4, column: 5),
                DiagnosticSpec(message: "'size' has type '(Int, Int)', which no attribute type stores: \(kinds)", line: 5, column: 5),
            ])
    }

    @Test("a class without a superclass, a struct")
    func notAManagedObject() {
        assertExpansion(
            """
            @Entity
            final class Book {
                var title: String
            }
            @Entity
            struct Shelf {
                var label: String
            }
            """,
            expandedSource: """
            final class Book {
                var title: String
            }
            struct Shelf {
                var label: String
            }
            """,
            diagnostics: [
                DiagnosticSpec(message: "@Entity class 'Book' must inherit from ManagedObject (or from another @Entity class)", line: 2, column: 13),
                DiagnosticSpec(message: "@Entity applies to a class that inherits from ManagedObject", line: 5, column: 1),
            ])
    }

    @Test("a let, a property without a type, a to-one that is not optional, an inverse of another entity")
    func propertyMistakes() {
        assertExpansion(
            """
            @Entity
            final class Book: ManagedObject {
                let title: String
                var pages = 10
                @Relationship(inverse: \\Publisher.books) var publisher: Publisher
                @Relationship(inverse: \\Author.books) var editor: Editor?
            }
            """,
            expandedSource: """
            final class Book: ManagedObject {
                let title: String
                var pages = 10
                var publisher: Publisher
                var editor: Editor?
            }
            """,
            diagnostics: [
                DiagnosticSpec(message: "'title' is a let: a model property is a var (its value lives in the object's context)", line: 3, column: 5, fixIts: [FixItSpec(message: "use var")]),
                DiagnosticSpec(message: "'pages' needs a type annotation: the model property's type is read from it", line: 4, column: 9),
                DiagnosticSpec(message: "to-one relationship 'publisher' must be optional: declare it 'Publisher?'", line: 5, column: 5),
                DiagnosticSpec(message: "the inverse of 'editor' starts at 'Author', but the relationship leads to 'Editor'", line: 6, column: 28),
            ])
    }
}
