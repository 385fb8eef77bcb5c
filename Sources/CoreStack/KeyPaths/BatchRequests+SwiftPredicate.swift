import Foundation

extension BatchDeleteRequest {
    /// Deletes the objects of `entityName` that match a Swift `#Predicate` (translated here).
    ///
    /// ```swift
    /// let request = try BatchDeleteRequest(entityName: "Chapter", predicate: #Predicate<Chapter> { $0.wordCount == 0 })
    /// ```
    public init<T: ManagedObject>(entityName: String, predicate: Foundation.Predicate<T>) throws {
        self.init(entityName: entityName, predicate: try Predicate(predicate))
    }
}

extension BatchUpdateRequest {
    /// Sets `propertiesToUpdate` on the objects of `entityName` that match a Swift `#Predicate`.
    ///
    /// ```swift
    /// let request = try BatchUpdateRequest(entityName: "Book", predicate: #Predicate<Book> { $0.pages > 1000 },
    ///                                      propertiesToUpdate: ["inPrint": .bool(false)])
    /// ```
    public init<T: ManagedObject>(entityName: String, predicate: Foundation.Predicate<T>, propertiesToUpdate: [String: AttributeValue] = [:]) throws {
        self.init(entityName: entityName, predicate: try Predicate(predicate), propertiesToUpdate: propertiesToUpdate)
    }
}
