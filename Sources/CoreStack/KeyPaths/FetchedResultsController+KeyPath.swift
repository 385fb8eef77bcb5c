import Foundation

extension FetchedResultsController {
    /// A controller whose sections are named by the value at a key path: a model property's key
    /// path becomes ``sectionNameKeyPath`` (read from rows, as a string key path is); any other
    /// key path (a computed property such as `\Book.initial`) names sections through a closure,
    /// evaluated on each object (see ``init(fetchRequest:context:cacheName:sectionName:)``).
    ///
    /// ```swift
    /// let byInitial = FetchedResultsController(fetchRequest: byTitle, context: context, sectionNameKeyPath: \Book.initial)
    /// let byInPrint = FetchedResultsController(fetchRequest: byTitle, context: context, sectionNameKeyPath: \Book.inPrint)
    /// ```
    public convenience init<Value>(
        fetchRequest: FetchRequest<T>, context: ManagedObjectContext, sectionNameKeyPath keyPath: KeyPath<T, Value>, cacheName: String? = nil
    ) {
        if let name = try? PropertyKeyPath.name(of: keyPath) {
            self.init(fetchRequest: fetchRequest, context: context, sectionNameKeyPath: name, cacheName: cacheName)
        } else {
            self.init(fetchRequest: fetchRequest, context: context, cacheName: cacheName) { object in
                PredicateTranslator.unwrapped(object[keyPath: keyPath]).map { "\($0)" } ?? ""
            }
        }
    }
}
