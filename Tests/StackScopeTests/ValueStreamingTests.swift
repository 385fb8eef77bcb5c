import CoreStack
import Foundation
import StackScope
import Testing

/// `stackscope value` reading a value a range at a time: an external data file with its path,
/// a missing file as a one-line error, and a 100 MB value streamed by `--raw` and `--as hex`
/// with the real binary, its peak memory measured by wait4.
@Suite("stackscope value streams", .serialized)
struct ValueStreamingTests {
    func write(_ url: URL, _ id: String, _ attribute: String, _ mode: ValueOutputMode, raw: Bool = false) throws -> String {
        var out = Data()
        try ValueCommand.write(storePath: url.path, modelPath: nil, entity: "Photo", id: id, attribute: attribute, mode: mode, raw: raw) {
            out.append($0)
        }
        return String(decoding: out, as: UTF8.self)
    }

    @Test("an external data file is decoded like an inline value and its path ends the tree; --raw gives its bytes; a missing file names its path")
    func externalFile() throws {
        let url = try OtherTablesStore.make()
        let path = url.deletingLastPathComponent().appendingPathComponent(".Photos_SUPPORT/_EXTERNAL_DATA/\(OtherTablesStore.present)").path
        let tree = try write(url, "1", "image", .tree)
        #expect(tree.hasPrefix("plist dict · 2 keys\n"))
        #expect(tree.contains("teal"))
        #expect(tree.hasSuffix("stored in \(path)\n"))
        let raw = try write(url, "1", "image", .tree, raw: true)
        #expect(Data(raw.utf8) == (try Data(contentsOf: URL(fileURLWithPath: path))) || raw.hasPrefix("bplist00"))
        #expect(try write(url, "2", "image", .hex) == InspectedValueText.hexDump(Data([0xDE, 0xAD, 0xBE, 0xEF]))[0] + "\n")
        #expect(try write(url, "2", "image", .hex).hasPrefix("00000000  de ad be ef "))
        do {
            _ = try write(url, "3", "image", .tree)
            Issue.record("a missing file was read")
        } catch let StackScopeError.invalidOption(name, reason) {
            #expect(name == "--attribute")
            #expect(reason.contains(".Photos_SUPPORT/_EXTERNAL_DATA/\(OtherTablesStore.missing)"))
            #expect(reason.hasSuffix("the file is missing"))
        }
    }

    @Test("a 100 MB value: --raw streams every byte and --as hex every row, each with a peak memory far below the value",
          .enabled(if: StackScopeBinary.url != nil))
    func largeValue() throws {
        let url = try OtherTablesStore.make()
        try OtherTablesStore.addLargeValues(to: url)
        let binary = try #require(StackScopeBinary.url).path
        // --raw: the bytes, checked row by row as they come.
        var received = 0
        var wrong = 0
        var pending = Data()
        let raw = try ResidentMemory.runMeasured(binary, ["value", url.path, "--entity", "Photo", "--id", "2", "--attribute", "thumb", "--raw"]) { chunk in
            pending.append(chunk)
            let whole = pending.count - pending.count % 16
            // One row in 256 (each names its offset), and the very last one.
            for row in stride(from: 0, to: whole, by: 16) where (received + row) % 4096 == 0 || received + row == OtherTablesStore.largeSize - 16 {
                if Array(pending[pending.startIndex + row..<pending.startIndex + row + 16]) != OtherTablesStore.largeRow(at: received + row) { wrong += 1 }
            }
            received += whole
            pending = Data(pending.suffix(from: pending.startIndex + whole))
        }
        #expect(raw.status == 0)
        #expect(raw.peak > 0)
        #expect(received == OtherTablesStore.largeSize && pending.isEmpty && wrong == 0)
        #expect(raw.peak < 60 << 20, "--raw peaked at \(raw.peak >> 20) MiB for a 100 MiB value")
        // --as hex: 6,553,600 lines; the last one names the last offset.
        var lines = 0
        var tail = Data()
        let hex = try ResidentMemory.runMeasured(binary, ["value", url.path, "--entity", "Photo", "--id", "2", "--attribute", "thumb", "--as", "hex"]) { chunk in
            lines += chunk.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            tail = Data((tail + chunk).suffix(200))
        }
        #expect(hex.status == 0)
        #expect(lines == OtherTablesStore.largeSize / 16)
        #expect(String(decoding: tail, as: UTF8.self).hasSuffix("063ffff0  00 00 00 00 06 3f ff f0  73 74 61 63 6b 62 6c 62  |.....?..stackblb|\n"))
        #expect(hex.peak < 60 << 20, "--as hex peaked at \(hex.peak >> 20) MiB for a 100 MiB value")
    }
}
