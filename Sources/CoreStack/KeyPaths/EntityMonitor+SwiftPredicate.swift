import Foundation

extension EntityMonitor {
    /// A monitor that reports only objects matching a Swift `#Predicate` (translated once, here;
    /// evaluated in memory on each changed object, as a string filter is).
    ///
    /// ```swift
    /// let monitor = try EntityMonitor<Book>(context: context, frequency: .onChange, filter: #Predicate { $0.pages > 300 })
    /// ```
    public convenience init(
        context: ManagedObjectContext, entityName: String? = nil, frequency: Frequency = .onSave, filter: Foundation.Predicate<T>
    ) throws {
        try self.init(context: context, entityName: entityName, frequency: frequency, filterPredicate: try Predicate(filter))
    }
}
