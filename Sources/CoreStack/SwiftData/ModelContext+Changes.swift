import Foundation

extension ModelContext {
    /// Inserts a new model of a class of the schema; it is saved with the next ``save()``.
    ///
    /// ```swift
    /// let book = try context.insert(Book.self)
    /// book.title = "Dune"
    /// ```
    /// - Throws: ``CoreStackError/unknownEntity(_:)`` for a class the schema does not have.
    @discardableResult
    public func insert<T: PersistentModel>(_ type: T.Type) throws -> T {
        try run { try managedObjectContext.insert(type) }
    }

    /// Deletes a model (its relationships' delete rules apply); it leaves the store at the next save.
    ///
    /// ```swift
    /// try context.delete(book)
    /// ```
    public func delete<T: PersistentModel>(_ model: T) throws {
        try run { try managedObjectContext.delete(model) }
    }

    /// Deletes every model of a class that matches `predicate` (every one without), at the next
    /// save, as SwiftData does; the delete rules apply. `includeSubclasses`: models of sub-entities too.
    ///
    /// ```swift
    /// try context.delete(model: Book.self, where: #Predicate { $0.pages < 10 })
    /// try context.save()
    /// ```
    public func delete<T: PersistentModel>(
        model: T.Type, where predicate: Foundation.Predicate<T>? = nil, includeSubclasses: Bool = true
    ) throws {
        var request = FetchRequest<T>()
        if let predicate { try request.setPredicate(predicate) }
        request.includesSubentities = includeSubclasses
        try run {
            for object in try managedObjectContext.fetch(request) { try managedObjectContext.delete(object) }
        }
    }

    /// Whether there are inserted, changed or deleted models not saved yet.
    public var hasChanges: Bool { run { managedObjectContext.hasChanges } }

    /// The models inserted and not saved.
    public var insertedModelsArray: [any PersistentModel] { run { managedObjectContext.inserted.compactMap { $0 as? any PersistentModel } } }
    /// The models changed and not saved.
    public var changedModelsArray: [any PersistentModel] { run { managedObjectContext.updated.compactMap { $0 as? any PersistentModel } } }
    /// The models deleted and not saved.
    public var deletedModelsArray: [any PersistentModel] { run { managedObjectContext.deleted.compactMap { $0 as? any PersistentModel } } }

    /// Writes the inserts, changes and deletes to the store (nothing when there are none).
    ///
    /// ```swift
    /// if context.hasChanges { try context.save() }
    /// ```
    /// - Throws: what ``ManagedObjectContext/save()`` throws (validation, a store opened with
    ///   `allowsSave: false`, merge conflicts); the changes stay in the context.
    public func save() throws {
        try run {
            guard managedObjectContext.hasChanges else { return }
            try managedObjectContext.save()
        }
    }

    /// Discards the changes not saved.
    ///
    /// ```swift
    /// context.rollback()
    /// ```
    public func rollback() {
        run { managedObjectContext.rollback() }
    }

    /// Announces the changes made so far (SwiftData's `processPendingChanges()`).
    public func processPendingChanges() {
        run { managedObjectContext.processPendingChanges() }
    }

    /// Runs `block` and saves what it changed, with the changes made before it; when `block`
    /// throws, every unsaved change of the context is rolled back and the error rethrown. A save
    /// that fails leaves the changes in the context and throws.
    ///
    /// ```swift
    /// try context.transaction {
    ///     let book = try context.insert(Book.self)
    ///     book.title = "Dune"
    /// }
    /// ```
    public func transaction(block: () throws -> Void) throws {
        try run {
            do {
                try block()
            } catch {
                managedObjectContext.rollback()
                throw error
            }
            if managedObjectContext.hasChanges { try managedObjectContext.save() }
        }
    }

    /// The model an identifier names: the one the context holds, or a fault that loads it on first
    /// use (SwiftData's `model(for:)`).
    ///
    /// ```swift
    /// let book = try context.model(for: id) as? Book
    /// ```
    /// - Throws: ``CoreStackError/objectNotFound(_:)`` for an identifier of another store.
    public func model(for identifier: PersistentIdentifier) throws -> any PersistentModel {
        try run {
            let object = try managedObjectContext.object(with: identifier.objectID)
            guard let model = object as? any PersistentModel else {
                throw SwiftDataError.modelNotInSchema("\(type(of: object)) (entity \(identifier.entityName))")
            }
            return model
        }
    }

    /// The model the context already holds for an identifier, if it is a `T`.
    ///
    /// ```swift
    /// let book: Book? = context.registeredModel(for: id)
    /// ```
    public func registeredModel<T: PersistentModel>(for identifier: PersistentIdentifier) -> T? {
        run { managedObjectContext.registeredObject(for: identifier.objectID) as? T }
    }
}
