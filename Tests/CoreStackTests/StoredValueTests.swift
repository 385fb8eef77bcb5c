import Foundation
import Testing

@testable import CoreStack

/// SQLiteStore.storedValue(of:attribute:): a saved value read a range at a time, from its column
/// or its external data file, on stores in Core Data's layout (see ExternalBinaryDataTests).
@Suite("stored values read in ranges")
struct StoredValueTests {
    static func objectID(_ store: SQLiteStore, _ pk: Int64) throws -> ManagedObjectID {
        let photo = try #require(store.model.entity(named: "Photo"))
        return ManagedObjectID(entity: photo, storeIdentifier: store.identifier, primaryKey: pk)
    }

    @Test("a value in an external data file is read from the file, with its path; an inline one skips Core Data's 0x01 marker")
    func externalAndInline() throws {
        let url = try ExternalBinaryDataTests.makeStore()
        let store = try SQLiteStore(url: url, model: try ExternalBinaryDataTests.model(), readOnly: true)
        let file = try #require(try store.storedValue(of: try Self.objectID(store, 1), attribute: "image"))
        let expectedFile = URL(fileURLWithPath: store.path).deletingLastPathComponent()
            .appendingPathComponent(".Photos_SUPPORT/_EXTERNAL_DATA/\(ExternalBinaryDataTests.present)")
        #expect(file.location == .externalFile(expectedFile))
        #expect(try file.bytes.bytes(in: 0..<100) == Data("the big picture".utf8))
        #expect(try file.bytes.bytes(in: 4..<7) == Data("big".utf8))
        let inline = try #require(try store.storedValue(of: try Self.objectID(store, 2), attribute: "image"))
        #expect(inline.count == 4)
        #expect(try inline.bytes.bytes(in: 0..<4) == Data([0xDE, 0xAD, 0xBE, 0xEF]))
        #expect(try inline.bytes.bytes(in: 1..<2) == Data([0xAD]))
        // A column without the flag holds the marker as it is.
        let thumb = try #require(try store.storedValue(of: try Self.objectID(store, 2), attribute: "thumb"))
        #expect(try thumb.bytes.bytes(in: 0..<10) == Data([0x01, 0xDE, 0xAD, 0xBE, 0xEF]))
        #expect(try store.storedValue(of: try Self.objectID(store, 3), attribute: "thumb") == nil)
    }

    @Test("a missing external data file is a ValueReadError naming the attribute and the file's path")
    func missingFile() throws {
        let url = try ExternalBinaryDataTests.makeStore()
        let store = try SQLiteStore(url: url, model: try ExternalBinaryDataTests.model(), readOnly: true)
        do {
            _ = try store.storedValue(of: try Self.objectID(store, 3), attribute: "image")
            Issue.record("a missing file was read")
        } catch let error as ValueReadError {
            #expect(error.what == "external data of Photo.image of 3")
            #expect(error.path.hasSuffix(".Photos_SUPPORT/_EXTERNAL_DATA/\(ExternalBinaryDataTests.missing)"))
            #expect(error.description.hasSuffix("the file is missing"))
        }
        #expect(throws: CoreStackError.self) { try store.storedValue(of: try Self.objectID(store, 42), attribute: "image") }
        #expect(throws: CoreStackError.unknownKey(entity: "Photo", key: "nope")) {
            try store.storedValue(of: try Self.objectID(store, 1), attribute: "nope")
        }
    }

    @Test("a large value is decoded by its prefix only: a PNG header gives the image, other bytes their size")
    func boundedDecode() throws {
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]) + Data("IHDR".utf8)
        png += Data([0, 0, 0x01, 0x00, 0, 0, 0x00, 0x80, 8, 6, 0, 0, 0])
        let big = png + Data(count: 20 << 20)
        let inspection = try ValueInspector.inspect(reading: big)
        #expect(inspection.summary.hasPrefix("PNG 256×128"))
        #expect(inspection.byteCount == big.count)
        let plist = Data("bplist00".utf8) + Data(count: 20 << 20)
        #expect(try ValueInspector.inspect(reading: plist).summary == "cannot decode: bplist: \(plist.count) bytes, more than the \(16 << 20) decoded")
        let small = try PropertyListSerialization.data(fromPropertyList: ["a": 1], format: .binary, options: 0)
        #expect(try ValueInspector.inspect(reading: small).summary == "plist dict · 1 key")
    }
}
