import CoreStack
import Foundation
import StackScope
import Testing

@Suite("the attribute editor's binary values: read from regular files only")
struct ValueParserFileTests {
    let cover = AttributeDescription("cover", .binaryData)

    @Test("a device (/dev/null here; /dev/zero would never end) is refused as not a regular file")
    func deviceRefused() {
        do {
            let value = try ValueParser.parse("/dev/null", for: cover, isFilePath: true)
            Issue.record("/dev/null was read as \(value)")
        } catch {
            #expect("\(error)".contains("not a regular file"), "\(error)")
        }
    }

    @Test("a regular file is read whole")
    func regularFileRead() throws {
        let url = try TestSupport.temporaryDirectory().appendingPathComponent("cover.bin")
        let bytes = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10])
        try bytes.write(to: url)
        #expect(try ValueParser.parse(url.path, for: cover, isFilePath: true) == .data(bytes))
        // Through a symbolic link too.
        let link = url.deletingLastPathComponent().appendingPathComponent("link.bin")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: url)
        #expect(try ValueParser.parse(link.path, for: cover, isFilePath: true) == .data(bytes))
    }
}
