import Foundation

/// A compiled or cached model that cannot be read: what was wrong and where.
///
/// Thrown when decoding a store's `Z_MODELCACHE` or a compiled `.mom` file: data that is not
/// deflate or is truncated, bytes that are not a property list, a property list that is not an
/// `NSKeyedArchiver` archive of an `NSManagedObjectModel`, or an object graph with a missing or
/// mistyped field (``location`` names the object and key, e.g. `$objects[11].NSProperties`).
///
/// ```swift
/// do {
///     _ = try ManagedObjectModel(archivedModelCache: Data([1, 2, 3]))
/// } catch let error as ModelArchiveError {
///     print(error)  // Z_MODELCACHE, deflate stream: the data ends before …
/// }
/// ```
public struct ModelArchiveError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The data the error is about: a file path, or `Z_MODELCACHE` of a store.
    public var source: String
    /// Where in it: `deflate stream`, `property list`, or an object and key of the archive.
    public var location: String
    /// What is wrong.
    public var reason: String

    /// An error about `source` at `location`.
    public init(source: String, location: String, reason: String) {
        self.source = source
        self.location = location
        self.reason = reason
    }

    /// `cannot read the model in <source>, <location>: <reason>`.
    public var description: String { "cannot read the model in \(source), \(location): \(reason)" }
}
