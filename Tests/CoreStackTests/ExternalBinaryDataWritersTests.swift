import Foundation
import Testing

@testable import CoreStack

/// The writers other than a save of a Binary Data attribute with *Allows External Storage*
/// (``SQLiteExternalBinaryData``): persistent-history tombstones and the default value a
/// lightweight migration gives a new attribute. Both write Core Data's format (`0x01` + the bytes,
/// inline, as a save does), and both read back as the value. The values start with `0x01`, so
/// bytes written without the marker would read back one byte short.
@Suite struct ExternalBinaryDataWritersTests {
    static let bytes = Data([0x01, 0xAB, 0xCD])

    /// Note { image (external storage), text }, both preserved in history on deletion.
    static func tombstoneModel() throws -> ManagedObjectModel {
        var text = AttributeDescription("text", .string)
        text.preservesValueInHistoryOnDeletion = true
        var image = AttributeDescription("image", .binaryData, allowsExternalBinaryDataStorage: true)
        image.preservesValueInHistoryOnDeletion = true
        return try ManagedObjectModel(versionName: "Tombstones") {
            EntityDescription("Note") {
                image
                text
            }
        }
    }

    @Test("a deleted object's tombstone keeps an external-storage attribute (0x01 + bytes, as its column held) and reads back as the value")
    func tombstone() throws {
        let stack = try HistoryStack(url: try HistoryStack.newURL(), model: try Self.tombstoneModel())
        try stack.context.performAndWait {
            let note = try stack.context.insertObject(forEntityName: "Note")
            try note.setValue("keep me", forKey: "text")
            try note.setValue(Self.bytes, forKey: "image")
            try stack.context.save()
        }
        let token = try #require(try stack.history().last?.token)
        try stack.context.performAndWait {
            for note in try stack.context.fetch(FetchRequest<ManagedObject>(entityName: "Note")) { try stack.context.delete(note) }
            try stack.context.save()
        }
        let change = try #require(try stack.history(after: token).first?.changes.first)
        #expect(change.changeType == .delete)
        #expect(change.tombstone == ["text": .string("keep me"), "image": .data(Self.bytes)])
        // `image` comes first in slot order, but after `text` among the tombstones: `text` keeps the
        // column it had when CoreStack kept no tombstone of external-storage attributes.
        #expect(stack.model.entity(named: "Note")?.allAttributes.map(\.name) == ["image", "text"])
        let raw = try RawSQLite.run(
            "SELECT ZTOMBSTONE0 IS 'keep me' AS t, hex(ZTOMBSTONE1) AS h FROM ACHANGE WHERE ZCHANGETYPE = 2", in: stack.url)
        #expect(raw.first?["t"] as? Int == 1)
        #expect(raw.first?["h"] as? String == "01" + "01ABCD")
    }

    @Test("the tombstone of a value Core Data keeps in a support file (0x02 + UUID) reads back as the file's bytes")
    func tombstoneOfSupportFile() throws {
        let stack = try HistoryStack(url: try HistoryStack.newURL(), model: try Self.tombstoneModel())
        let uuid = "6B1C3A5E-0F5B-4E0C-9C55-0D1E2F3A4B5C"
        let folder = SQLiteExternalBinaryData.folder(forStoreAt: stack.url)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("the big picture".utf8).write(to: folder.appendingPathComponent(uuid))
        let hex = Data(uuid.utf8).map { String(format: "%02X", $0) }.joined()
        // Written as Core Data writes such a row (another connection: not in CoreStack's history).
        try SchemaInferenceRelationshipTests.sqlite(stack.url, """
            INSERT INTO ZNOTE (Z_PK, Z_ENT, Z_OPT, ZTEXT, ZIMAGE) VALUES (1, 1, 1, 'file', X'02\(hex)00');
            UPDATE Z_PRIMARYKEY SET Z_MAX = 1 WHERE Z_ENT = 1;
            """)
        try stack.context.performAndWait {
            let notes = try stack.context.fetch(FetchRequest<ManagedObject>(entityName: "Note"))
            #expect(notes.count == 1)
            for note in notes { try stack.context.delete(note) }
            try stack.context.save()
        }
        let change = try #require(try stack.history().last?.changes.first)
        #expect(change.changeType == .delete)
        #expect(change.tombstone == ["text": .string("file"), "image": .data(Data("the big picture".utf8))])
    }

    @Test("a migration that adds a required external-storage attribute writes its default as Core Data does (0x01 + bytes) and reads it back")
    func migrationDefault() throws {
        let v1 = try ManagedObjectModel {
            EntityDescription("Photo") {
                AttributeDescription("name", .string)
            }
        }
        let v2 = try ManagedObjectModel {
            EntityDescription("Photo") {
                AttributeDescription("name", .string)
                AttributeDescription(
                    "image", .binaryData, isOptional: false, defaultValue: .data(Self.bytes), allowsExternalBinaryDataStorage: true)
            }
        }
        let url = try MigrationToManyTests.makeStore(v1) { context in
            let photo = try context.insertObject(forEntityName: "Photo")
            try photo.setValue("sunset", forKey: "name")
        }
        _ = try SQLiteMigration.migrateStore(at: url, from: v1, to: v2)
        #expect(try RawSQLite.run("SELECT hex(ZIMAGE) AS h FROM ZPHOTO", in: url).first?["h"] as? String == "01" + "01ABCD")
        let store = try SQLiteStore(url: url, model: v2, readOnly: true)
        let photo = try #require(v2.entity(named: "Photo"))
        let slot = try #require(photo.attributeSlots["image"])
        #expect(try store.fetch(StoreFetchRequest(entity: photo)).map { $0.snapshot.values[slot] } == [.data(Self.bytes)])
    }

    @Test(
        "a migration that adds or removes Allows External Storage on a kept attribute adds or strips the 0x01 marker, so the value reads back the same",
        arguments: [true, false])
    func migrationAcrossFlag(toExternal: Bool) throws {
        func model(external: Bool, extra: Bool) throws -> ManagedObjectModel {
            try ManagedObjectModel {
                EntityDescription("Photo") {
                    AttributeDescription("name", .string)
                    AttributeDescription("image", .binaryData, allowsExternalBinaryDataStorage: external)
                    // The flag alone is not a change a migration is planned for: a new attribute is.
                    if extra { AttributeDescription("caption", .string) }
                }
            }
        }
        let v1 = try model(external: !toExternal, extra: false)
        let v2 = try model(external: toExternal, extra: true)
        let url = try MigrationToManyTests.makeStore(v1) { context in
            let photo = try context.insertObject(forEntityName: "Photo")
            try photo.setValue("sunset", forKey: "name")
            try photo.setValue(Self.bytes, forKey: "image")
        }
        _ = try SQLiteMigration.migrateStore(at: url, from: v1, to: v2)
        let hex = try RawSQLite.run("SELECT hex(ZIMAGE) AS h FROM ZPHOTO", in: url).first?["h"] as? String
        #expect(hex == (toExternal ? "01" : "") + "01ABCD")
        let store = try SQLiteStore(url: url, model: v2, readOnly: true)
        let photo = try #require(v2.entity(named: "Photo"))
        let slot = try #require(photo.attributeSlots["image"])
        #expect(try store.fetch(StoreFetchRequest(entity: photo)).map { $0.snapshot.values[slot] } == [.data(Self.bytes)])
    }
}
