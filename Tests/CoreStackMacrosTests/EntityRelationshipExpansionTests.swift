import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite("@Entity's relationships, sub-entities and @Model")
struct EntityRelationshipExpansionTests {
    @Test("to-one, to-many and ordered to-many, with inverses, delete rules and counts")
    func relationships() {
        assertExpansion(
            """
            @Entity
            final class Author: ManagedObject {
                var name: String
                @Relationship(inverse: "authors", minCount: 1) var books: Set<Book>
                @Relationship(inverse: \\Publisher.authors) var publisher: Publisher?
                @Relationship(deleteRule: .cascade, inverse: \\Note.author) var notes: [Note]
            }
            """,
            expandedSource: """
            """)
    }

    @Test("an abstract parent entity, a sub-entity, a custom entity name")
    func inheritance() {
        assertExpansion(
            """
            @ParentEntity(isAbstract: true)
            public class Person: ManagedObject {
                var name: String
            }
            @Entity("Writer", hashModifier: "2")
            final class Author: Person {
                var pen: String?
            }
            """,
            expandedSource: """
            """,
            conformances: ["PropertyKeyPathTable"])
    }

    @Test("a sub-entity's class gets only the conformances its parent lacks")
    func subentityConformances() {
        assertExpansion(
            """
            @Entity
            final class GraphicNovel: Book {
                var illustrator: String?
            }
            """,
            expandedSource: """
            """,
            conformances: ["PropertyKeyPathTable"])
    }

    @Test("@Model is the same macro")
    func modelSpelling() {
        assertExpansion(
            """
            @Model
            final class Trip: ManagedObject {
                var name: String
            }
            """,
            expandedSource: """
            """)
    }
}
