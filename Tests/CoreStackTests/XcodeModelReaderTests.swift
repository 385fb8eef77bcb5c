import Foundation
import TestSupportKit
import Testing

@testable import CoreStack

// MARK: - Helpers

private func bundle(_ relative: String) throws -> ManagedObjectModelBundle {
    try XcodeModelReader.readBundle(at: Fixtures.url("models/" + relative))
}

/// Parses an in-memory `contents` XML and returns the error it throws (nil when it parses).
private func parseError(_ xml: String) -> CoreStackError? {
    do {
        _ = try XcodeModelReader.parse(contents: Data(xml.utf8), versionName: "Test")
        return nil
    } catch let error as CoreStackError {
        return error
    } catch {
        Issue.record("not a CoreStackError: \(error)")
        return nil
    }
}

private func parse(_ xml: String) throws -> ManagedObjectModel {
    try XcodeModelReader.parse(contents: Data(xml.utf8), versionName: "Test")
}

/// A fresh temporary folder, removed by the caller.
private func temporaryFolder() throws -> URL {
    try TemporaryRoot.folder("xcdatamodel")
}

private func write(_ text: String, to url: URL) throws {
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
}

private let minimalContents = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
        <entity name="Note"><attribute name="text" optional="YES" attributeType="String"/></entity>
    </model>
    """

// MARK: - Every fixture bundle

@Suite("XcodeModelReader fixtures")
struct XcodeModelReaderFixtureTests {
    /// Every `.xcdatamodeld` in the fixtures: version count and current version.
    static let expected: [String: (count: Int, current: String)] = [
        "alemar11-CoreDataPlus/SampleModel.xcdatamodeld": (3, "SampleModel"),
        "alemar11-CoreDataPlus/SampleModel3.xcdatamodeld": (3, "SampleModel3"),
        "apple-iPhoneCoreDataRecipes-2018/Recipes.xcdatamodeld": (1, "Recipes"),
        "atomicbird-momcom/momcomTests.xcdatamodeld": (2, "momcTests 2"),
        "bnr-CoreDataStack/Container_Example.xcdatamodeld": (1, "Container_Example"),
        "bnr-CoreDataStack/Sample.xcdatamodeld": (2, "TestModel 2"),
        "bnr-CoreDataStack/UniqueConstraintModel.xcdatamodeld": (1, "UniqueConstraintModel"),
        "bnr-CoreDataStack-2015/TestModel.xcdatamodeld": (2, "TestModel 2"),
        "demo/DemoLibrary.xcdatamodeld": (1, "DemoLibrary"),
        "wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld": (4, "CoreDataMigration_Example 4"),
    ]

    @Test func everyFixtureBundleLoads() throws {
        let models = Fixtures.url("models")
        var found: [String] = []
        for source in try FileManager.default.contentsOfDirectory(atPath: models.path) {
            let folder = models.appendingPathComponent(source)
            for item in try FileManager.default.contentsOfDirectory(atPath: folder.path)
            where item.hasSuffix(".xcdatamodeld") {
                found.append("\(source)/\(item)")
            }
        }
        #expect(found.sorted() == Self.expected.keys.sorted())
        for relative in found {
            let b = try bundle(relative)
            let want = try #require(Self.expected[relative])
            #expect(b.versions.count == want.count, "\(relative)")
            #expect(b.currentVersion.versionName == want.current, "\(relative)")
            #expect(b.versions.contains { $0 === b.currentVersion }, "\(relative)")
            #expect(b.name == URL(fileURLWithPath: relative).deletingPathExtension().lastPathComponent)
            for v in b.versions {
                #expect(!v.entities.isEmpty, "\(relative) \(v.versionName ?? "?")")
                #expect(v.entities.map(\.entityNumber) == Array(1...v.entities.count))
            }
        }
    }

    @Test func readModelReturnsTheCurrentVersion() throws {
        let url = Fixtures.url("models/bnr-CoreDataStack/Sample.xcdatamodeld")
        let model = try XcodeModelReader.readModel(at: url)
        #expect(model.versionName == "TestModel 2")
        #expect(model.entities.map(\.name) == ["Author", "Book", "Publisher"])

        let v1 = try XcodeModelReader.readModel(at: url.appendingPathComponent("TestModel.xcdatamodel"))
        #expect(v1.versionName == "TestModel")
        #expect(v1.entities.map(\.name) == ["Author", "Book"])
    }

    @Test func aSingleVersionFolderIsABundleOfOne() throws {
        let url = Fixtures.url("models/bnr-CoreDataStack/Sample.xcdatamodeld/TestModel 2.xcdatamodel")
        let b = try XcodeModelReader.readBundle(at: url)
        #expect(b.name == "TestModel 2")
        #expect(b.versions.count == 1)
        #expect(b.currentVersion.versionName == "TestModel 2")
    }

    // MARK: alemar11 CoreDataPlus

    @Test func alemarInheritanceConstraintsAndEntityNumbers() throws {
        let b = try bundle("alemar11-CoreDataPlus/SampleModel.xcdatamodeld")
        #expect(b.versions.map(\.versionName) == ["SampleModel", "SampleModel2", "SampleModel3"])
        let v1 = try #require(b.version(named: "SampleModel"))
        #expect(v1.versionIdentifiers == ["1"])

        // Three levels: ExpensiveSportCar < SportCar < Car.
        let expensive = try #require(v1.entity(named: "ExpensiveSportCar"))
        #expect(expensive.superentityName == "SportCar")
        #expect(expensive.superentity?.name == "SportCar")
        #expect(expensive.superentity?.superentity?.name == "Car")
        #expect(expensive.superentity?.superentity?.superentity == nil)
        #expect(expensive.rootEntity.name == "Car")
        #expect(expensive.representedClassName == "ExpensiveSportCar")
        #expect(v1.entity(named: "Car")?.subentities.map(\.name) == ["SportCar"])
        // Inherited properties come first.
        #expect(expensive.allAttributes.map(\.name) == [
            "color", "currentDrivingSpeed", "maker", "markedForDeletionAsOf", "model", "numberPlate",
            "isLimitedEdition",
        ])
        #expect(expensive.relationship(named: "owner")?.destinationEntityName == "Person")
        #expect(expensive.attribute(named: "isLimitedEdition")?.defaultValue == .bool(false))

        // Roots alphabetically, each followed by its sub-entities, depth first.
        #expect(v1.entities.map(\.name) == ["Car", "SportCar", "ExpensiveSportCar", "Person"])
        #expect(v1.entities.map(\.entityNumber) == [1, 2, 3, 4])
        #expect(v1.entity(number: 3)?.name == "ExpensiveSportCar")

        let car = try #require(v1.entity(named: "Car"))
        #expect(car.uniquenessConstraints == [["numberPlate"]])
        #expect(v1.entity(named: "Person")?.uniquenessConstraints == [["firstName", "lastName"]])
        #expect(car.attribute(named: "numberPlate")?.isOptional == false)
        #expect(car.attribute(named: "maker")?.isOptional == true)
        let speed = try #require(car.attribute(named: "currentDrivingSpeed"))
        #expect(speed.isTransient)
        #expect(speed.type == .integer64)
        #expect(speed.defaultValue == .integer(0))
        let color = try #require(car.attribute(named: "color"))
        #expect(color.type == .transformable)
        #expect(color.valueTransformerName == "ColorTransformer")
        let owner = try #require(car.relationship(named: "owner"))
        #expect(!owner.isToMany)
        #expect(owner.maxCount == 1)
        #expect(owner.inverseName == "cars")
        #expect(owner.deleteRule == .nullify)
        let person = try #require(v1.entity(named: "Person"))
        #expect(person.attribute(named: "id")?.type == .uuid)
        #expect(person.attribute(named: "id")?.isOptional == false)
        #expect(person.inverseRelationship(of: "cars")?.name == "owner")
    }

    @Test func alemarFetchIndexAndRenamingIdentifier() throws {
        let b = try bundle("alemar11-CoreDataPlus/SampleModel.xcdatamodeld")
        let v2 = try #require(b.version(named: "SampleModel2"))
        #expect(v2.versionIdentifiers == ["2"])
        let car = try #require(v2.entity(named: "Car"))
        #expect(car.fetchIndexes == [
            FetchIndexDescription(
                name: "byMakerAndNumberPlate",
                elements: [.init(property: "maker", ascending: true), .init(property: "numberPlate", ascending: true)])
        ])
        let luxury = try #require(v2.entity(named: "LuxuryCar"))
        #expect(luxury.renamingIdentifier == "ExpensiveSportCar")
        #expect(v2.entity(named: "ExpensiveSportCar") == nil)
        #expect(v2.entities.map(\.name) == ["Car", "SportCar", "LuxuryCar", "Person"])

        let v3 = try #require(b.version(named: "SampleModel3"))
        #expect(v3.versionIdentifiers == ["3"])
        #expect(v3.entities.map(\.name) == ["Car", "SportCar", "LuxuryCar", "Maker", "Person"])
        #expect(v3.entities.map(\.entityNumber) == [1, 2, 3, 4, 5])
        #expect(v3.entity(named: "Maker")?.uniquenessConstraints == [["name"]])
        #expect(v3.entity(named: "Car")?.inverseRelationship(of: "previousOwners")?.name == "previousCars")
    }

    // MARK: atomicbird momcom

    @Test func momcomEntitiesAndUserInfo() throws {
        let b = try bundle("atomicbird-momcom/momcomTests.xcdatamodeld")
        #expect(b.versions.map(\.versionName) == ["momcTests", "momcTests 2"])
        let m = b.currentVersion
        #expect(m.versionName == "momcTests 2")
        #expect(m.versionIdentifiers == [])  // userDefinedModelVersionIdentifier=""
        #expect(m.entities.map(\.name) == ["AbstractEntity", "Entity", "OtherEntity", "UnrelatedEntity"])

        let abstract = try #require(m.entity(named: "AbstractEntity"))
        #expect(abstract.isAbstract)
        #expect(abstract.subentities.map(\.name) == ["Entity"])
        let entity = try #require(m.entity(named: "Entity"))
        #expect(!entity.isAbstract)
        #expect(entity.superentityName == "AbstractEntity")
        #expect(entity.representedClassName == "EntityClass")
        #expect(entity.renamingIdentifier == "myRenamingIdentifier")
        #expect(entity.versionHashModifier == "myVersionHashModifier")
        #expect(entity.userInfo == ["someKey": "randomValue"])

        let binary = try #require(entity.attribute(named: "binaryAttribute"))
        #expect(binary.type == .binaryData)
        #expect(binary.isTransient)
        #expect(binary.isOptional)
        #expect(binary.userInfo == ["binaryBar": "NO", "binaryBaz": "MAYBE", "binaryFoo": "YES"])
        #expect(entity.attribute(named: "decimalAttribute")?.userInfo == ["rdar13677527max": "4", "rdar13677527min": "-4"])
        #expect(entity.attribute(named: "stringAttribute")?.isTransient == false)

        // The fetched property is skipped, not turned into a property.
        #expect(entity.attribute(named: "yesBooleans") == nil)
        #expect(entity.relationship(named: "yesBooleans") == nil)
        #expect(!m.fetchRequestTemplates.keys.contains("fetchedPropertyFetchRequest"))

        let transformable = try #require(entity.attribute(named: "transformableAttribute"))
        #expect(transformable.valueTransformerName == "myValueTransformer")

        let others = try #require(entity.relationship(named: "otherEntities"))
        #expect(others.isToMany)
        #expect(others.minCount == 1)
        #expect(others.maxCount == 9)
        #expect(others.inverseName == "mainEntity")
        let main = try #require(m.entity(named: "OtherEntity")?.relationship(named: "mainEntity"))
        #expect(!main.isToMany)
        #expect(main.maxCount == 1)
        #expect(main.minCount == 1)
        #expect(m.entity(named: "OtherEntity")?.inverseRelationship(of: "mainEntity")?.name == "otherEntities")

        // Legacy compound indexes become fetch indexes.
        #expect(entity.fetchIndexes == [
            FetchIndexDescription(name: "compoundIndex1", elements: [.init(property: "booleanAttribute"), .init(property: "dateAttribute")]),
            FetchIndexDescription(name: "compoundIndex2", elements: [.init(property: "decimalAttribute"), .init(property: "doubleAttribute")]),
        ])
    }

    @Test func momcomValueRanges() throws {
        let m = try bundle("atomicbird-momcom/momcomTests.xcdatamodeld").currentVersion
        let e = try #require(m.entity(named: "Entity"))

        let date = try #require(e.attribute(named: "dateAttribute"))
        #expect(date.defaultValue == .date(Date(timeIntervalSinceReferenceDate: 388_411_200)))
        #expect(date.defaultValue.dateValue == ISO8601DateFormatter().date(from: "2013-04-23T12:00:00Z"))
        #expect(date.minValue == .date(Date(timeIntervalSinceReferenceDate: 284_000_400)))
        #expect(date.maxValue == .date(Date(timeIntervalSinceReferenceDate: 602_395_200)))

        let decimal = try #require(e.attribute(named: "decimalAttribute"))
        #expect(decimal.minValue == .decimal(Decimal(string: "-4.5")!))
        #expect(decimal.maxValue == .decimal(Decimal(string: "4.5")!))
        #expect(decimal.defaultValue == .decimal(0))

        let double = try #require(e.attribute(named: "doubleAttribute"))
        #expect(double.minValue == .double(-3.5))
        #expect(double.maxValue == .double(3.5))
        #expect(double.defaultValue == .double(0))

        let float = try #require(e.attribute(named: "floatAttribute"))
        #expect(float.type == .float)
        #expect(float.minValue == .double(-2.5))
        #expect(float.maxValue == .double(2.5))

        let ints: [(String, AttributeType, Int64, Int64)] = [
            ("int16Attribute", .integer16, -3, 9), ("int32Attribute", .integer32, -11, 11),
            ("int64Attribute", .integer64, -12, 12),
        ]
        for (name, type, lo, hi) in ints {
            let a = try #require(e.attribute(named: name))
            #expect(a.type == type)
            #expect(a.minValue == .integer(lo))
            #expect(a.maxValue == .integer(hi))
            #expect(a.defaultValue == .integer(0))
        }
        #expect(e.attribute(named: "booleanAttribute")?.defaultValue == .null)
    }

    @Test func momcomFetchRequestsAndConfigurations() throws {
        let b = try bundle("atomicbird-momcom/momcomTests.xcdatamodeld")
        let m = b.currentVersion
        #expect(m.fetchRequestTemplates.keys.sorted() == ["FetchRequestDictionaries", "FetchRequestObjectIDs", "FetchRequestObjects"])
        let objects = try #require(m.fetchRequestTemplates["FetchRequestObjects"])
        #expect(objects.entityName == "Entity")
        #expect(objects.predicateString == "booleanAttribute == 1 AND floatAttribute > 5")
        #expect(objects.fetchLimit == 100)
        #expect(objects.fetchBatchSize == 10)
        #expect(objects.includesSubentities)
        #expect(objects.returnsObjectsAsFaults)
        let dictionaries = try #require(m.fetchRequestTemplates["FetchRequestDictionaries"])
        #expect(dictionaries.predicateString == "booleanAttribute == 1 AND floatAttribute > 5")
        #expect(dictionaries.fetchLimit == nil)
        #expect(m.configurations == ["UnrelatedConfiguration": ["UnrelatedEntity"]])

        let v1 = try #require(b.version(named: "momcTests"))
        #expect(v1.fetchRequestTemplates.keys.sorted() == ["FetchRequest"])
        #expect(v1.fetchRequestTemplates["FetchRequest"]?.predicateString == "booleanAttribute == 1 AND floatAttribute > 5")
        #expect(v1.entity(named: "UnrelatedEntity")?.attribute(named: "birthday") == nil)
        #expect(m.entity(named: "UnrelatedEntity")?.attribute(named: "birthday")?.type == .date)
    }

    // MARK: wibosco, bnr, Recipes

    @Test func wiboscoFourVersionsAndCurrentVersion() throws {
        let b = try bundle("wibosco-CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld")
        #expect(b.versions.map(\.versionName) == [
            "CoreDataMigration_Example", "CoreDataMigration_Example 2", "CoreDataMigration_Example 3",
            "CoreDataMigration_Example 4",
        ])
        #expect(b.currentVersion.versionName == "CoreDataMigration_Example 4")
        let v1 = try #require(b.version(named: "CoreDataMigration_Example"))
        #expect(v1.entity(named: "Post")?.attribute(named: "color")?.type == .string)
        let v3 = try #require(b.version(named: "CoreDataMigration_Example 3"))
        // No `optional` attribute: not optional.
        #expect(v3.entity(named: "Post")?.relationship(named: "color")?.isOptional == false)
        #expect(v3.entity(named: "Color")?.relationship(named: "post")?.isOptional == true)
        let post = try #require(b.currentVersion.entity(named: "Post"))
        #expect(post.attribute(named: "hide")?.type == .boolean)
        #expect(post.attribute(named: "hide")?.defaultValue == .bool(false))
        #expect(post.attribute(named: "date")?.type == .date)
    }

    @Test func bnrManyToManyWithInverse() throws {
        let b = try bundle("bnr-CoreDataStack/Sample.xcdatamodeld")
        let m = b.currentVersion
        #expect(m.versionName == "TestModel 2")
        let author = try #require(m.entity(named: "Author"))
        let books = try #require(author.relationship(named: "books"))
        #expect(books.isToMany)
        #expect(books.destinationEntityName == "Book")
        #expect(books.inverseName == "authors")
        #expect(books.maxCount == 0)
        let authors = try #require(m.entity(named: "Book")?.relationship(named: "authors"))
        #expect(authors.isToMany)
        #expect(authors.inverseName == "books")
        #expect(author.inverseRelationship(of: "books")?.name == "authors")
        #expect(author.destinationEntity(ofRelationship: "books")?.name == "Book")
        #expect(m.entity(named: "Publisher")?.representedClassName == nil)
        #expect(m.entity(named: "Book")?.relationship(named: "publisher")?.maxCount == 1)

        let unique = try bundle("bnr-CoreDataStack/UniqueConstraintModel.xcdatamodeld").currentVersion
        #expect(unique.entity(named: "Book")?.uniquenessConstraints == [["title"]])
        let container = try bundle("bnr-CoreDataStack/Container_Example.xcdatamodeld")
        #expect(container.currentVersion.entity(named: "Book")?.uniquenessConstraints == [["title"]])
    }

    @Test func recipesTransformable() throws {
        let m = try bundle("apple-iPhoneCoreDataRecipes-2018/Recipes.xcdatamodeld").currentVersion
        #expect(m.entities.map(\.name) == ["Image", "Ingredient", "Recipe", "RecipeType"])
        let image = try #require(m.entity(named: "Image")?.attribute(named: "image"))
        #expect(image.type == .transformable)
        #expect(image.valueTransformerName == "ImageToDataTransformer")
        let recipe = try #require(m.entity(named: "Recipe"))
        #expect(recipe.attribute(named: "thumbnailImage")?.valueTransformerName == "ImageToDataTransformer")
        #expect(recipe.relationship(named: "image")?.deleteRule == .cascade)
        #expect(recipe.relationship(named: "ingredients")?.deleteRule == .cascade)
        #expect(recipe.relationship(named: "ingredients")?.isToMany == true)
        #expect(recipe.relationship(named: "type")?.deleteRule == .nullify)
        let order = try #require(m.entity(named: "Ingredient")?.attribute(named: "displayOrder"))
        #expect(order.type == .integer16)
        #expect(order.defaultValue == .integer(0))
    }
}

// MARK: - In-memory XML and errors

@Suite("XcodeModelReader parsing and errors")
struct XcodeModelReaderErrorTests {
    @Test func parsesEveryMappedField() throws {
        let m = try parse("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model userDefinedModelVersionIdentifier="v7" unknownAttribute="x">
                <entity name="Book" representedClassName="BookClass">
                    <attribute name="title" attributeType="String" indexed="YES" regularExpressionString="[A-Z].*" minValueString="1" maxValueString="200" defaultValueString="Untitled" elementID="oldTitle" versionHashModifier="h1"/>
                    <attribute name="cover" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
                    <attribute name="published" optional="YES" attributeType="Date" defaultValueString="2013-04-23 12:00:00 +0000"/>
                    <attribute name="code" optional="YES" attributeType="UUID" defaultValueString="E621E1F8-C36C-495A-93FC-0C247A3E6E5F"/>
                    <attribute name="price" optional="YES" attributeType="Decimal" defaultValueString="9.99"/>
                    <relationship name="chapters" optional="YES" toMany="YES" ordered="YES" deletionRule="Cascade" destinationEntity="Chapter" inverseName="book" elementID="parts"/>
                    <relationship name="shelf" optional="YES" maxCount="1" deletionRule="Deny" destinationEntity="Shelf"/>
                    <relationship name="library" optional="YES" maxCount="1" deletionRule="No Action" destinationEntity="Shelf"/>
                    <fetchIndex name="byTitle">
                        <fetchIndexElement property="title" type="Binary" order="descending"/>
                    </fetchIndex>
                    <unknownElement foo="bar"/>
                </entity>
                <entity name="Chapter">
                    <relationship name="book" maxCount="1" deletionRule="Nullify" destinationEntity="Book" inverseName="chapters"/>
                </entity>
                <entity name="Shelf"/>
                <fetchRequest name="All" entity="Book" fetchLimit="0" includeSubentities="NO" returnObjectsAsFaults="NO"/>
                <configuration name="Main"><memberEntity name="Book"/><memberEntity name="Chapter"/></configuration>
            </model>
            """)
        #expect(m.versionName == "Test")
        #expect(m.versionIdentifiers == ["v7"])
        let book = try #require(m.entity(named: "Book"))
        #expect(book.representedClassName == "BookClass")
        let title = try #require(book.attribute(named: "title"))
        #expect(!title.isOptional)
        #expect(title.isIndexed)
        #expect(title.regularExpression == "[A-Z].*")
        #expect(title.minValue == .integer(1))
        #expect(title.maxValue == .integer(200))
        #expect(title.defaultValue == .string("Untitled"))
        #expect(title.renamingIdentifier == "oldTitle")
        #expect(title.versionHashModifier == "h1")
        #expect(book.attribute(named: "cover")?.allowsExternalBinaryDataStorage == true)
        #expect(book.attribute(named: "published")?.defaultValue == .date(Date(timeIntervalSinceReferenceDate: 388_411_200)))
        #expect(book.attribute(named: "code")?.defaultValue == .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!))
        #expect(book.attribute(named: "price")?.defaultValue == .decimal(Decimal(string: "9.99")!))
        let chapters = try #require(book.relationship(named: "chapters"))
        #expect(chapters.isToMany && chapters.isOrdered)
        #expect(chapters.deleteRule == .cascade)
        #expect(chapters.renamingIdentifier == "parts")
        #expect(book.relationship(named: "shelf")?.deleteRule == .deny)
        #expect(book.relationship(named: "library")?.deleteRule == .noAction)
        #expect(book.fetchIndexes == [FetchIndexDescription(name: "byTitle", elements: [.init(property: "title", ascending: false)])])
        #expect(m.entity(named: "Chapter")?.relationship(named: "book")?.isOptional == false)
        let all = try #require(m.fetchRequestTemplates["All"])
        #expect(all.fetchLimit == nil)
        #expect(all.predicateString == nil)
        #expect(!all.includesSubentities)
        #expect(!all.returnsObjectsAsFaults)
        #expect(m.configurations == ["Main": ["Book", "Chapter"]])
    }

    @Test func badAttributeTypeNamesEntityAndProperty() {
        let error = parseError("""
            <model><entity name="Book"><attribute name="pages" attributeType="Integer 23"/></entity></model>
            """)
        #expect(error == .invalidModel(entity: "Book", property: "pages", reason: "unknown attribute type \"Integer 23\""))
    }

    @Test func unknownDestinationEntity() {
        let error = parseError("""
            <model><entity name="Book">
                <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Nobody"/>
            </entity></model>
            """)
        #expect(error == .invalidModel(entity: "Book", property: "author", reason: "its destination entity \"Nobody\" does not exist"))
    }

    @Test func inverseThatDoesNotPointBack() throws {
        let error = try #require(parseError("""
            <model>
                <entity name="Author">
                    <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="publisher"/>
                </entity>
                <entity name="Book">
                    <relationship name="publisher" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Publisher"/>
                </entity>
                <entity name="Publisher"/>
            </model>
            """))
        guard case let .invalidModel(entity, property, reason) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(entity == "Author")
        #expect(property == "books")
        #expect(reason.contains("not back to Author"))
    }

    @Test func inverseThatDoesNotExist() throws {
        let error = try #require(parseError("""
            <model>
                <entity name="Author">
                    <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="writers"/>
                </entity>
                <entity name="Book"/>
            </model>
            """))
        #expect(error == .invalidModel(entity: "Author", property: "books", reason: "its inverse \"writers\" is not a relationship of Book"))
    }

    @Test func duplicateProperty() {
        let error = parseError("""
            <model><entity name="Book">
                <attribute name="title" optional="YES" attributeType="String"/>
                <relationship name="title" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Book"/>
            </entity></model>
            """)
        #expect(error == .invalidModel(entity: "Book", property: "title", reason: "the property is declared twice"))
    }

    @Test func unknownDeletionRule() {
        let error = parseError("""
            <model><entity name="Book">
                <relationship name="shelf" optional="YES" maxCount="1" deletionRule="Explode" destinationEntity="Book"/>
            </entity></model>
            """)
        #expect(error == .invalidModel(entity: "Book", property: "shelf", reason: "unknown deletion rule \"Explode\""))
    }

    @Test(arguments: [
        ("Integer 16", "abc"), ("Integer 16", "70000"), ("Integer 32", "1.5"), ("Boolean", "MAYBE"),
        ("Double", "fast"), ("Decimal", "1,5"), ("UUID", "not-a-uuid"), ("Date", "yesterday"), ("Binary", "00"),
    ])
    func defaultValueThatDoesNotParse(type: String, text: String) throws {
        let error = try #require(parseError("""
            <model><entity name="Book">
                <attribute name="value" optional="YES" attributeType="\(type)" defaultValueString="\(text)"/>
            </entity></model>
            """))
        guard case let .invalidModel(entity, property, reason) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(entity == "Book")
        #expect(property == "value")
        #expect(reason.contains("\"\(text)\""))
    }

    @Test func badMinimumValue() {
        let error = parseError("""
            <model><entity name="Book">
                <attribute name="pages" optional="YES" attributeType="Integer 32" minValueString="few"/>
            </entity></model>
            """)
        #expect(error == .invalidModel(entity: "Book", property: "pages", reason: "its minimum value \"few\" does not fit Integer 32"))
    }

    @Test func malformedXMLReportsTheLine() throws {
        let error = try #require(parseError("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model>
                <entity name="Book">
                    <attribute name="title" attributeType="String"
                </entity>
            </model>
            """))
        guard case let .modelFile(path, reason) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(path == "Test.xcdatamodel/contents")
        #expect(reason.hasPrefix("malformed XML at line "))
        let line = Int(reason.dropFirst("malformed XML at line ".count).prefix { $0.isNumber })
        #expect(line == 5)
    }

    @Test func mismatchedTagIsMalformedAndEmptyFileIsRefused() throws {
        let error = try #require(parseError("<model>\n<entity name=\"Book\">\n</entty>\n</model>"))
        guard case let .modelFile(_, reason) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(reason.hasPrefix("malformed XML at line 3"))
        #expect(parseError("") == .modelFile(path: "Test.xcdatamodel/contents", reason: "the file is empty"))
    }

    @Test func rootElementMustBeModel() {
        let error = parseError("<plist><dict/></plist>")
        #expect(error == .modelFile(path: "Test.xcdatamodel/contents", reason: "the root element is <plist>, not <model>"))
    }

    @Test func missingFolder() throws {
        let url = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/Missing.xcdatamodeld")
        #expect(throws: CoreStackError.modelFile(path: url.path, reason: "no such folder")) {
            try XcodeModelReader.readBundle(at: url)
        }
        let version = url.appendingPathComponent("Missing.xcdatamodel")
        #expect(throws: CoreStackError.modelFile(path: version.path, reason: "no such folder")) {
            try XcodeModelReader.readModel(at: version)
        }
    }

    @Test func preXcode4ModelWithOnlyElements() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let version = root.appendingPathComponent("Old.xcdatamodeld/Old.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        try Data([0x62, 0x70, 0x6C, 0x69, 0x73, 0x74]).write(to: version.appendingPathComponent("elements"))
        try Data([0x62, 0x70, 0x6C, 0x69, 0x73, 0x74]).write(to: version.appendingPathComponent("layout"))
        for error in [
            #expect(throws: CoreStackError.self) { try XcodeModelReader.readModel(at: version) },
            #expect(throws: CoreStackError.self) { try XcodeModelReader.readBundle(at: version.deletingLastPathComponent()) },
        ] {
            guard case let .modelFile(path, reason) = error else {
                Issue.record("unexpected error \(String(describing: error))")
                continue
            }
            #expect(path == version.path)
            #expect(reason.contains("unsupported pre-Xcode 4 model format"))
        }
    }

    @Test func bundleWithoutCurrentVersionFileTakesTheLastByName() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let bundleURL = root.appendingPathComponent("Notes.xcdatamodeld")
        for name in ["Notes 10", "Notes", "Notes 2"] {
            try write(minimalContents, to: bundleURL.appendingPathComponent("\(name).xcdatamodel/contents"))
        }
        try write("not a model", to: bundleURL.appendingPathComponent("README"))
        let b = try XcodeModelReader.readBundle(at: bundleURL)
        #expect(b.name == "Notes")
        #expect(b.versions.map(\.versionName) == ["Notes", "Notes 2", "Notes 10"])
        #expect(b.currentVersion.versionName == "Notes 10")
        #expect(b.currentVersion.entity(named: "Note")?.attribute(named: "text")?.type == .string)
    }

    @Test func currentVersionFileNamingAMissingVersion() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let bundleURL = root.appendingPathComponent("Notes.xcdatamodeld")
        try write(minimalContents, to: bundleURL.appendingPathComponent("Notes.xcdatamodel/contents"))
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>Notes 5.xcdatamodel</string></dict></plist>
            """
        let current = bundleURL.appendingPathComponent(".xccurrentversion")
        try write(plist, to: current)
        #expect(throws: CoreStackError.modelFile(
            path: current.path, reason: "the current version \"Notes 5.xcdatamodel\" is not in the bundle")) {
            try XcodeModelReader.readBundle(at: bundleURL)
        }
    }

    @Test func emptyBundleAndMissingContents() throws {
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let bundleURL = root.appendingPathComponent("Empty.xcdatamodeld")
        try FileManager.default.createDirectory(at: bundleURL, withIntermediateDirectories: true)
        #expect(throws: CoreStackError.modelFile(path: bundleURL.path, reason: "no .xcdatamodel version folder inside")) {
            try XcodeModelReader.readBundle(at: bundleURL)
        }
        let version = bundleURL.appendingPathComponent("Empty.xcdatamodel")
        try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
        #expect(throws: CoreStackError.modelFile(path: version.path, reason: "no contents file")) {
            try XcodeModelReader.readBundle(at: bundleURL)
        }
    }
}
