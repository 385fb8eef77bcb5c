import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite("@Entity expands a class into accessors, its entity and its key path table")
struct EntityExpansionTests {
    @Test("attributes of every kind: optionality, defaults, @Unique, @Indexed, @Transient, @AttributeOptions")
    func attributes() {
        assertExpansion(
            """
            @Entity
            public final class Book: ManagedObject {
                @Indexed var title: String
                var subtitle: String?
                var pages: Int32 = 100
                var rating: Double? = 2.5
                @Unique var isbn: UUID
                @AttributeOptions(externalStorage: true) var cover: Data?
                @AttributeOptions(originalName: "site", minValue: 4, maxValue: 200) var homepage: URL?
                @Transient var isSelected: Bool = false
                var initial: String { String(title.prefix(1)) }
                static let shelf = "A"
            }
            """,
            expandedSource: """
            public final class Book: ManagedObject {
                var title: String {
                    get {
                        value(ofAttribute: "title")
                    }
                    set {
                        setValue(newValue, ofAttribute: "title")
                    }
                }
                var subtitle: String? {
                    get {
                        value(ofAttribute: "subtitle")
                    }
                    set {
                        setValue(newValue, ofAttribute: "subtitle")
                    }
                }
                var pages: Int32 {
                    init(initialValue) {
                    }
                    get {
                        value(ofAttribute: "pages")
                    }
                    set {
                        setValue(newValue, ofAttribute: "pages")
                    }
                }
                var rating: Double? {
                    init(initialValue) {
                    }
                    get {
                        value(ofAttribute: "rating")
                    }
                    set {
                        setValue(newValue, ofAttribute: "rating")
                    }
                }
                var isbn: UUID {
                    get {
                        value(ofAttribute: "isbn")
                    }
                    set {
                        setValue(newValue, ofAttribute: "isbn")
                    }
                }
                var cover: Data? {
                    get {
                        value(ofAttribute: "cover")
                    }
                    set {
                        setValue(newValue, ofAttribute: "cover")
                    }
                }
                var homepage: URL? {
                    get {
                        value(ofAttribute: "homepage")
                    }
                    set {
                        setValue(newValue, ofAttribute: "homepage")
                    }
                }
                var isSelected: Bool {
                    init(initialValue) {
                    }
                    get {
                        value(ofAttribute: "isSelected")
                    }
                    set {
                        setValue(newValue, ofAttribute: "isSelected")
                    }
                }
                var initial: String { String(title.prefix(1)) }
                static let shelf = "A"

                /// The name of the class's entity in the model.
                public static var entityName: String {
                    "Book"
                }

                /// The class's entity, from its stored properties.
                public static var entityDescription: CoreStack.EntityDescription {
                    CoreStack.EntityDescription(
                        name: entityName,
                        attributes: [
                            CoreStack.AttributeDescription("title", .string, isOptional: false, isIndexed: true),
                            CoreStack.AttributeDescription("subtitle", .string),
                            CoreStack.AttributeDescription("pages", .integer32, isOptional: false, defaultValue: (100 as Int32).attributeValue),
                            CoreStack.AttributeDescription("rating", .double, defaultValue: (2.5 as Double).attributeValue),
                            CoreStack.AttributeDescription("isbn", .uuid, isOptional: false),
                            CoreStack.AttributeDescription("cover", .binaryData, allowsExternalBinaryDataStorage: true),
                            CoreStack.AttributeDescription("homepage", .uri, minValue: (4 as URL).attributeValue, maxValue: (200 as URL).attributeValue, renamingIdentifier: "site"),
                            CoreStack.AttributeDescription("isSelected", .boolean, isOptional: false, isTransient: true, defaultValue: (false as Bool).attributeValue),
                        ],
                        relationships: [],
                        uniquenessConstraints: [["isbn"]],
                        managedObjectClass: Book.self
                    )
                }

                /// The model property each key path of the class names.
                public static var propertyKeyPaths: [PartialKeyPath<Book>: String] {
                    [
                        \\Book.title: "title",
                        \\Book.subtitle: "subtitle",
                        \\Book.pages: "pages",
                        \\Book.rating: "rating",
                        \\Book.isbn: "isbn",
                        \\Book.cover: "cover",
                        \\Book.homepage: "homepage",
                        \\Book.isSelected: "isSelected",
                    ]
                }
            }

            extension Book: DeclaredEntity, PropertyKeyPathTable {
            }
            """)
    }
}
