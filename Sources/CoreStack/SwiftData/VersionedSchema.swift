import Foundation

/// One version of an app's model classes (SwiftData's `VersionedSchema`): the classes, usually
/// nested in the version's namespace, and the version.
///
/// ```swift
/// enum LibraryV1: VersionedSchema {
///     static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
///     static var models: [any PersistentModel.Type] { [Book.self] }
///     final class Book: ManagedObject, DeclaredEntity { /* … */ }
/// }
/// let container = try ModelContainer(for: Schema(versionedSchema: LibraryV1.self), configurations: [config])
/// ```
public protocol VersionedSchema: SendableMetatype {
    /// The version.
    static var versionIdentifier: Schema.Version { get }
    /// The version's model classes.
    static var models: [any PersistentModel.Type] { get }
}
