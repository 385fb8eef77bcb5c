/// Why a value that looked like a known format could not be decoded: what was being read, where
/// in it, and what was wrong.
///
/// ```swift
/// let error = ValueInspectionError(what: "keyed archive", location: "$objects[3].NS.objects[0]",
///                                  reason: "refers to object 99 of 5")
/// error.description  // "cannot decode: keyed archive, $objects[3].NS.objects[0]: refers to object 99 of 5"
/// ```
public struct ValueInspectionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The format being decoded (`keyed archive`, `property list`, `JSON`, `zlib data`…).
    public var what: String
    /// Where in it (`$objects[3].NS.objects[0]`, `byte 120`), empty when the value as a whole.
    public var location: String
    /// What was wrong.
    public var reason: String

    /// Creates an error.
    public init(what: String, location: String, reason: String) {
        self.what = what
        self.location = location
        self.reason = reason
    }

    /// `cannot decode: WHAT, WHERE: REASON`.
    public var description: String {
        location.isEmpty ? "cannot decode: \(what): \(reason)" : "cannot decode: \(what), \(location): \(reason)"
    }
}
