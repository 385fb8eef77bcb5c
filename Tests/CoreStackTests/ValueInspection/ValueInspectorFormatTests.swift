import Foundation
import Testing

@testable import CoreStack

/// Property lists, JSON, text, UUIDs, compressed data and images, each made by a real encoder
/// (images: headers as their formats define them).
@Suite("value inspector: formats")
struct ValueInspectorFormatTests {
    @Test("binary and XML property lists: the tree and the summary")
    func propertyLists() throws {
        var dict: [String: Any] = [:]
        for i in 0..<12 { dict["key\(i)"] = i }
        dict["key0"] = ["nested": [true, "x"]]
        let binary = try PropertyListSerialization.data(fromPropertyList: dict, format: .binary, options: 0)
        let b = ValueInspector.inspect(binary)
        #expect(b.format == .propertyList(binary: true))
        #expect(b.summary == "plist dict · 12 keys")
        guard case let .dictionary(_, entries)? = b.value else {
            Issue.record("\(b)")
            return
        }
        #expect(entries.first?.key == .string("key0"))
        #expect(entries.first?.value == .dictionary(className: nil, entries: [
            InspectedEntry(key: .string("nested"), value: .array(className: nil, items: [.bool(true), .string("x")]))
        ]))
        let xml = try PropertyListSerialization.data(fromPropertyList: ["a", 1.5, Date(timeIntervalSinceReferenceDate: 0)], format: .xml, options: 0)
        let x = ValueInspector.inspect(xml)
        #expect(x.format == .propertyList(binary: false))
        #expect(x.summary == "XML plist array · 3")
        #expect(x.value == .array(className: nil, items: [.string("a"), .real(1.5), .date(Date(timeIntervalSinceReferenceDate: 0))]))
    }

    @Test("JSON arrays and objects; text that is not JSON stays text")
    func json() throws {
        let array = try JSONSerialization.data(withJSONObject: Array(0..<40))
        #expect(ValueInspector.inspect(array).summary == "JSON array · 40")
        let object = try JSONSerialization.data(withJSONObject: ["b": [1, 2], "a": NSNull(), "c": "x"])
        let o = ValueInspector.inspect(object)
        #expect(o.summary == "JSON object · 3 keys")
        #expect(o.value == .dictionary(className: nil, entries: [
            InspectedEntry(key: .string("a"), value: .null),
            InspectedEntry(key: .string("b"), value: .array(className: nil, items: [.integer(1), .integer(2)])),
            InspectedEntry(key: .string("c"), value: .string("x")),
        ]))
        #expect(ValueInspector.inspect(Data("[not json".utf8)).format == .text(encoding: "UTF-8"))
    }

    @Test("UTF-8 text, UTF-16 with a byte order mark, a 16-byte UUID")
    func textAndUUID() throws {
        let text = ValueInspector.inspect(Data("Grüße\nzwei".utf8))
        #expect(text.format == .text(encoding: "UTF-8"))
        #expect(text.summary == "text · 10 chars · \"Grüße⏎zwei\"")
        var utf16 = Data([0xFF, 0xFE])
        utf16.append(try #require("日本語".data(using: .utf16LittleEndian)))
        let u = ValueInspector.inspect(utf16)
        #expect(u.format == .text(encoding: "UTF-16LE"))
        #expect(u.value == .string("日本語"))
        let id = UUID()
        let bytes = withUnsafeBytes(of: id.uuid) { Data($0) }
        let inspection = ValueInspector.inspect(bytes)
        #expect(inspection.format == .uuid)
        #expect(inspection.summary == "UUID " + id.uuidString)
    }

    @Test("zlib, gzip and raw deflate are opened to what they hold")
    func compressed() throws {
        let plist = try PropertyListSerialization.data(fromPropertyList: ["a": 1, "b": 2, "c": 3], format: .binary, options: 0)
        let zlib = try RawDeflate.deflate(plist, windowBits: 15)
        #expect(ValueInspector.inspect(zlib).summary == "zlib → plist dict · 3 keys")
        let gzip = try RawDeflate.deflate(Data("hello, gzip".utf8), windowBits: 31)
        #expect(gzip.starts(with: [0x1F, 0x8B]))
        #expect(ValueInspector.inspect(gzip).summary == "gzip → text · 11 chars · \"hello, gzip\"")
        let raw = try RawDeflate.deflate(try JSONSerialization.data(withJSONObject: Array(repeating: "same", count: 50)))
        let inspection = ValueInspector.inspect(raw)
        #expect(inspection.summary == "deflate → JSON array · 50", "\(inspection.summary)")
        guard case let .compressed(method, inner) = inspection.format else {
            Issue.record("\(inspection)")
            return
        }
        #expect(method == "deflate")
        #expect(inner.format == .json)
    }

    @Test("images by their magic bytes: format and size from the header")
    func images() throws {
        #expect(ValueInspector.inspect(ImageHeaders.png(width: 120, height: 90)).summary == "PNG 120×90")
        #expect(ValueInspector.inspect(ImageHeaders.jpeg(width: 640, height: 480)).summary == "JPEG 640×480")
        #expect(ValueInspector.inspect(ImageHeaders.gif(width: 16, height: 8)).summary == "GIF 16×8")
        #expect(ValueInspector.inspect(ImageHeaders.webpLossy(width: 300, height: 200)).summary == "WebP 300×200")
        #expect(ValueInspector.inspect(ImageHeaders.webpLossless(width: 33, height: 44)).summary == "WebP 33×44")
        #expect(ValueInspector.inspect(ImageHeaders.webpExtended(width: 4000, height: 3000)).summary == "WebP 4000×3000")
        #expect(ValueInspector.inspect(ImageHeaders.heic(width: 4032, height: 3024)).summary == "HEIC 4032×3024")
        #expect(ValueInspector.inspect(ImageHeaders.tiff(width: 70, height: 50, littleEndian: true)).summary == "TIFF 70×50")
        #expect(ValueInspector.inspect(ImageHeaders.tiff(width: 70000, height: 5, littleEndian: false)).summary == "TIFF 70000×5")
        #expect(ValueInspector.inspect(Data([0xFF, 0xD8, 0xFF, 0xD9])).summary == "JPEG")
    }

    @Test("a summary with a decode limit: larger values by their first bytes, compressed ones inflated to four times the limit")
    func limitedSummary() throws {
        let plist = try PropertyListSerialization.data(fromPropertyList: Array(repeating: "x", count: 100), format: .binary, options: 0)
        #expect(ValueInspector.summary(of: plist, decodingAtMost: 1 << 20) == "plist array · 100")
        #expect(ValueInspector.summary(of: plist, decodingAtMost: 16) == "\(plist.count) bytes · bplist")
        #expect(ValueInspector.summary(of: ImageHeaders.png(width: 3, height: 2), decodingAtMost: 4) == "PNG 3×2")
        let zeros = try RawDeflate.deflate(Data(count: 100_000), windowBits: 15)
        #expect(ValueInspector.summary(of: zeros, decodingAtMost: 1024) == "cannot decode: zlib data, deflate stream: it inflates to more than 4096 bytes")
    }

    @Test("anything else: its size and first bytes; nothing at all: 0 bytes")
    func binary() {
        let data = Data((0..<40).map { UInt8($0 * 7 % 256) } + [0xFF, 0x00])
        let inspection = ValueInspector.inspect(data)
        #expect(inspection.format == .binary)
        #expect(inspection.summary == "42 bytes · 00 07 0E 15 1C 23 2A 31 38 3F 46 4D 54 5B 62 69 …")
        #expect(ValueInspector.inspect(Data()).summary == "0 bytes")
    }
}
