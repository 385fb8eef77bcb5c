import Foundation

/// What the SwiftData-shaped API refuses (SwiftData's `SwiftDataError`), each with what and where.
///
/// ```swift
/// do { _ = try ModelContainer(for: Book.self, configurations: a, b) }
/// catch let error as SwiftDataError { print(error) }   // "… one store per container …"
/// ```
public enum SwiftDataError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A configuration CoreStack cannot open (why).
    case unsupportedConfiguration(String)
    /// The schema is not one the migration plan lists (the version).
    case schemaNotInMigrationPlan(version: String)
    /// A model class that is not in the container's schema (the class).
    case modelNotInSchema(String)
    /// The container was opened with `allowsSave: false` (the store's path).
    case saveNotAllowed(path: String)

    /// A sentence saying what went wrong.
    public var description: String {
        switch self {
        case let .unsupportedConfiguration(why): "unsupported model configuration: \(why)"
        case let .schemaNotInMigrationPlan(version):
            "the container's schema (version \(version)) is not among the migration plan's schemas"
        case let .modelNotInSchema(type): "\(type) is not a model of the container's schema"
        case let .saveNotAllowed(path): "cannot save: the store \(path) was opened with allowsSave: false"
        }
    }
}
