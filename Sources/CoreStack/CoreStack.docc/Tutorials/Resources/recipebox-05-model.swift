import CoreStack

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
