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
            final class Author: ManagedObject {
                var name: String {
                    get {
                        value(ofAttribute: "name")
                    }
                    set {
                        setValue(newValue, ofAttribute: "name")
                    }
                }
                var books: Set<Book> {
                    get {
                        objects(ofToMany: "books")
                    }
                    set {
                        setObjects(newValue, ofToMany: "books")
                    }
                }
                var publisher: Publisher? {
                    get {
                        object(ofToOne: "publisher")
                    }
                    set {
                        setObject(newValue, ofToOne: "publisher")
                    }
                }
                var notes: [Note] {
                    get {
                        orderedObjects(ofToMany: "notes")
                    }
                    set {
                        setOrderedObjects(newValue, ofToMany: "notes")
                    }
                }

                /// The name of the class's entity in the model.
                static var entityName: String {
                    "Author"
                }

                /// The class's entity, from its stored properties.
                static var entityDescription: CoreStack.EntityDescription {
                    _ = \\Book.authors
                    return CoreStack.EntityDescription(
                        name: entityName,
                        attributes: [
                            CoreStack.AttributeDescription("name", .string, isOptional: false),
                        ],
                        relationships: [
                            CoreStack.RelationshipDescription("books", destination: Book.entityName, inverse: "authors", toMany: true, minCount: 1),
                            CoreStack.RelationshipDescription("publisher", destination: Publisher.entityName, inverse: "authors"),
                            CoreStack.RelationshipDescription("notes", destination: Note.entityName, inverse: "author", toMany: true, isOrdered: true, deleteRule: .cascade),
                        ],
                        managedObjectClass: Author.self
                    )
                }

                /// The model property each key path of the class names.
                static var propertyKeyPaths: [PartialKeyPath<Author>: String] {
                    [
                        \\Author.name: "name",
                        \\Author.books: "books",
                        \\Author.publisher: "publisher",
                        \\Author.notes: "notes",
                    ]
                }
            }

            extension Author: DeclaredEntity, PropertyKeyPathTable {
            }
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
            public class Person: ManagedObject {
                var name: String {
                    get {
                        value(ofAttribute: "name")
                    }
                    set {
                        setValue(newValue, ofAttribute: "name")
                    }
                }

                /// The name of the class's entity in the model.
                public class var entityName: String {
                    "Person"
                }

                /// The class's entity, from its stored properties.
                public class var entityDescription: CoreStack.EntityDescription {
                    CoreStack.EntityDescription(
                        name: entityName,
                        isAbstract: true,
                        attributes: [
                            CoreStack.AttributeDescription("name", .string, isOptional: false),
                        ],
                        relationships: [],
                        managedObjectClass: Person.self
                    )
                }
            }
            final class Author: Person {
                var pen: String? {
                    get {
                        value(ofAttribute: "pen")
                    }
                    set {
                        setValue(newValue, ofAttribute: "pen")
                    }
                }

                /// The name of the class's entity in the model.
                override static var entityName: String {
                    "Writer"
                }

                /// The class's entity, from its stored properties.
                override static var entityDescription: CoreStack.EntityDescription {
                    CoreStack.EntityDescription(
                        name: entityName,
                        superentityName: Person.entityName,
                        attributes: [
                            CoreStack.AttributeDescription("pen", .string),
                        ],
                        relationships: [],
                        managedObjectClass: Author.self,
                        versionHashModifier: "2"
                    )
                }

                /// The model property each key path of the class names.
                static var propertyKeyPaths: [PartialKeyPath<Author>: String] {
                    [
                        \\Author.pen: "pen",
                    ]
                }
            }

            extension Person: DeclaredEntity {
            }

            extension Author: PropertyKeyPathTable {
            }
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
            final class GraphicNovel: Book {
                var illustrator: String? {
                    get {
                        value(ofAttribute: "illustrator")
                    }
                    set {
                        setValue(newValue, ofAttribute: "illustrator")
                    }
                }

                /// The name of the class's entity in the model.
                override static var entityName: String {
                    "GraphicNovel"
                }

                /// The class's entity, from its stored properties.
                override static var entityDescription: CoreStack.EntityDescription {
                    CoreStack.EntityDescription(
                        name: entityName,
                        superentityName: Book.entityName,
                        attributes: [
                            CoreStack.AttributeDescription("illustrator", .string),
                        ],
                        relationships: [],
                        managedObjectClass: GraphicNovel.self
                    )
                }

                /// The model property each key path of the class names.
                static var propertyKeyPaths: [PartialKeyPath<GraphicNovel>: String] {
                    [
                        \\GraphicNovel.illustrator: "illustrator",
                    ]
                }
            }

            extension GraphicNovel: PropertyKeyPathTable {
            }
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
            final class Trip: ManagedObject {
                var name: String {
                    get {
                        value(ofAttribute: "name")
                    }
                    set {
                        setValue(newValue, ofAttribute: "name")
                    }
                }

                /// The name of the class's entity in the model.
                static var entityName: String {
                    "Trip"
                }

                /// The class's entity, from its stored properties.
                static var entityDescription: CoreStack.EntityDescription {
                    CoreStack.EntityDescription(
                        name: entityName,
                        attributes: [
                            CoreStack.AttributeDescription("name", .string, isOptional: false),
                        ],
                        relationships: [],
                        managedObjectClass: Trip.self
                    )
                }

                /// The model property each key path of the class names.
                static var propertyKeyPaths: [PartialKeyPath<Trip>: String] {
                    [
                        \\Trip.name: "name",
                    ]
                }
            }

            extension Trip: DeclaredEntity, PropertyKeyPathTable {
            }
            """)
    }
}
