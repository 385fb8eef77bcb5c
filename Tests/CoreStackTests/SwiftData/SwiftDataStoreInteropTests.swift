import Foundation
import Testing
@testable import CoreStack

// Apple's Recipes sample model (Tests/Fixtures/models/apple-iPhoneCoreDataRecipes-2018), declared
// by hand as the model macro would declare it, to read Apple's store through SwiftData's shape.

final class RecipeModel: ManagedObject, DeclaredEntity, PropertyKeyPathTable {
    var name: String? {
        get { value(ofAttribute: "name") }
        set { setValue(newValue, ofAttribute: "name") }
    }
    var prepTime: String? {
        get { value(ofAttribute: "prepTime") }
        set { setValue(newValue, ofAttribute: "prepTime") }
    }
    var ingredients: Set<IngredientModel> {
        get { objects(ofToMany: "ingredients") }
        set { setObjects(newValue, ofToMany: "ingredients") }
    }
    var type: RecipeTypeModel? {
        get { object(ofToOne: "type") }
        set { setObject(newValue, ofToOne: "type") }
    }
    var image: ImageModel? {
        get { object(ofToOne: "image") }
        set { setObject(newValue, ofToOne: "image") }
    }
    static var entityDescription: EntityDescription {
        EntityDescription("Recipe", class: RecipeModel.self) {
            AttributeDescription("instructions", .string)
            AttributeDescription("name", .string)
            AttributeDescription("overview", .string)
            AttributeDescription("prepTime", .string)
            AttributeDescription("thumbnailImage", .transformable, valueTransformerName: "ImageToDataTransformer")
            RelationshipDescription("image", destination: "Image", inverse: "recipe", deleteRule: .cascade)
            RelationshipDescription("ingredients", destination: "Ingredient", inverse: "recipe", toMany: true, deleteRule: .cascade)
            RelationshipDescription("type", destination: "RecipeType", inverse: "recipes")
        }
    }
    static var propertyKeyPaths: [PartialKeyPath<RecipeModel>: String] {
        [\RecipeModel.name: "name", \RecipeModel.prepTime: "prepTime", \RecipeModel.ingredients: "ingredients",
         \RecipeModel.type: "type", \RecipeModel.image: "image"]
    }
}

final class IngredientModel: ManagedObject, DeclaredEntity, PropertyKeyPathTable {
    var name: String? {
        get { value(ofAttribute: "name") }
        set { setValue(newValue, ofAttribute: "name") }
    }
    var displayOrder: Int16 {
        get { value(ofAttribute: "displayOrder") }
        set { setValue(newValue, ofAttribute: "displayOrder") }
    }
    var recipe: RecipeModel? {
        get { object(ofToOne: "recipe") }
        set { setObject(newValue, ofToOne: "recipe") }
    }
    static var entityDescription: EntityDescription {
        EntityDescription("Ingredient", class: IngredientModel.self) {
            AttributeDescription("amount", .string)
            AttributeDescription("displayOrder", .integer16, defaultValue: .integer(0))
            AttributeDescription("name", .string)
            RelationshipDescription("recipe", destination: "Recipe", inverse: "ingredients")
        }
    }
    static var propertyKeyPaths: [PartialKeyPath<IngredientModel>: String] {
        [\IngredientModel.name: "name", \IngredientModel.displayOrder: "displayOrder", \IngredientModel.recipe: "recipe"]
    }
}

final class RecipeTypeModel: ManagedObject, DeclaredEntity, PropertyKeyPathTable {
    var name: String? {
        get { value(ofAttribute: "name") }
        set { setValue(newValue, ofAttribute: "name") }
    }
    static var entityDescription: EntityDescription {
        EntityDescription("RecipeType", class: RecipeTypeModel.self) {
            AttributeDescription("name", .string)
            RelationshipDescription("recipes", destination: "Recipe", inverse: "type", toMany: true)
        }
    }
    static var propertyKeyPaths: [PartialKeyPath<RecipeTypeModel>: String] { [\RecipeTypeModel.name: "name"] }
}

final class ImageModel: ManagedObject, DeclaredEntity, PropertyKeyPathTable {
    var image: Data? {
        get { value(ofAttribute: "image") }
        set { setValue(newValue, ofAttribute: "image") }
    }
    static var entityDescription: EntityDescription {
        EntityDescription("Image", class: ImageModel.self) {
            AttributeDescription("image", .transformable, valueTransformerName: "ImageToDataTransformer")
            RelationshipDescription("recipe", destination: "Recipe", inverse: "image")
        }
    }
    static var propertyKeyPaths: [PartialKeyPath<ImageModel>: String] { [\ImageModel.image: "image"] }
}

@Suite("SwiftData's shape on real stores: what it writes opens with CoreStack's stacks; Apple's store reads through it",
       .enabled(if: SwiftDataSupport.hasSQLite3, "needs /usr/bin/sqlite3"))
@MainActor
struct SwiftDataStoreInteropTests {
    @Test("a store written through ModelContainer opens in a PersistentContainer with the model it carries (no classes), with the same counts as sqlite3's")
    func writtenStoreOpensInCoreStack() async throws {
        let url = try SwiftDataSupport.newStoreURL()
        do {
            let container = try ModelContainer(for: SDAuthor.self, SDBook.self, configurations: ModelConfiguration(url: url))
            try SwiftDataSupport.fill(ModelContext(container))
        }
        #expect(try SwiftDataSupport.sqlite3(url, "SELECT COUNT(*) FROM ZAUTHOR") == [["3"]])
        #expect(try SwiftDataSupport.sqlite3(url, "SELECT COUNT(*) FROM ZBOOK") == [["6"]])
        #expect(try SwiftDataSupport.sqlite3(url, "SELECT SUM(ZPAGES) FROM ZBOOK") == [["2100"]])

        // CoreStack's normal stack, with the model the store carries (Z_MODELCACHE): plain
        // ManagedObjects, string keys and the string predicate language.
        let stored = try #require(try SQLiteStore.storedModel(at: url))
        #expect(stored.entities.map(\.name) == ["Author", "Book"])
        let plain = PersistentContainer(name: "Library", model: stored)
        plain.storeDescription = PersistentContainer.StoreDescription(url: url)
        try await plain.loadPersistentStores()
        let (authors, books, herbert) = try await plain.performBackgroundTask { context in
            let authors = try context.count(for: FetchRequest<ManagedObject>(entityName: "Author"))
            let books = try context.count(for: FetchRequest<ManagedObject>(entityName: "Book"))
            let herbert = try context.fetch(FetchRequest<ManagedObject>(
                entityName: "Book", predicate: try Predicate(format: "author.name == 'Herbert'"), sortDescriptors: [SortDescriptor("title")]))
            return (authors, books, try herbert.map { try $0.value(forKey: "title") as? String ?? "" })
        }
        #expect(authors == 3)
        #expect(books == 6)
        #expect(herbert == ["Herbert 1", "Herbert 2"])
    }

    @Test("Apple's Recipes store reads through ModelContainer (allowsSave: false) with classes declared by hand: counts and values as sqlite3 reads them")
    func appleStoreReads() throws {
        let url = try Fixtures.copyStore("stores/apple-iPhoneCoreDataRecipes-2018/Recipes.sqlite")
        let container = try ModelContainer(
            for: RecipeModel.self, IngredientModel.self, RecipeTypeModel.self, ImageModel.self,
            configurations: ModelConfiguration(url: url, allowsSave: false))
        let context = ModelContext(container)
        #expect(try context.fetchCount(FetchDescriptor<RecipeModel>()) == Int(try SwiftDataSupport.sqlite3(url, "SELECT COUNT(*) FROM ZRECIPE")[0][0]))
        #expect(try context.fetchCount(FetchDescriptor<IngredientModel>()) == Int(try SwiftDataSupport.sqlite3(url, "SELECT COUNT(*) FROM ZINGREDIENT")[0][0]))
        #expect(try context.fetchCount(FetchDescriptor<RecipeTypeModel>()) == Int(try SwiftDataSupport.sqlite3(url, "SELECT COUNT(*) FROM ZRECIPETYPE")[0][0]))
        #expect(try context.fetchCount(FetchDescriptor<ImageModel>()) == Int(try SwiftDataSupport.sqlite3(url, "SELECT COUNT(*) FROM ZIMAGE")[0][0]))

        // Each recipe's name, preparation time, type, number of ingredients and image size.
        let expected = try SwiftDataSupport.sqlite3(url, """
            SELECT r.ZNAME, r.ZPREPTIME, t.ZNAME, (SELECT COUNT(*) FROM ZINGREDIENT i WHERE i.ZRECIPE = r.Z_PK), LENGTH(m.ZIMAGE)
            FROM ZRECIPE r LEFT JOIN ZRECIPETYPE t ON t.Z_PK = r.ZTYPE LEFT JOIN ZIMAGE m ON m.Z_PK = r.ZIMAGE ORDER BY r.ZNAME
            """)
        let recipes = try context.fetch(FetchDescriptor<RecipeModel>(sortBy: [Foundation.SortDescriptor(\RecipeModel.name)]))
        let read = recipes.map { r in
            [r.name ?? "", r.prepTime ?? "", r.type?.name ?? "", "\(r.ingredients.count)", "\(r.image?.image?.count ?? 0)"]
        }
        #expect(read == expected)
        #expect(recipes.allSatisfy { $0.lastAccessorError == nil })

        // A #Predicate through a to-one, against sqlite3's join.
        let desserts = try context.fetch(FetchDescriptor<RecipeModel>(predicate: #Predicate { ($0.type?.name ?? "") == "Dessert" }))
        #expect(desserts.map { $0.name ?? "" } == (try SwiftDataSupport.sqlite3(url,
            "SELECT r.ZNAME FROM ZRECIPE r JOIN ZRECIPETYPE t ON t.Z_PK = r.ZTYPE WHERE t.ZNAME = 'Dessert'")).map { $0[0] })
        let ordered = try context.fetch(FetchDescriptor<IngredientModel>(
            predicate: #Predicate { $0.displayOrder == 0 }, sortBy: [Foundation.SortDescriptor(\IngredientModel.name)]))
        #expect(ordered.map { $0.name ?? "" } == (try SwiftDataSupport.sqlite3(url,
            "SELECT ZNAME FROM ZINGREDIENT WHERE ZDISPLAYORDER = 0 ORDER BY ZNAME")).map { $0[0] })
    }

    @Test("Apple's store opened for writing through ModelContainer: a change saved is what sqlite3 then reads")
    func appleStoreWrites() throws {
        let url = try Fixtures.copyStore("stores/apple-iPhoneCoreDataRecipes-2018/Recipes.sqlite")
        do {
            let container = try ModelContainer(
                for: RecipeModel.self, IngredientModel.self, RecipeTypeModel.self, ImageModel.self,
                configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let snack = try #require(try context.fetch(FetchDescriptor<RecipeTypeModel>(predicate: #Predicate { $0.name == "Snack" })).first)
            let recipe = try context.insert(RecipeModel.self)
            recipe.name = "Toast"
            recipe.prepTime = "2 min"
            recipe.type = snack
            try context.save()
        }
        #expect(try SwiftDataSupport.sqlite3(url, "SELECT COUNT(*) FROM ZRECIPE") == [["4"]])
        #expect(try SwiftDataSupport.sqlite3(url,
            "SELECT r.ZPREPTIME, t.ZNAME FROM ZRECIPE r JOIN ZRECIPETYPE t ON t.Z_PK = r.ZTYPE WHERE r.ZNAME = 'Toast'") == [["2 min", "Snack"]])
        #expect(try SwiftDataSupport.sqlite3(url, "PRAGMA integrity_check") == [["ok"]])
    }
}
