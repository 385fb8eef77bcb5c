import CoreStack
import Foundation

/// `corestack-fuzz values [COUNT] [SEED]`: mutations of values made by Foundation's encoders
/// (keyed archives, property lists, JSON) and of image and compressed-data headers, each given to
/// `ValueInspector.inspect`, whose tree is then walked and printed in one line. A crash or a hang
/// stops the run (the input is printed first with `CORESTACK_FUZZ_TRACE=1`).
///
/// ```sh
/// corestack-fuzz values 20000 1
/// ```
enum ValueFuzz {
    static func seeds() -> [Data] {
        var out: [Data] = []
        let ring = NSMutableDictionary(dictionary: ["name": "a"])
        let objects: [Any] = [
            NSArray(array: ["a", 1, 2.5, true, NSNull(), NSDate(timeIntervalSinceReferenceDate: 7)]),
            NSDictionary(dictionary: ["k": NSArray(array: [ring, ring]), "d": NSData(data: Data([1, 2, 3]))]),
            NSOrderedSet(array: ["x", "y"]), NSSet(array: [1, 2]),
            NSValue(range: NSRange(location: 3, length: 4)), NSLocale(localeIdentifier: "de_CH"),
            NSAttributedString(string: "attributed", attributes: [NSAttributedString.Key("k"): "v"]),
            NSIndexSet(indexesIn: NSRange(location: 2, length: 5)),
        ]
        for o in objects {
            if let d = try? NSKeyedArchiver.archivedData(withRootObject: o, requiringSecureCoding: false) { out.append(d) }
        }
        let plist: [String: Any] = ["a": [1, 2, ["b": Data([9])]], "c": "text", "d": Date(timeIntervalSinceReferenceDate: 1)]
        for format in [PropertyListSerialization.PropertyListFormat.binary, .xml] {
            if let d = try? PropertyListSerialization.data(fromPropertyList: plist, format: format, options: 0) { out.append(d) }
        }
        if let d = try? JSONSerialization.data(withJSONObject: ["a": [1, 2.5, true, NSNull()], "b": ["c": "d"]]) { out.append(d) }
        out.append(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 1, 0, 0, 0, 0, 200, 8, 2, 0, 0, 0]))
        out.append(Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0, 0xFF, 0xC0, 0, 11, 8, 0, 90, 0, 120, 1, 1, 0x11, 0, 0xFF, 0xD9]))
        out.append(Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8X\u{10}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{9}\u{0}\u{0}\u{9}\u{0}\u{0}".utf8))
        out.append(Data([0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 1, 0, 0, 1, 3, 0, 1, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0]))
        // zlib and gzip streams of "hello hello hello" (stored blocks, written by hand).
        let text = Array("hello hello hello".utf8)
        let stored = [UInt8(1), UInt8(text.count), 0, ~UInt8(text.count), 0xFF] + text
        out.append(Data([0x78, 0x01] + stored + [0, 0, 0, 0]))
        out.append(Data([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3] + stored + [0, 0, 0, 0, UInt8(text.count), 0, 0, 0]))
        return out
    }

    static func run(count: Int, seed: UInt64, trace: Bool) {
        var rng = SplitMix64(state: seed)
        let seeds = seeds()
        var decoded = 0, failed = 0
        for n in 0..<count {
            var bytes = [UInt8](seeds[rng.below(seeds.count)])
            mutate(&bytes, &rng)
            let data = Data(bytes)
            if trace { FileHandle.standardError.write(Data("\(n)\t\(data.base64EncodedString())\n".utf8)) }
            let inspection = ValueInspector.inspect(data)
            _ = inspection.summary
            if let value = inspection.value { _ = walk(value) }
            if inspection.failure == nil { decoded += 1 } else { failed += 1 }
        }
        print("fuzzed \(count) values (seed \(seed)): \(decoded) decoded, \(failed) refused with 'cannot decode', 0 crashes")
    }

    /// One to six mutations: a byte replaced or flipped, a run removed, copied elsewhere or cut
    /// off, an integer that lies (0xFF… over a count or an offset).
    static func mutate(_ bytes: inout [UInt8], _ rng: inout SplitMix64) {
        for _ in 0..<(1 + rng.below(6)) {
            guard !bytes.isEmpty else { break }
            let at = rng.below(bytes.count)
            switch rng.below(6) {
            case 0: bytes[at] = UInt8(truncatingIfNeeded: rng.next())
            case 1: bytes[at] ^= UInt8(1 << rng.below(8))
            case 2: bytes.removeSubrange(at..<min(bytes.count, at + 1 + rng.below(16)))
            case 3: bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + 1 + rng.below(32))], at: rng.below(bytes.count))
            case 4: bytes = Array(bytes.prefix(at))
            default:
                for i in at..<min(bytes.count, at + 1 + rng.below(8)) { bytes[i] = 0xFF }
            }
        }
    }

    /// Visits every node (iteratively), returning how many.
    static func walk(_ root: InspectedValue) -> Int {
        var stack = [root]
        var n = 0
        while let node = stack.popLast() {
            n += 1
            switch node {
            case let .array(_, items): stack += items
            case let .dictionary(_, entries): stack += entries.flatMap { [$0.key, $0.value] }
            case let .object(o): stack += o.fields.map(\.value)
            default: break
            }
        }
        return n
    }
}
