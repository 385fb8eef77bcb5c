import Foundation
import Testing

@testable import CoreStack

/// Column names of properties whose names collide once upper-cased: the suffixed names
/// (`ZA1`, `ZA2`) skip names another property or a fixed column already has, so a model (from a
/// file or code) whose names would have given one column twice makes a store that opens and keeps
/// every value apart (before, creating the store failed on SQLite's "duplicate column name").
@Suite struct SQLiteColumnNameCollisionTests {
    /// Saves one object of `entity` with `values` in a fresh store of `model` and reads it back.
    static func roundTrip(_ model: ManagedObjectModel, _ values: [String: AttributeValue]) throws -> [String: AttributeValue] {
        let url = try Fixtures.temporaryFolder().appendingPathComponent("Names.sqlite")
        let entity = try #require(model.entities.first)
        let store = try SQLiteStore(url: url, model: model)
        let pk = try store.newPrimaryKeys(for: entity, count: 1)[0]
        let id = ManagedObjectID(entity: entity, storeIdentifier: store.identifier, primaryKey: pk)
        var row = entity.allAttributes.map(\.defaultValue)
        for (k, v) in values { row[try #require(entity.attributeSlots[k])] = v }
        _ = try store.save(StoreSaveRequest(inserted: [
            StoreRowChange(objectID: id, values: row, toOne: [], expectedVersion: 0),
        ]))
        let again = try SQLiteStore(url: url, model: model, readOnly: true)
        let read = try #require(try again.fetch(StoreFetchRequest(entity: entity)).first)
        var out: [String: AttributeValue] = [:]
        for (k, slot) in entity.attributeSlots { out[k] = read.snapshot.values[slot] }
        return out
    }

    @Test("attributes A, a and a1 (ZA twice, then ZA1: ZA1 twice before) get three columns and keep their values")
    func suffixSkipsTakenNames() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Note") {
                AttributeDescription("A", .string)
                AttributeDescription("a", .string)
                AttributeDescription("a1", .string)
            }
        }
        let schema = SQLiteSchema(model: model)
        let columns = try #require(schema.entityTables.first).columns.map(\.name)
        #expect(Set(columns).count == columns.count)
        #expect(try Self.roundTrip(model, ["A": "upper", "a": "lower", "a1": "one"]) == ["A": "upper", "a": "lower", "a1": "one"])
    }

    @Test("attributes named _pk and _opt get columns of their own (Z_PK1, Z_OPT1), not a second Z_PK or Z_OPT")
    func fixedColumnNames() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Note") {
                AttributeDescription("_pk", .string)
                AttributeDescription("_opt", .integer64)
            }
        }
        let columns = try #require(SQLiteSchema(model: model).entityTables.first).columns.map(\.name)
        #expect(columns.sorted() == ["Z_ENT", "Z_OPT", "Z_OPT1", "Z_PK", "Z_PK1"])
        #expect(try Self.roundTrip(model, ["_pk": "mine", "_opt": 7]) == ["_pk": "mine", "_opt": 7])
    }
}
