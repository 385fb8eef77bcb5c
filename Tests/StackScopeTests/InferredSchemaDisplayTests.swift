import CoreStack
import Foundation
import StackScope
import Testing

/// `info --schema` on a store without its model cache says which relationships inference made up.
@Suite("info --schema on an inferred model")
struct InferredSchemaDisplayTests {
    @Test("Recipes without Z_MODELCACHE: Recipe.TYPE → RecipeType, and RecipeType.RECIPES marked 'inferred inverse' (text and JSON)")
    func recipes() throws {
        let url = try StoreOwnModelTests.copy(["apple-iPhoneCoreDataRecipes-2018/Recipes.sqlite"])
        _ = try StoreOwnModelTests.sqlite3("DELETE FROM Z_MODELCACHE", url, readOnly: false)
        let info = try InfoCommand.info(storePath: url.path, modelPath: nil)
        let text = InfoCommand.renderText(info, schema: true)
        let squeezed = text.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(squeezed.contains("RECIPES ⇉ Recipe to-many, optional, inverse TYPE, Nullify, inferred inverse"), "\(text)")
        #expect(squeezed.contains("TYPE → RecipeType to-one, optional, inverse RECIPES, Nullify"), "\(text)")
        let json = try #require(try TestSupport.parseJSON(InfoCommand.renderJSON(info, schema: true)) as? [String: Any])
        let schema = try #require(json["schema"] as? [[String: Any]])
        let type = try #require(schema.first { $0["name"] as? String == "RecipeType" })
        let recipes = try #require((type["relationships"] as? [[String: Any]])?.first { $0["name"] as? String == "RECIPES" })
        #expect(recipes["inferredInverse"] as? Bool == true)
    }
}
