import Foundation
import Testing

@testable import CoreStack

/// Models inferred from the tables of Apple-written stores, checked against the model each store carries.
@Suite("models inferred from a store's schema")
struct SchemaInferenceTests {
    /// Column-backed property names of an entity tree, upper-cased as the schema keeps them.
    static func storedPropertyNames(_ root: EntityDescription) -> Set<String> {
        var names: Set<String> = []
        for e in root.selfAndDescendants {
            for a in e.attributes where !a.isTransient { names.insert(a.name.uppercased()) }
            for r in e.relationships where !r.isTransient {
                let inverse = e.inverseRelationship(of: r.name)
                if !r.isToMany || inverse?.isToMany == true { names.insert(r.name.uppercased()) }
            }
        }
        return names
    }

    @Test("every fixture store's inferred model has its entities, hierarchy and column-backed properties, and opens the store")
    func inferredMatchesStored() throws {
        for (path, _) in ModelArchiveTests.stores {
            let url = try Fixtures.copyStore(path)
            let before = try Data(contentsOf: url)
            let inferred = try SQLiteStore.inferredModel(at: url)
            #expect(inferred.origin == .inferredFromSchema)
            let stored = try #require(try SQLiteStore.storedModel(at: url))
            let storeNames = Dictionary(uniqueKeysWithValues: try SQLiteStore.entities(at: url).map { ($0.number, $0.name) })
            // Inferred entities carry Z_PRIMARYKEY's names (a renamed entity keeps its old one there).
            func storeName(_ e: EntityDescription) -> String {
                e.renamingIdentifier.flatMap { old in storeNames.values.contains(old) && !storeNames.values.contains(e.name) ? old : nil } ?? e.name
            }
            #expect(Set(inferred.entities.map(\.name)) == Set(stored.entities.map(storeName)), "\(path)")
            for e in stored.entities {
                let i = try #require(inferred.entity(named: storeName(e)))
                #expect(i.superentity?.name == e.superentity.map(storeName), "\(path) \(e.name)")
                if e.superentity == nil {
                    // Inferred inverse to-manys have no column (SchemaInferenceRelationshipTests checks them).
                    let inferredNames = Set(i.selfAndDescendants.flatMap {
                        $0.attributes.map(\.name) + $0.relationships.filter { !$0.isInferredInverse }.map(\.name)
                    })
                    #expect(inferredNames == Self.storedPropertyNames(e), "\(path) \(e.name)")
                }
            }
            _ = try SQLiteStore(url: url, model: inferred, readOnly: true)
            #expect(try Data(contentsOf: url) == before)
        }
    }

    @Test("inferring a model reads no row of a table that holds a single entity: with that table's root page damaged, inference still succeeds and gives its columns")
    func singleEntityTableIsNotRead() throws {
        let library = try LibraryStore()
        library.store.close()
        try StoreDamage.overwriteRootPage(of: "ZPUBLISHER", in: library.url)
        let inferred = try SQLiteStore.inferredModel(at: library.url)
        #expect(inferred.entity(named: "Publisher")?.attribute(named: "NAME")?.type == .string)
        // The shared table of Book and GraphicNovel is read (its first rows of each entity).
        #expect(inferred.entity(named: "GraphicNovel")?.superentity?.name == "Book")
    }

    @Test("foreign keys become to-one relationships, join tables many-to-many pairs, columns typed by their declaration")
    func inferredDetails() throws {
        let bnr = try SQLiteStore.inferredModel(at: try Fixtures.copyStore("stores/bnr-CoreDataStack/TestModel.sqlite"))
        let books = try #require(bnr.entity(named: "Author")?.relationship(named: "BOOKS"))
        #expect(books.isToMany && books.destinationEntityName == "Book" && books.inverseName == "AUTHORS")
        #expect(bnr.entity(named: "Book")?.relationship(named: "AUTHORS")?.destinationEntityName == "Author")

        let plus = try SQLiteStore.inferredModel(at: try Fixtures.copyStore("stores/alemar11-CoreDataPlus/SampleModel_V1.sqlite"))
        let car = try #require(plus.entity(named: "Car"))
        #expect(car.relationship(named: "OWNER")?.destinationEntityName == "Person")
        #expect(car.attribute(named: "NUMBERPLATE")?.type == .string)
        #expect(car.attribute(named: "MARKEDFORDELETIONASOF")?.type == .date)
        #expect(plus.entity(named: "ExpensiveSportCar")?.superentity?.name == "SportCar")
        #expect(plus.entity(named: "Person")?.attribute(named: "ID")?.type == .uuid)

        let recipes = try SQLiteStore.inferredModel(at: try Fixtures.copyStore("stores/apple-iPhoneCoreDataRecipes-2018/Recipes.sqlite"))
        #expect(recipes.entity(named: "Recipe")?.relationship(named: "IMAGE")?.destinationEntityName == "Image")
        // ZTYPE's keys (1…3) exist in every table; RecipeType is the one whose name contains TYPE.
        #expect(recipes.entity(named: "Recipe")?.relationship(named: "TYPE")?.destinationEntityName == "RecipeType")
        #expect(recipes.entity(named: "Ingredient")?.attribute(named: "DISPLAYORDER")?.type == .integer64)
    }
}
