import Foundation

/// What a lightweight migration does, per entity and property, as Core Data infers a mapping
/// model: matched by name or renaming identifier.
///
/// ```swift
/// let plan = try SQLiteMigration.plan(from: v3, to: v4)
/// print(plan.lines.joined(separator: "\n"))  // "Post.hide: added (default false)"
/// ```
public struct MigrationPlan: Sendable, Equatable {
    /// One change.
    public struct Step: Sendable, Equatable, CustomStringConvertible {
        /// What happens to the entity or property.
        public enum Kind: String, Sendable, Equatable {
            /// Added, removed, renamed (by renaming identifier), retyped, or kept as it is.
            case added, removed, renamed, retyped, kept
        }
        /// The entity's name.
        public var entity: String
        /// nil for the entity itself.
        public var property: String?
        /// What happens to it.
        public var kind: Kind
        /// Details: the old name, the old type, the default.
        public var detail: String?

        /// The step as one line: `Post.hide: added (default false)`.
        public var description: String {
            "\(entity)\(property.map { ".\($0)" } ?? ""): \(kind.rawValue)\(detail.map { " (\($0))" } ?? "")"
        }
    }

    /// Every change, destination entities in order, then removed source entities.
    public var steps: [Step]

    /// Only the steps that change something (not `kept`).
    public var changes: [Step] { steps.filter { $0.kind != .kept } }

    /// One line per change.
    public var lines: [String] { changes.map(\.description) }
}
