import Foundation
import Testing
@testable import CoreStack

@Suite("decimals stored as REAL")
struct DecimalStorageTests {
    @Test("every two-place decimal is stored as the REAL its text names, and reads back exact")
    func twoPlaces() throws {
        for cents in 0...9_999 {
            let d = Decimal(cents) / Decimal(100)
            let text = NSDecimalNumber(decimal: d).description(withLocale: Locale(identifier: "en_US_POSIX"))
            let stored = SQLiteValueCodec.databaseValue(.decimal(d), type: .decimal)
            let expected = try #require(Double(text))
            if case let .double(x) = stored.storage {
                #expect(x == expected, "\(text) stored as \(x)")
                #expect(SQLiteValueCodec.decimal(x) == d)
            } else if case let .int64(i) = stored.storage {
                #expect(Double(i) == expected)
            }
        }
    }
}
