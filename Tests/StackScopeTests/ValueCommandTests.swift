import CoreStack
import Foundation
import StackScope
import Testing

/// `stackscope value`: one attribute value of one object of a real store, decoded or raw.
@Suite("value command")
struct ValueCommandTests {
    @Test("a Recipes thumbnail by primary key: its JPEG header as a tree, a hex dump, JSON; --as text refused")
    func recipesImage() throws {
        let store = try StoreOwnModelTests.copy(["apple-iPhoneCoreDataRecipes-2018/Recipes.sqlite"]).path
        let bytes = try ValueCommand.bytes(storePath: store, modelPath: nil, entity: "Image", id: "1", attribute: "image")
        #expect(bytes.starts(with: [0xFF, 0xD8, 0xFF]))
        let tree = try ValueCommand.render(bytes, as: .tree)
        #expect(tree.range(of: #"^JPEG \d+×\d+\n$"#, options: .regularExpression) != nil, "\(tree)")
        let hex = try ValueCommand.render(bytes, as: .hex).split(separator: "\n")
        #expect(hex.count == (bytes.count + 15) / 16)
        #expect(hex.first?.hasPrefix("00000000  ff d8 ff e0 00 10 4a 46  49 46 00") == true, "\(hex.first ?? "")")
        #expect(hex.first?.hasSuffix("|......JFIF.....H|") == true, "\(hex.first ?? "")")
        let json = try ValueCommand.render(bytes, as: .json)
        #expect(json.contains("\"format\": \"JPEG\""), "\(json)")
        #expect(json.contains("\"bytes\": \(bytes.count)"), "\(json)")
        #expect(throws: StackScopeError.self) { try ValueCommand.render(bytes, as: .text) }
    }

    @Test("an archived app class by object ID URI: its class chain and fields as a tree and as JSON")
    func archivedCover() throws {
        let store = try StoreOwnModelTests.copy(["alemar11-CoreDataPlus/SampleModel2_V1.sqlite"]).path
        let novel = try #require(try DumpCommand.dump(storePath: store, query: DumpQuery(entityName: "GraphicNovel", limit: 1)).first)
        let uri = novel.objectID.uriRepresentation().absoluteString
        let bytes = try ValueCommand.bytes(storePath: store, modelPath: nil, entity: "GraphicNovel", id: uri, attribute: "cover")
        let tree = try ValueCommand.render(bytes, as: .tree)
        #expect(tree == """
            archive CoreDataPlus_Tests.Cover · text: "Cover Graphic Novel"
            CoreDataPlus_Tests.Cover  (CoreDataPlus_Tests.Cover → NSObject)
              text: "Cover Graphic Novel"

            """, "\(tree)")
        let json = try ValueCommand.render(bytes, as: .json)
        #expect(json.contains("\"$class\": \"CoreDataPlus_Tests.Cover\""), "\(json)")
        #expect(json.contains("\"text\": \"Cover Graphic Novel\""), "\(json)")
    }

    @Test("errors name the option: no such attribute, a type value does not show, no such object, not an ID")
    func errors() throws {
        let store = try StoreOwnModelTests.copy(["apple-iPhoneCoreDataRecipes-2018/Recipes.sqlite"]).path
        func message(_ body: () throws -> Data) -> String {
            do {
                _ = try body()
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        let noAttribute = message { try ValueCommand.bytes(storePath: store, modelPath: nil, entity: "Image", id: "1", attribute: "picture") }
        #expect(noAttribute.hasPrefix("invalid --attribute: Image has no stored attribute \"picture\" (attributes: image"), "\(noAttribute)")
        let noObject = message { try ValueCommand.bytes(storePath: store, modelPath: nil, entity: "Image", id: "999999", attribute: "image") }
        #expect(noObject == "invalid --id: no Image 999999 in the store", "\(noObject)")
        let notID = message { try ValueCommand.bytes(storePath: store, modelPath: nil, entity: "Image", id: "first", attribute: "image") }
        #expect(notID.hasPrefix("invalid --id: \"first\" is neither a primary key"), "\(notID)")
        let noEntity = message { try ValueCommand.bytes(storePath: store, modelPath: nil, entity: "Picture", id: "1", attribute: "image") }
        #expect(noEntity.hasPrefix("the model has no entity named \"Picture\""), "\(noEntity)")
    }

    @Test("the binary: --raw writes the stored bytes exactly; the default prints the tree; a bad --as is refused")
    func binary() throws {
        guard let executable = StackScopeBinary.url else { return }
        let store = try StoreOwnModelTests.copy(["apple-iPhoneCoreDataRecipes-2018/Recipes.sqlite"]).path
        let expected = try ValueCommand.bytes(storePath: store, modelPath: nil, entity: "Image", id: "1", attribute: "image")
        let out = try TestSupport.temporaryDirectory().appendingPathComponent("raw.jpg")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = ["value", store, "--entity", "Image", "--id", "1", "--attribute", "image", "--raw"]
        process.standardOutput = try FileHandle(forWritingTo: out)
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(try Data(contentsOf: out) == expected)

        let tree = try StackScopeBinary.run(["value", store, "--entity", "Image", "--id", "p1", "--attribute", "image"])
        #expect(tree.status == 0)
        #expect(tree.stdout.hasPrefix("JPEG "), "\(tree.stdout)")
        let bad = try StackScopeBinary.run(["value", store, "--entity", "Image", "--id", "1", "--attribute", "image", "--as", "picture"])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("--as must be one of tree, text, hex, json, image"), "\(bad.stderr)")
    }
}
