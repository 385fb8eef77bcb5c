import Foundation

/// How a fetch index element is indexed (Core Data's `NSFetchIndexElementType`).
///
/// ```swift
/// let element = FetchIndexDescription.Element(property: "latitude", collationType: .rTree)
/// ```
public enum FetchIndexElementType: Int, Sendable, Hashable {
    /// An ordinary (B-tree) index, the default.
    case binary = 0
    /// An R-tree index (Core Data keeps it in an SQLite R-tree virtual table, `Z_<ENTITY>_<INDEX>`).
    case rTree = 1
}
