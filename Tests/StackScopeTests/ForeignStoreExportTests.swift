import CoreStack
import Foundation
import StackScope
import Testing

/// `:export` on a store an Apple app wrote: the file holds the values, not their on-screen
/// summary. Core Data timestamps carry fractional seconds and transformable/binary attributes
/// hold archives; both must survive the round trip.
@Suite("browser export of an Apple-written store")
struct ForeignStoreExportTests {
    static let store = "alemar11-CoreDataPlus/SampleModel2_V1.sqlite"

    @Test(":export csv and json keep dates to the millisecond (UTC, as dump) and binary values whole (base64)")
    func exportIsLossless() throws {
        let url = try StoreOwnModelTests.copy([Self.store])
        let session = try BrowserSession.open(storePath: url.path, modelPath: nil, readOnly: true)
        let h = try BrowserHarness(session: session, open: "Book")
        let dir = try TestSupport.temporaryDirectory()
        let csv = dir.appendingPathComponent("books.csv").path
        let json = dir.appendingPathComponent("books.json").path
        h.press(":")
        h.type("export csv \(csv)")
        h.press("Enter")
        h.press(":")
        h.type("export json \(json)")
        h.press("Enter")

        // What Core Data stored for Book p1, read with sqlite3.
        let row = try StoreOwnModelTests.sqlite3("SELECT ZPUBLISHEDAT, hex(ZCOVER) FROM ZBOOK WHERE Z_PK = 1", url)
        let fields = try #require(row.first).split(separator: "|").map(String.init)
        let seconds = try #require(Double(fields[0]))
        let cover = try #require(Data(hexString: fields[1]))
        let dates = ISO8601DateFormatter()
        dates.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let date = dates.string(from: Date(timeIntervalSinceReferenceDate: seconds))
        #expect(date == "2024-05-10T18:14:06.843Z")

        let lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\r\n").map(String.init)
        let header = lines[0].split(separator: ",").map(String.init)
        let p1 = try #require(lines.first { $0.hasPrefix("x-coredata://") && $0.split(separator: ",").first?.hasSuffix("/Book/p1") == true })
        let values = Dictionary(uniqueKeysWithValues: zip(header, p1.split(separator: ",", omittingEmptySubsequences: false).map(String.init)))
        #expect(values["publishedAt"] == date)
        #expect(values["cover"].flatMap { Data(base64Encoded: $0) } == cover)

        let objects = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [[String: Any]])
        let o = try #require(objects.first { ($0["objectID"] as? String)?.hasSuffix("/Book/p1") == true })
        #expect(o["publishedAt"] as? String == date)
        #expect((o["cover"] as? String).flatMap { Data(base64Encoded: $0) } == cover)
    }
}

extension Data {
    /// Bytes from hexadecimal text (as sqlite3's `hex()` prints them), nil if it is not that.
    init?(hexString: String) {
        var bytes: [UInt8] = []
        var chars = hexString.makeIterator()
        while let hi = chars.next() {
            guard let lo = chars.next(), let byte = UInt8(String([hi, lo]), radix: 16) else { return nil }
            bytes.append(byte)
        }
        self.init(bytes)
    }
}
