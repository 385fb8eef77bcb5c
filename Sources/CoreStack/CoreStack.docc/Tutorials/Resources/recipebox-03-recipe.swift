import CoreStack
import Foundation

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
