import Foundation

/// A model change lightweight migration cannot infer, or a migration that failed: the entity, the
/// property and why. The store is left untouched.
///
/// ```swift
/// do {
///     try SQLiteMigration.migrateStore(at: url, from: v1, to: v2)
/// } catch let error as MigrationError {
///     print(error)  // cannot migrate Post.date: Date cannot become String
/// }
/// ```
public struct MigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The destination entity (or the store path for a failure of the file).
    public var entity: String
    /// The property, when the problem is one property.
    public var property: String?
    /// Why.
    public var reason: String

    /// An error about `entity` (and `property`), with the reason.
    public init(entity: String, property: String? = nil, reason: String) {
        self.entity = entity
        self.property = property
        self.reason = reason
    }

    /// `cannot migrate Entity.property: reason`.
    public var description: String {
        "cannot migrate \(entity)\(property.map { ".\($0)" } ?? ""): \(reason)"
    }
}
