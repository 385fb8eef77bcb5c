import Foundation
import Testing

@testable import CoreStack

/// What a transformable or binary attribute holds, said from its keyed archive without
/// instantiating any class.
@Suite("archived value summary")
struct ArchivedValueSummaryTests {
    /// `Book.cover` of CoreDataPlus's SampleModel2_V1.sqlite (Book p1): an app class archived by Core Data.
    static let cover = "YnBsaXN0MDDUAQIDBAUGBwpYJHZlcnNpb25ZJGFyY2hpdmVyVCR0b3BYJG9iamVjdHMSAAGGoF8QD05TS2V5ZWRBcmNoaXZlctEICVRyb290gAGkCwwRElUkbnVsbNINDg8QVHRleHRWJGNsYXNzgAKAA11kZWZhdWx0IGNvdmVy0hMUFRZaJGNsYXNzbmFtZVgkY2xhc3Nlc18QGENvcmVEYXRhUGx1c19UZXN0cy5Db3ZlcqIXGF8QGENvcmVEYXRhUGx1c19UZXN0cy5Db3ZlclhOU09iamVjdAgRGiQpMjdJTFFTWF5jaG9xc4GGkZq1uNMAAAAAAAABAQAAAAAAAAAZAAAAAAAAAAAAAAAAAAAA3A=="

    @Test("an app's class archived by Core Data on iOS: its class and its string field")
    func appClass() throws {
        let data = try #require(Data(base64Encoded: Self.cover))
        #expect(ArchivedValueSummary.summary(of: data) == "CoreDataPlus_Tests.Cover {text: \"default cover\"}")
        #expect(ArchivedValueSummary.summary(of: data, maxLength: 20) == "CoreDataPlus_Tests.…")
    }

    @Test("Foundation roots: a string, an array, a dictionary, a date")
    func foundationRoots() throws {
        func archived(_ object: Any) throws -> Data {
            try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false)
        }
        #expect(ArchivedValueSummary.summary(of: try archived(NSString(string: "hello"))) == "\"hello\"")
        #expect(ArchivedValueSummary.summary(of: try archived(NSArray(array: ["a", "b", "c"]))) == "NSArray (3 elements)")
        #expect(ArchivedValueSummary.summary(of: try archived(NSDictionary(dictionary: ["k": "v"]))) == "NSDictionary (1 entry)")
        #expect(ArchivedValueSummary.summary(of: try archived(NSDate(timeIntervalSinceReferenceDate: 0.5))) == "NSDate 2001-01-01T00:00:00.500Z")
    }

    @Test("anything else is not an archive: an image, a property list that is not an archive, damaged bytes")
    func notArchives() throws {
        #expect(ArchivedValueSummary.summary(of: Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 0x4A, 0x46])) == nil)
        let plist = try PropertyListSerialization.data(fromPropertyList: ["a": 1], format: .binary, options: 0)
        #expect(ArchivedValueSummary.summary(of: plist) == nil)
        var damaged = try #require(Data(base64Encoded: Self.cover))
        damaged.replaceSubrange(40..<120, with: Data(repeating: 0xFF, count: 80))
        #expect(ArchivedValueSummary.summary(of: damaged) == nil)
        #expect(ArchivedValueSummary.summary(of: Data("bplist00".utf8)) == nil)
        #expect(ArchivedValueSummary.summary(of: Data()) == nil)
    }
}
