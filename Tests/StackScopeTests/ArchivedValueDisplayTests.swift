import CoreStack
import Foundation
import StackScope
import Testing

/// Transformable attributes of an Apple-written store, in `dump` and the browser's detail: what
/// the archive holds, not the hex of "bplist00".
@Suite("archived values shown")
struct ArchivedValueDisplayTests {
    @Test("dump and the detail pane name the archived class and its text; a JPEG its format and size")
    func transformables() throws {
        let url = try StoreOwnModelTests.copy(["alemar11-CoreDataPlus/SampleModel2_V1.sqlite"])
        let query = DumpQuery(entityName: "GraphicNovel")
        let novels = try DumpCommand.dump(storePath: url.path, query: query)
        let text = DumpCommand.renderText(novels, query: query)
        #expect(text.contains("cover            <285 bytes, archived CoreDataPlus_Tests.Cover {text: \"Cover Graphic Novel\"}>"), "\(text)")
        let cover = try #require(novels.first?.attributes.first { $0.name == "cover" }?.value)
        #expect(ValueFormatter.detail(cover) == "285 bytes · archive CoreDataPlus_Tests.Cover · text: \"Cover Graphic Novel\"")
        #expect(ValueFormatter.cell(cover) == "archive CoreDataPlus_Tests.Cover · text: \"Cover Graphic Novel\"")

        let recipes = try StoreOwnModelTests.copy(["apple-iPhoneCoreDataRecipes-2018/Recipes.sqlite"])
        let image = try #require(try DumpCommand.dump(storePath: recipes.path, query: DumpQuery(entityName: "Image", limit: 1))
            .first?.attributes.first { $0.name == "image" }?.value)
        // Recipes' thumbnails are JPEGs: the header gives the size.
        let detail = ValueFormatter.detail(image)
        #expect(detail.hasPrefix("15603 bytes · JPEG "), "\(detail)")
        #expect(detail.range(of: #"JPEG \d+×\d+$"#, options: .regularExpression) != nil, "\(detail)")
        #expect(ValueFormatter.cell(image) == String(detail.dropFirst("15603 bytes · ".count)))
    }
}
