import CoreStack
import Foundation
import StackScope
import Testing

// The DocC tutorial "Build a model and browse its store"
// (Sources/CoreStack/CoreStack.docc/Tutorials/BrowseAStore.tutorial), kept here so that its code
// compiles and runs: the classes and model of Resources/recipebox-03-recipe.swift and
// recipebox-05-model.swift, the program of recipebox-08-main.swift, and the stackscope commands
// of recipebox-09…12 through the same library calls. The last test checks that the tutorial's
// files still hold this code.

final class Recipe: ManagedObject {
    @Attribute("name") var name: String
    @Attribute("minutes") var minutes: Int64
    @Attribute("created") var created: Date?
    @ToMany("ingredients") var ingredients: Set<Ingredient>
}

final class Ingredient: ManagedObject {
    @Attribute("name") var name: String
    @Attribute("quantity") var quantity: String?
    @ToOne("recipe") var recipe: Recipe?
}

func recipeBoxModel() throws -> ManagedObjectModel {
    try ManagedObjectModel {
        EntityDescription("Recipe", class: Recipe.self) {
            AttributeDescription("name", .string, isOptional: false)
            AttributeDescription("minutes", .integer64, isOptional: false, defaultValue: 0)
            AttributeDescription("created", .date)
            RelationshipDescription("ingredients", destination: "Ingredient", inverse: "recipe", toMany: true, deleteRule: .cascade)
        }
        EntityDescription("Ingredient", class: Ingredient.self) {
            AttributeDescription("name", .string, isOptional: false)
            AttributeDescription("quantity", .string)
            RelationshipDescription("recipe", destination: "Recipe", inverse: "ingredients")
        }
    }
}

@Suite("DocC tutorial")
struct TutorialTests {
    @Test("the tutorial's program saves its recipes, and stackscope's info and model read the store")
    func recipeBox() async throws {
        let folder = try TestSupport.temporaryDirectory()
        let url = folder.appendingPathComponent("recipes.sqlite")
        // --- recipebox-08-main.swift starts (with `url` above) ---
        let model = try recipeBoxModel()
        let stack = try await CoreDataStack.constructSQLiteStack(model: model, at: url)

        let recipes: [(name: String, minutes: Int64, ingredients: [(String, String?)])] = [
            ("Pancakes", 20, [("flour", "250 g"), ("milk", "500 ml"), ("eggs", "2")]),
            ("Tomato soup", 35, [("tomatoes", "1 kg"), ("onion", "1"), ("basil", nil)]),
            ("Guacamole", 10, [("avocados", "3"), ("lime", "1"), ("salt", nil)]),
        ]

        let worker = stack.newChildContext(name: "import")
        try await worker.perform {
            for entry in recipes {
                let recipe = try worker.insert(Recipe.self)
                recipe.name = entry.name
                recipe.minutes = entry.minutes
                recipe.created = Date()
                for (name, quantity) in entry.ingredients {
                    let ingredient = try worker.insert(Ingredient.self)
                    ingredient.name = name
                    ingredient.quantity = quantity
                    ingredient.recipe = recipe
                }
            }
            try worker.save()  // → main context → private context → disk
        }
        await stack.waitForPendingSaves()

        let quick = try await worker.perform {
            try Recipe.all(in: worker, predicate: .key("minutes") <= 20, sortedBy: [SortDescriptor("name")]).map(\.name)
        }
        print("quick recipes:", quick)  // ["Guacamole", "Pancakes"]
        // --- recipebox-08-main.swift ends ---
        #expect(quick == ["Guacamole", "Pancakes"])

        // `stackscope info --schema`: the store opens without a model file, from the model it carries.
        let info = try InfoCommand.info(storePath: url.path)
        #expect(info.modelSource.contains("Z_MODELCACHE"))
        #expect(info.entities.map(\.name).sorted() == ["Ingredient", "Recipe"])
        #expect(info.entities.first { $0.name == "Recipe" }?.count == 3)
        #expect(info.entities.first { $0.name == "Ingredient" }?.count == 9)

        // `stackscope model --format xcdatamodeld`, then `--model` with the bundle it wrote.
        let bundle = folder.appendingPathComponent("RecipeBox.xcdatamodeld")
        _ = try ModelCommand.run(storePath: url.path, modelPath: nil, format: .xcdatamodeld, outputPath: bundle.path)
        let withBundle = try InfoCommand.info(storePath: url.path, modelPath: bundle.path)
        #expect(withBundle.warnings.isEmpty)
        #expect(try XcodeModelReader.readModel(at: bundle).entityVersionHashes == model.entityVersionHashes)
    }

    @Test("the tutorial's final code files hold the code this suite runs", arguments: [
        "recipebox-03-recipe.swift", "recipebox-05-model.swift", "recipebox-08-main.swift",
    ])
    func tutorialFilesMatch(file: String) throws {
        let resources = TestSupport.repoRoot.appendingPathComponent("Sources/CoreStack/CoreStack.docc/Tutorials/Resources")
        // Lines without indentation, blank lines and imports; the store's URL is the test's own.
        func code(_ text: String) -> [String] {
            let skipped = ["import ", "let url = ", "//"]
            let lines: [String] = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            return lines.filter { line in !line.isEmpty && !skipped.contains { line.hasPrefix($0) } }
        }
        let tutorial = code(try String(contentsOf: resources.appendingPathComponent(file), encoding: .utf8))
        let here = code(try String(contentsOfFile: #filePath, encoding: .utf8))
        #expect(!tutorial.isEmpty)
        let starts = 0 ..< max(0, here.count - tutorial.count + 1)
        let found = starts.contains { (start: Int) -> Bool in Array(here[start ..< start + tutorial.count]) == tutorial }
        #expect(found, "\(file) and TutorialTests.swift differ: keep the tutorial and this suite in step")
    }
}
