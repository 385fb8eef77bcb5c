import Foundation

/// One section of a ``FetchedResultsController``: its name, index title and objects.
///
/// ```swift
/// for section in controller.sections {
///     print(section.name, section.indexTitle, section.numberOfObjects)
/// }
/// ```
///
/// The controller hands out `FetchedResultsSectionInfo<Book>`; its event stream carries
/// `FetchedResultsSectionInfo<ManagedObjectID>`, which is `Sendable`.
public struct FetchedResultsSectionInfo<Object> {
    /// The section's name: the section key's value as text (`""` for nil).
    public var name: String
    /// The section's index title (by default the name's first character, uppercased).
    public var indexTitle: String
    /// The section's objects, in the controller's order.
    public var objects: [Object]

    /// How many objects the section holds.
    ///
    /// ```swift
    /// let rows = controller.sections[0].numberOfObjects
    /// ```
    public var numberOfObjects: Int { objects.count }

    /// A section with these values.
    ///
    /// ```swift
    /// let info = FetchedResultsSectionInfo(name: "A", indexTitle: "A", objects: [id])
    /// ```
    public init(name: String, indexTitle: String, objects: [Object]) {
        self.name = name
        self.indexTitle = indexTitle
        self.objects = objects
    }

    /// The same section holding other values, e.g. the objects' IDs.
    ///
    /// ```swift
    /// let ids = controller.sections[0].map(\.objectID)
    /// ```
    public func map<Other>(_ transform: (Object) throws -> Other) rethrows -> FetchedResultsSectionInfo<Other> {
        FetchedResultsSectionInfo<Other>(name: name, indexTitle: indexTitle, objects: try objects.map(transform))
    }
}

extension FetchedResultsSectionInfo: Sendable where Object: Sendable {}
extension FetchedResultsSectionInfo: Equatable where Object: Equatable {}
extension FetchedResultsSectionInfo: Hashable where Object: Hashable {}
