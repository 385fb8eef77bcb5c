import CoreStack
import Foundation

let url = URL(fileURLWithPath: CommandLine.arguments.dropFirst().first ?? "recipes.sqlite")
let model = try recipeBoxModel()
let stack = try await CoreDataStack.constructSQLiteStack(model: model, at: url)
