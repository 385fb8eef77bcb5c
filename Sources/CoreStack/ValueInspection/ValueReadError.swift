/// Why the bytes of a stored value could not be read: which value, where, and why (a missing
/// external data file, a row gone, SQLite refusing the blob).
///
/// ```swift
/// let error = ValueReadError(what: "external data of Photo.image", path: "/data/.Photos_SUPPORT/_EXTERNAL_DATA/6B1C…", reason: "the file is missing")
/// error.description  // "cannot read external data of Photo.image (/data/.Photos_SUPPORT/_EXTERNAL_DATA/6B1C…): the file is missing"
/// ```
public struct ValueReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The value (`external data of Photo.image`, `ZPHOTO.ZIMAGE of row 12`).
    public var what: String
    /// The file it is in.
    public var path: String
    /// What went wrong.
    public var reason: String

    /// Creates an error.
    public init(what: String, path: String, reason: String) {
        self.what = what
        self.path = path
        self.reason = reason
    }

    /// `cannot read WHAT (PATH): REASON`.
    public var description: String { "cannot read \(what) (\(path)): \(reason)" }
}
