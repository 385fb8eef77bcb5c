import CoreStack

func recipeBoxModel() throws -> ManagedObjectModel {
    try ManagedObjectModel {
        EntityDescription("Recipe", class: Recipe.self) {
            AttributeDescription("name", .string, isOptional: false)
            AttributeDescription("minutes", .integer64, isOptional: false, defaultValue: 0)
            AttributeDescription("created", .date)
        }
        EntityDescription("Ingredient", class: Ingredient.self) {
            AttributeDescription("name", .string, isOptional: false)
            AttributeDescription("quantity", .string)
        }
    }
}
