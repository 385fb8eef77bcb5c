import CoreStack
import Foundation
import StackScope
import Testing

@Suite("the attribute editor's dates: a day or time that does not exist is refused, not rolled over")
struct ValueParserDateTests {
    let published = AttributeDescription("published", .date)

    @Test("February 30th, April 31st, a 13th month, 25 o'clock and minute 61 are refused with the reason")
    func impossibleDatesRefused() {
        for text in ["1999-02-30", "2023-02-29", "2024-04-31", "2024-13-01", "2024-05-01T25:00:00Z", "2024-05-01T12:61:00Z", "2024-05-01T12:30:61Z"] {
            do {
                let value = try ValueParser.parse(text, for: published)
                Issue.record("\(text) was taken as \(value)")
            } catch {
                #expect("\(error)".contains("no such day or time"), "\(text): \(error)")
            }
        }
    }

    @Test("real dates still parse, leap days, fractional seconds and offsets included")
    func realDatesParse() throws {
        let utc = TimeZone(secondsFromGMT: 0) ?? .current
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc
        func date(_ y: Int, _ m: Int, _ d: Int, _ h: Int = 0, _ min: Int = 0) -> Date? {
            calendar.date(from: DateComponents(year: y, month: m, day: d, hour: h, minute: min))
        }
        #expect(try ValueParser.parse("2024-02-29", for: published) == .date(try #require(date(2024, 2, 29))))
        #expect(try ValueParser.parse("1999-12-31", for: published) == .date(try #require(date(1999, 12, 31))))
        #expect(try ValueParser.parse("2024-05-01T12:30:00Z", for: published) == .date(try #require(date(2024, 5, 1, 12, 30))))
        #expect(try ValueParser.parse("2024-05-01T14:30:00+02:00", for: published) == .date(try #require(date(2024, 5, 1, 12, 30))))
        let fractional = try ValueParser.parse("2024-05-01T12:30:00.500Z", for: published)
        #expect(fractional == .date(try #require(date(2024, 5, 1, 12, 30)).addingTimeInterval(0.5)))
    }
}
