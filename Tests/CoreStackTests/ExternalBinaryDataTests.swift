import Foundation
import Testing

@testable import CoreStack

/// Binary attributes with *Allows External Storage*: Core Data's marker byte, the support folder.
///
/// No fixture store has such a value: each test makes a store in Core Data's layout (CoreStack
/// creates the tables), writes the columns with sqlite3 as Core Data does (`0x02` + the UUID of a
/// file in `.<StoreName>_SUPPORT/_EXTERNAL_DATA/` + NUL, or `0x01` + the bytes) and makes the folder.
@Suite("external binary data")
struct ExternalBinaryDataTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Photo", attributes: [
                AttributeDescription("name", .string),
                AttributeDescription("image", .binaryData, allowsExternalBinaryDataStorage: true),
                AttributeDescription("thumb", .binaryData),
            ], relationships: []),
        ])
    }

    static let present = "6B1C3A5E-0F5B-4E0C-9C55-0D1E2F3A4B5C"
    static let missing = "11111111-2222-3333-4444-555555555555"

    /// A store with three photos: image in a support file, inline, and in a file that is missing.
    static func makeStore() throws -> URL {
        let folder = try Fixtures.temporaryFolder()
        let url = folder.appendingPathComponent("Photos.sqlite")
        _ = try SQLiteStore(url: url, model: try model())
        let external = folder.appendingPathComponent(".Photos_SUPPORT/_EXTERNAL_DATA")
        try FileManager.default.createDirectory(at: external, withIntermediateDirectories: true)
        try Data("the big picture".utf8).write(to: external.appendingPathComponent(present))
        let hexPresent = Data(present.utf8).map { String(format: "%02X", $0) }.joined()
        let hexMissing = Data(missing.utf8).map { String(format: "%02X", $0) }.joined()
        try SchemaInferenceRelationshipTests.sqlite(url, """
            INSERT INTO ZPHOTO (Z_PK, Z_ENT, Z_OPT, ZNAME, ZIMAGE, ZTHUMB) VALUES
              (1, 1, 1, 'file', X'02\(hexPresent)00', X'02\(hexPresent)00'),
              (2, 1, 1, 'inline', X'01DEADBEEF', X'01DEADBEEF'),
              (3, 1, 1, 'gone', X'02\(hexMissing)00', NULL);
            UPDATE Z_PRIMARYKEY SET Z_MAX = 3 WHERE Z_ENT = 1;
            """)
        return url
    }

    static func values(_ store: SQLiteStore, _ model: ManagedObjectModel) throws -> [String: (image: AttributeValue, thumb: AttributeValue)] {
        let photo = try #require(model.entity(named: "Photo"))
        let (n, i, t) = (photo.attributeSlots["name"] ?? 0, photo.attributeSlots["image"] ?? 0, photo.attributeSlots["thumb"] ?? 0)
        var out: [String: (image: AttributeValue, thumb: AttributeValue)] = [:]
        for row in try store.fetch(StoreFetchRequest(entity: photo)) {
            out[row.snapshot.values[n].stringValue ?? ""] = (row.snapshot.values[i], row.snapshot.values[t])
        }
        return out
    }

    @Test("a flagged column reads the support file (0x02 + UUID) or the inline bytes (0x01 + bytes); an unflagged column is left alone")
    func reads() throws {
        let url = try Self.makeStore()
        let model = try Self.model()
        let store = try SQLiteStore(url: url, model: model)
        let v = try Self.values(store, model)
        #expect(v["file"]?.image == .data(Data("the big picture".utf8)))
        #expect(v["inline"]?.image == .data(Data([0xDE, 0xAD, 0xBE, 0xEF])))
        // Without the flag the bytes are the value, markers and all.
        #expect(v["inline"]?.thumb == .data(Data([0x01, 0xDE, 0xAD, 0xBE, 0xEF])))
        #expect(v["file"]?.thumb.dataValue?.first == 0x02)
    }

    @Test("a missing support file keeps the reference, recognisable as missing, and a save writes it back unchanged")
    func missingFile() throws {
        let url = try Self.makeStore()
        let model = try Self.model()
        let photo = try #require(model.entity(named: "Photo"))
        let store = try SQLiteStore(url: url, model: model)
        let gone = try #require(try Self.values(store, model)["gone"]?.image.dataValue)
        #expect(SQLiteExternalBinaryData.missingReference(gone) == Self.missing)
        // Saving the row (another attribute changed) leaves the reference as Core Data wrote it.
        let row = try #require(try store.fetch(StoreFetchRequest(entity: photo)).first { $0.objectID.primaryKey == 3 })
        var values = row.snapshot.values
        values[photo.attributeSlots["name"] ?? 0] = "renamed"
        _ = try store.save(StoreSaveRequest(updated: [StoreRowChange(objectID: row.objectID, values: values, toOne: row.snapshot.toOne, expectedVersion: 1)]))
        let hex = try RawSQLite.run("SELECT hex(ZIMAGE) AS h FROM ZPHOTO WHERE Z_PK = 3", in: url).first?["h"] as? String
        #expect(hex == "02" + Data(Self.missing.utf8).map { String(format: "%02X", $0) }.joined() + "00")
    }

    @Test("a save writes 0x01 + the bytes in a flagged column (what Core Data reads back), the bytes alone elsewhere")
    func writes() throws {
        let url = try Self.makeStore()
        let model = try Self.model()
        let photo = try #require(model.entity(named: "Photo"))
        let store = try SQLiteStore(url: url, model: model)
        let key = try #require(try store.newPrimaryKeys(for: photo, count: 1).first)
        let id = ManagedObjectID(entity: photo, storeIdentifier: store.identifier, primaryKey: key)
        var values = photo.defaultValues
        values[photo.attributeSlots["name"] ?? 0] = "new"
        values[photo.attributeSlots["image"] ?? 0] = .data(Data([1, 2, 3]))
        values[photo.attributeSlots["thumb"] ?? 0] = .data(Data([1, 2, 3]))
        _ = try store.save(StoreSaveRequest(inserted: [StoreRowChange(objectID: id, values: values, toOne: [], expectedVersion: 0)]))
        let raw = try #require(try RawSQLite.run("SELECT hex(ZIMAGE) AS i, hex(ZTHUMB) AS t FROM ZPHOTO WHERE ZNAME = 'new'", in: url).first)
        #expect(raw["i"] as? String == "01010203")
        #expect(raw["t"] as? String == "010203")
        #expect(try Self.values(store, model)["new"]?.image == .data(Data([1, 2, 3])))
    }
}

extension ExternalBinaryDataTests {
    @Test("the flag survives the store's own model cache: reopened with its stored model, a CoreStack store still decodes the column")
    func flagInModelCache() throws {
        let url = try Self.makeStore()
        let stored = try #require(try SQLiteStore.storedModel(at: url))
        #expect(stored.entity(named: "Photo")?.attribute(named: "image")?.allowsExternalBinaryDataStorage == true)
        #expect(stored.entity(named: "Photo")?.attribute(named: "thumb")?.allowsExternalBinaryDataStorage == false)
        let store = try SQLiteStore(url: url, model: stored)
        #expect(try Self.values(store, stored)["inline"]?.image == .data(Data([0xDE, 0xAD, 0xBE, 0xEF])))
    }
}

extension ExternalBinaryDataTests {
    @Test("without the flag in the model (Apple's model cache, an inferred model) the marker bytes are the evidence: the column is decoded")
    func flagFromTheColumns() throws {
        let url = try Self.makeStore()
        // The store's model cache as Core Data would write it: no CoreStack key for the flag.
        let plain = try ManagedObjectModel(entities: [
            EntityDescription(name: "Photo", attributes: [
                AttributeDescription("name", .string), AttributeDescription("image", .binaryData), AttributeDescription("thumb", .binaryData),
            ], relationships: []),
        ])
        let folder = url.deletingLastPathComponent().appendingPathComponent("plain")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let plainURL = folder.appendingPathComponent("Photos.sqlite")
        _ = try SQLiteStore(url: plainURL, model: plain)
        let cache = try #require(try SQLiteStore.storedModelCache(at: plainURL))
        try SchemaInferenceRelationshipTests.sqlite(url, "UPDATE Z_MODELCACHE SET Z_CONTENT = X'\(cache.map { String(format: "%02X", $0) }.joined())'")
        let stored = try #require(try SQLiteStore.storedModel(at: url))
        #expect(stored.entity(named: "Photo")?.attribute(named: "image")?.allowsExternalBinaryDataStorage == false)
        let v = try Self.values(try SQLiteStore(url: url, model: stored, readOnly: true), stored)
        #expect(v["file"]?.image == .data(Data("the big picture".utf8)))
        // thumb holds one reference and one inline value, as image does: it is flagged too; the
        // evidence is the column's, whatever the model says.
        #expect(v["inline"]?.thumb == .data(Data([0xDE, 0xAD, 0xBE, 0xEF])))

        // Inferred: the attribute is flagged.
        try SchemaInferenceRelationshipTests.sqlite(url, "DELETE FROM Z_MODELCACHE")
        let inferred = try SQLiteStore.inferredModel(at: url)
        #expect(inferred.entity(named: "Photo")?.attribute(named: "IMAGE")?.allowsExternalBinaryDataStorage == true)
        #expect(inferred.entity(named: "Photo")?.attribute(named: "NAME")?.allowsExternalBinaryDataStorage == false)
    }
}

extension ExternalBinaryDataTests {
    @Test("IDs with values and dictionary fetches decode flagged columns too")
    func otherReadPaths() throws {
        let url = try Self.makeStore()
        let model = try Self.model()
        let photo = try #require(model.entity(named: "Photo"))
        let store = try SQLiteStore(url: url, model: model, readOnly: true)
        let (n, i) = (photo.attributeSlots["name"] ?? 0, photo.attributeSlots["image"] ?? 0)
        let keyed = try store.fetchObjectIDs(StoreFetchRequest(entity: photo), valuesAt: [n, i])
        #expect(keyed.first { $0.values[0] == "inline" }?.values[1] == .data(Data([0xDE, 0xAD, 0xBE, 0xEF])))
        let rows = try store.fetchDictionaryRows(
            StoreFetchRequest(entity: photo), columns: [.attribute(slot: n, name: "name"), .attribute(slot: i, name: "image")], groupBy: [])
        #expect(rows.first { $0[0] == "file" }?[1] == .data(Data("the big picture".utf8)))
    }
}
