import CoreStack
import Foundation
import StackScope
import Testing

/// A model class written as the model macro writes one.
private final class SDNote: ManagedObject, DeclaredEntity, PropertyKeyPathTable {
    var text: String {
        get { value(ofAttribute: "text") }
        set { setValue(newValue, ofAttribute: "text") }
    }
    var tags: Set<SDTag> {
        get { objects(ofToMany: "tags") }
        set { setObjects(newValue, ofToMany: "tags") }
    }
    static var entityDescription: EntityDescription {
        EntityDescription("Note", class: SDNote.self) {
            AttributeDescription("text", .string, isOptional: false)
            RelationshipDescription("tags", destination: "Tag", inverse: "notes", toMany: true)
        }
    }
    static var propertyKeyPaths: [PartialKeyPath<SDNote>: String] { [\SDNote.text: "text", \SDNote.tags: "tags"] }
}

private final class SDTag: ManagedObject, DeclaredEntity, PropertyKeyPathTable {
    var name: String {
        get { value(ofAttribute: "name") }
        set { setValue(newValue, ofAttribute: "name") }
    }
    static var entityDescription: EntityDescription {
        EntityDescription("Tag", class: SDTag.self) {
            AttributeDescription("name", .string, isOptional: false)
            RelationshipDescription("notes", destination: "Note", inverse: "tags", toMany: true)
        }
    }
    static var propertyKeyPaths: [PartialKeyPath<SDTag>: String] { [\SDTag.name: "name"] }
}

@Suite("a store written through SwiftData's shape opens in stackscope")
@MainActor
struct SwiftDataStoreInfoTests {
    /// 40 notes and 5 tags, each note with two tags (a many-to-many join table), saved through ModelContext.
    private func writeStore() throws -> URL {
        let url = try TestSupport.temporaryDirectory().appendingPathComponent("Notes.store")
        let container = try ModelContainer(for: SDNote.self, SDTag.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        try context.transaction {
            let tags = try (0..<5).map { i -> SDTag in
                let tag = try context.insert(SDTag.self)
                tag.name = "tag\(i)"
                return tag
            }
            for i in 0..<40 {
                let note = try context.insert(SDNote.self)
                note.text = "note \(i)"
                note.tags = [tags[i % 5], tags[(i + 1) % 5]]
            }
        }
        return url
    }

    @Test("stackscope info reads the store from the model it carries: the entities and their counts")
    func infoInProcess() throws {
        let url = try writeStore()
        let info = try InfoCommand.info(storePath: url.path)
        #expect(info.entities.map(\.name) == ["Note", "Tag"])
        #expect(info.entities.map(\.count) == [40, 5])
        #expect(info.modelSource.contains("Z_MODELCACHE"))
        #expect(info.notUnderstood == nil)
    }

    @Test("the stackscope binary: info --json of the store lists its entities with their counts", .enabled(
        if: StackScopeBinary.url != nil, "the stackscope binary was not found: run `swift build` first"))
    func infoBinary() throws {
        let url = try writeStore()
        let info = try StackScopeBinary.run(["info", url.path, "--json"])
        #expect(info.status == 0, "\(info.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
        let entities = try #require(json["entities"] as? [[String: Any]])
        #expect(entities.map { $0["name"] as? String } == ["Note", "Tag"])
        #expect(entities.map { $0["count"] as? Int } == [40, 5])
    }
}
