/// What a binary value was found to hold, by its first bytes and a trial decode.
///
/// ```swift
/// ValueInspector.inspect(Data("{\"a\": 1}".utf8)).format  // .json
/// ```
public indirect enum ValueFormat: Sendable, Equatable {
    /// No bytes.
    case empty
    /// An `NSKeyedArchiver` archive (binary or XML property list with `$archiver`).
    case keyedArchive
    /// A property list; `binary` false for XML.
    case propertyList(binary: Bool)
    /// A JSON object or array.
    case json
    /// Text in the encoding named (`UTF-8`, `UTF-16BE`, `UTF-16LE`).
    case text(encoding: String)
    /// Exactly 16 bytes that are not text: a UUID.
    case uuid
    /// A compressed stream (`zlib`, `gzip`, `deflate`) and what it inflates to.
    case compressed(method: String, inner: ValueInspection)
    /// An image, found by its magic bytes.
    case image(InspectedImage)
    /// None of the above.
    case binary
}
