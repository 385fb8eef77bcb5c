import Foundation

extension FetchRequestTemplate {
    /// The template's predicate, parsed from its format string (nil when it has none).
    ///
    /// ```swift
    /// let p = try model.fetchRequestTemplates["recent"]?.predicate()
    /// ```
    public func predicate() throws -> Predicate? {
        guard let format = predicateString, !format.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        return try Predicate(format: format)
    }
}

extension ManagedObjectModel {
    /// A fetch request made from a template of the model file, with its `$VARIABLES` substituted.
    ///
    /// ```swift
    /// let request: FetchRequest<Book> = try model.fetchRequest(fromTemplateNamed: "booksAfter", substitutionVariables: ["YEAR": 2000])
    /// ```
    public func fetchRequest<T: ManagedObject>(
        fromTemplateNamed name: String, substitutionVariables: [String: Any?] = [:]
    ) throws -> FetchRequest<T> {
        guard let template = fetchRequestTemplates[name] else {
            throw CoreStackError.invalidFetchRequest("the model has no fetch request template named \"\(name)\"")
        }
        var predicate = try template.predicate()
        if let p = predicate, !substitutionVariables.isEmpty {
            predicate = try p.withSubstitutionVariables(substitutionVariables)
        }
        var request = FetchRequest<T>(entityName: template.entityName, predicate: predicate)
        request.fetchLimit = template.fetchLimit ?? 0
        request.fetchBatchSize = template.fetchBatchSize ?? 0
        request.includesSubentities = template.includesSubentities
        request.returnsObjectsAsFaults = template.returnsObjectsAsFaults
        return request
    }
}
