import CoreStack
import Foundation
import StackScope
import Testing

/// Dates as Core Data saves them (`Date()`, with a fraction of a second) in the browser.
@Suite("dates shown to the millisecond")
struct DateDisplayTests {
    @Test("a timestamp with milliseconds shows them; a whole-second date does not grow a .000")
    func fractions() throws {
        // Book p1's publishedAt in CoreDataPlus's SampleModel2_V1.sqlite.
        let stamp = ValueFormatter.detail(.date(Date(timeIntervalSinceReferenceDate: 737_057_646.843063)))
        #expect(stamp.contains(":06.843"), "\(stamp)")
        let later = ValueFormatter.cell(.date(Date(timeIntervalSinceReferenceDate: 737_057_646.874)))
        #expect(later != stamp && later.contains(":06.874"), "\(later)")
        let whole = ValueFormatter.detail(.date(Date(timeIntervalSinceReferenceDate: 86_400)))
        #expect(!whole.contains("."), "\(whole)")
        // Exports round to the millisecond as dump does (the format style alone would truncate
        // 06.874, a Double just below it, to 06.873).
        #expect(ValueFormatter.exported(.date(Date(timeIntervalSinceReferenceDate: 737_057_646.874))) == "2024-05-10T18:14:06.874Z")
        #expect(ValueFormatter.exported(.date(Date(timeIntervalSinceReferenceDate: 0.9996))) == "2001-01-01T00:00:01.000Z")
    }
}
