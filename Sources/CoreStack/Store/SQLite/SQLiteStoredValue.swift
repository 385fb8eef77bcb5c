import Foundation

/// Where a stored value's bytes are, and a way to read them a range at a time (``ValueBytes``):
/// a column of a row of the store's file (read through SQLite's blob I/O), or, for an
/// *Allows External Storage* attribute, a file of the store's `_EXTERNAL_DATA` folder.
///
/// ```swift
/// if let value = try store.storedValue(of: photoID, attribute: "image") {
///     print(value.location)             // externalFile(/data/.Photos_SUPPORT/_EXTERNAL_DATA/6B1C…)
///     let head = try value.bytes.prefix(upTo: 64)
/// }
/// ```
public struct SQLiteStoredValue: Sendable {
    /// Where the bytes are.
    public enum Location: Sendable, Hashable, CustomStringConvertible {
        /// A column of a row of the store's file (`rowID` is the row's `rowid`).
        case column(table: String, column: String, rowID: Int64)
        /// A file of the store's external binary data folder.
        case externalFile(URL)

        /// `ZPHOTO.ZIMAGE, row 3` or the file's path.
        public var description: String {
            switch self {
            case let .column(table, column, rowID): "\(table).\(column), row \(rowID)"
            case let .externalFile(url): url.path
            }
        }
    }

    /// Where the bytes are.
    public let location: Location
    /// The bytes, read on demand.
    public let bytes: any ValueBytes

    /// A value at `location` read through `bytes`.
    ///
    /// ```swift
    /// let value = SQLiteStoredValue(location: .externalFile(url), bytes: try ValueFile(url: url))
    /// ```
    public init(location: Location, bytes: any ValueBytes) {
        self.location = location
        self.bytes = bytes
    }

    /// The value's size in bytes.
    public var count: Int { bytes.count }
}
