import Foundation

/// Text in a blob: UTF-16 with a byte order mark, or UTF-8 (with or without one) with no control
/// characters but tab, line feed, carriage return and form feed.
///
/// ```swift
/// TextDetector.text(in: Data("héllo".utf8), limits: ValueInspectionLimits())?.encoding  // "UTF-8"
/// ```
enum TextDetector {
    /// The text and its encoding's name, or nil when `data` is not text.
    static func text(in data: Data, limits: ValueInspectionLimits) -> (string: String, encoding: String)? {
        guard data.count <= limits.maximumDecodedInput else { return nil }
        if data.starts(with: [0xFE, 0xFF]) || data.starts(with: [0xFF, 0xFE]) {
            guard data.count % 2 == 0 else { return nil }
            let big = data.first == 0xFE
            guard let s = String(data: data.dropFirst(2), encoding: big ? .utf16BigEndian : .utf16LittleEndian), printable(s) else { return nil }
            return (s, big ? "UTF-16BE" : "UTF-16LE")
        }
        let body = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
        guard let s = String(validating: body, as: UTF8.self), printable(s) else { return nil }
        return (s, "UTF-8")
    }

    /// No control characters but `\t`, `\n`, `\r`, form feed; no NUL.
    static func printable(_ s: String) -> Bool {
        s.unicodeScalars.allSatisfy { u in
            switch u.value {
            case 0x09, 0x0A, 0x0C, 0x0D: true
            case 0x00..<0x20, 0x7F: false
            default: true
            }
        }
    }
}
