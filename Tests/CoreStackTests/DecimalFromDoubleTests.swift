import Foundation
import Testing

@testable import CoreStack

/// A Double that has no Decimal (±infinity traps `Decimal.init(_: Double)`; NaN and magnitudes
/// beyond Decimal's range come back as NaN) must be refused with a typed error wherever a model
/// file, a store or a caller can hand one to a decimal attribute, never crash.
@Suite("decimals from doubles")
struct DecimalFromDoubleTests {
    @Test("coercion and decimalValue refuse ±infinity, NaN and out-of-range doubles; ordinary ones convert")
    func coercion() {
        for d in [Double.infinity, -Double.infinity, Double.nan, 1e300, -1e200] {
            #expect(AttributeCoercion.coerce(.double(d), to: .decimal) == nil, "\(d)")
            #expect(AttributeValue.double(d).decimalValue == nil, "\(d)")
            #expect(Decimal(attributeValue: .double(d)) == nil, "\(d)")
        }
        #expect(AttributeCoercion.coerce(.double(2.5), to: .decimal) == .decimal(Decimal(string: "2.5") ?? 0))
        #expect(AttributeValue.double(-7).decimalValue == Decimal(-7))
    }

    @Test("a model whose decimal attribute defaults to infinity (as a damaged .mom or model cache can say) is an invalid model")
    func infiniteDefault() {
        let error = #expect(throws: CoreStackError.self) {
            _ = try ManagedObjectModel {
                EntityDescription("Item") {
                    AttributeDescription("price", .decimal, defaultValue: .double(.infinity))
                }
            }
        }
        guard case let .invalidModel(entity, property, _)? = error else {
            Issue.record("expected invalidModel, got \(String(describing: error))")
            return
        }
        #expect(entity == "Item" && property == "price")
    }

    @Test("a decimal column holding a REAL no decimal holds (±infinity, 1e300), as a damaged or foreign store can, reads as that Double instead of crashing")
    func infiniteColumn() throws {
        let lib = try LibraryStore()
        let id = try lib.insert("Book", ["title": .string("Infinite"), "price": .decimal(Decimal(string: "9.99") ?? 0)])
        for (text, expected) in [("9e999", Double.infinity), ("-9e999", -Double.infinity), ("1e300", 1e300)] {
            try StoreDamage.sqlite3(lib.url, "UPDATE ZBOOK SET ZPRICE = \(text)")
            let row = try lib.requireRow(id)
            let slot = try #require(lib.entity("Book").attributeSlots["price"])
            #expect(row.snapshot.values[slot] == .double(expected), "\(text)")
        }
        try StoreDamage.sqlite3(lib.url, "UPDATE ZBOOK SET ZPRICE = 2.5")
        let slot = try #require(lib.entity("Book").attributeSlots["price"])
        #expect(try lib.requireRow(id).snapshot.values[slot] == .decimal(Decimal(string: "2.5") ?? 0))
    }
}
