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
}
