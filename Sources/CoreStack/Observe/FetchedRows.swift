import Foundation

/// The rows of a fetch, in fetch order, before they are filed in sections.
struct FetchedRows<T: ManagedObject> {
    var ids: [ManagedObjectID]
    /// Each row's raw section value (nil without sections).
    var sections: [AttributeValue]?
    var sort: SortKeyColumns
    /// The fetched objects, when the fetch made them.
    var objects: [T]?
}
