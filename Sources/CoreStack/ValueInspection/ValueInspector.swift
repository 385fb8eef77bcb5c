import Foundation

/// Says what the bytes of a Binary or Transformable attribute hold and decodes them into a tree:
/// `NSKeyedArchiver` archives, property lists (binary and XML), JSON, text (UTF-8, UTF-16 with a
/// byte order mark), a 16-byte UUID, compressed data (zlib, gzip, raw deflate) opened to what it
/// holds, and images found by their magic bytes (format and size from the header, not decoded).
///
/// Untrusted bytes are the rule: nothing is instantiated, every bound of
/// ``ValueInspectionLimits`` holds, and bytes that look like a format but do not decode give a
/// ``ValueInspection/failure`` ("cannot decode: …" with what and where), never a crash.
///
/// ```swift
/// let data = try JSONSerialization.data(withJSONObject: ["a", "b"])
/// ValueInspector.inspect(data).summary  // "JSON array · 2"
/// ValueInspector.inspect(Data([0xFF, 0xD8, 0xFF, 0xD9])).summary  // "JPEG"
/// ```
public enum ValueInspector {
    /// What `data` holds, decoded.
    public static func inspect(_ data: Data, limits: ValueInspectionLimits = ValueInspectionLimits()) -> ValueInspection {
        inspect(data, limits: limits, layer: 0)
    }

    /// The one-line summary of `data`, decoding it only when it is at most `limit` bytes (and
    /// inflating compressed data to at most four times that); a larger value gives its size and
    /// what its first bytes say (an image's header is read whole).
    ///
    /// ```swift
    /// ValueInspector.summary(of: bigArchive, decodingAtMost: 1 << 20)  // "10485760 bytes · bplist"
    /// ```
    public static func summary(of data: Data, decodingAtMost limit: Int) -> String {
        guard data.count > limit else {
            var limits = ValueInspectionLimits()
            limits.maximumDecodedInput = min(limits.maximumDecodedInput, limit)
            let (inflated, overflow) = limit.multipliedReportingOverflow(by: 4)
            limits.maximumInflatedSize = min(limits.maximumInflatedSize, overflow ? Int.max : inflated)
            return inspect(data, limits: limits).summary
        }
        if let image = ImageHeaderReader.image(in: data) { return image.summary }
        let head = data.prefix(8).map { String(format: "%02X", $0) }.joined(separator: " ")
        return ValueInspection.byteCount(data.count) + " · " + (sniff(data) ?? head + " …")
    }

    /// Only the format, from the first bytes, with nothing decoded (for values too large to
    /// decode for a table cell): `bplist`, `XML`, an image's format, `gzip`… or nil.
    ///
    /// ```swift
    /// ValueInspector.sniff(Data("bplist00".utf8))  // "bplist"
    /// ```
    public static func sniff(_ data: Data) -> String? {
        if data.starts(with: Array("bplist00".utf8)) { return "bplist" }
        if let image = ImageHeaderReader.image(in: data.prefix(64)) { return image.format.rawValue }
        if data.starts(with: [0x1F, 0x8B]) { return "gzip" }
        if isZlibHeader(data) { return "zlib" }
        if looksLikeXML(data) { return "XML" }
        return nil
    }

    static func inspect(_ data: Data, limits: ValueInspectionLimits, layer: Int) -> ValueInspection {
        let head = Array(data.prefix(16))
        func result(_ format: ValueFormat, _ value: InspectedValue? = nil, _ failure: ValueInspectionError? = nil) -> ValueInspection {
            ValueInspection(byteCount: data.count, format: format, value: value, failure: failure, head: head)
        }
        guard !data.isEmpty else { return result(.empty) }
        if let image = ImageHeaderReader.image(in: data) { return result(.image(image)) }

        let binaryPlist = data.starts(with: Array("bplist00".utf8))
        let xml = !binaryPlist && looksLikeXML(data)
        if binaryPlist || xml {
            guard data.count <= limits.maximumDecodedInput else {
                return result(.propertyList(binary: binaryPlist), nil, tooLarge("property list", data.count, limits))
            }
            if binaryPlist {
                // A keyed archive is read in place, an object at a time, as the tree reaches it.
                do {
                    if var tree = try KeyedArchiveTree(reader: BinaryPropertyListReader(data), limits: limits) {
                        do {
                            return result(.keyedArchive, try tree.root())
                        } catch {
                            return result(.keyedArchive, nil, error)
                        }
                    }
                } catch {
                    return result(.propertyList(binary: true), nil, error)
                }
            }
            if binaryPlist, let problem = PropertyListCheck.binaryProblem(in: data) {
                return result(.propertyList(binary: true), nil, problem)
            }
            if xml, let problem = PropertyListCheck.xmlProblem(in: data) { return result(.propertyList(binary: false), nil, problem) }
            if let top = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) {
                if KeyedArchiveTree.isArchive(top) {
                    do {
                        var tree = try KeyedArchiveTree(top: top, limits: limits)
                        return result(.keyedArchive, try tree.root())
                    } catch {
                        return result(.keyedArchive, nil, error)
                    }
                }
                var tree = PropertyListTree(limits: limits)
                return result(.propertyList(binary: binaryPlist), tree.value(top, depth: 0))
            }
            if binaryPlist {
                return result(.propertyList(binary: true), nil, ValueInspectionError(
                    what: "property list", location: "", reason: "Foundation rejects the binary property list (damaged or truncated)"))
            }
            // An XML document that is not a property list: text below.
        }

        if layer < limits.maximumCompressionLayers {
            if data.starts(with: [0x1F, 0x8B]) { return inflated(data, "gzip", 31, limits, layer) }
            if isZlibHeader(data) {
                // Two bytes of text can pass for a zlib header ("x^"): text that does not inflate is text.
                let inner = inflated(data, "zlib", 15, limits, layer)
                if inner.failure == nil || TextDetector.text(in: data, limits: limits) == nil { return inner }
            }
        }

        if let text = TextDetector.text(in: data, limits: limits) {
            if text.encoding == "UTF-8", let json = json(data, text.string, limits) { return result(.json, json) }
            return result(.text(encoding: text.encoding), .string(text.string))
        }
        if data.count == 16 { return result(.uuid, .uuid(KeyedArchiveTree.uuid(data))) }
        if layer < limits.maximumCompressionLayers, data.count <= limits.maximumDecodedInput,
            let raw = try? RawDeflate.inflate(data, source: "value", limit: limits.maximumInflatedSize, windowBits: -15)
        {
            let inner = inspect(raw, limits: limits, layer: layer + 1)
            if inner.failure == nil, inner.format != .binary, inner.format != .empty {
                return result(.compressed(method: "deflate", inner: inner))
            }
        }
        return result(.binary)
    }

    /// A zlib stream's two header bytes: deflate, a window of at most 32 KiB, a valid check.
    static func isZlibHeader(_ data: Data) -> Bool {
        guard data.count >= 2 else { return false }
        let cmf = Int(data[data.startIndex]), flg = Int(data[data.startIndex + 1])
        return cmf & 0x0F == 8 && cmf >> 4 <= 7 && (cmf * 256 + flg) % 31 == 0 && flg & 0x20 == 0
    }

    /// `<?xml`, `<!DOCTYPE plist` or `<plist` after optional white space or a UTF-8 BOM.
    static func looksLikeXML(_ data: Data) -> Bool {
        var start = data.prefix(64)
        if start.starts(with: [0xEF, 0xBB, 0xBF]) { start = start.dropFirst(3) }
        let text = String(decoding: start, as: UTF8.self).drop { $0.isWhitespace }
        return text.hasPrefix("<?xml") || text.hasPrefix("<!DOCTYPE plist") || text.hasPrefix("<plist")
    }

    private static func tooLarge(_ what: String, _ size: Int, _ limits: ValueInspectionLimits) -> ValueInspectionError {
        ValueInspectionError(what: what, location: "", reason: "\(size) bytes, more than the \(limits.maximumDecodedInput) decoded")
    }

    /// The compressed value opened, and what it holds inspected.
    private static func inflated(_ data: Data, _ method: String, _ windowBits: Int32, _ limits: ValueInspectionLimits, _ layer: Int) -> ValueInspection {
        let head = Array(data.prefix(16))
        do {
            let raw = try RawDeflate.inflate(data, source: method, limit: limits.maximumInflatedSize, windowBits: windowBits)
            return ValueInspection(
                byteCount: data.count, format: .compressed(method: method, inner: inspect(raw, limits: limits, layer: layer + 1)), head: head)
        } catch let error as ModelArchiveError {
            return ValueInspection(
                byteCount: data.count, format: .binary,
                failure: ValueInspectionError(what: "\(method) data", location: error.location, reason: error.reason), head: head)
        } catch {
            return ValueInspection(
                byteCount: data.count, format: .binary,
                failure: ValueInspectionError(what: "\(method) data", location: "", reason: "\(error)"), head: head)
        }
    }

    /// A JSON object or array (nil for other text, or JSON that does not parse).
    private static func json(_ data: Data, _ text: String, _ limits: ValueInspectionLimits) -> InspectedValue? {
        guard let first = text.first(where: { !$0.isWhitespace }), first == "{" || first == "[" else { return nil }
        guard let object = try? JSONSerialization.jsonObject(with: data, options: []) else { return nil }
        var tree = PropertyListTree(limits: limits)
        return tree.value(object, depth: 0)
    }
}
