import CoreStack
import Foundation

let url = URL(fileURLWithPath: CommandLine.arguments.dropFirst().first ?? "recipes.sqlite")
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
