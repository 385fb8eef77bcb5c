import Foundation
import GRDB

extension SQLiteStore {
    /// `model` made fit to read the store at `url` even where it does not explain the file: each
    /// column of an entity table that the model does not place becomes a raw attribute of the
    /// table's root entity (``AttributeDescription/rawColumn``, named like the column, typed by its
    /// declared type). The model itself when it explains every column. Reads without changing the file.
    ///
    /// Such a model opens the store read-only only: a read-write open refuses raw attributes
    /// (``CoreStackError/modelMismatch(path:differences:)`` naming the columns).
    ///
    /// ```swift
    /// let stored = try SQLiteStore.storedModel(at: url)!
    /// let model = try SQLiteStore.readingModel(for: stored, at: url)
    /// let store = try SQLiteStore(url: url, model: model, readOnly: true)
    /// ```
    /// - Throws: ``CoreStackError/notAStore(path:reason:)``, ``CoreStackError/invalidModel(entity:property:reason:)``.
    public static func readingModel(for model: ManagedObjectModel, at url: URL) throws -> ManagedObjectModel {
        try withReadOnlyConnection(url: url) { db in
            let result = try SQLiteSchemaReconciliation.reconcile(model, db, path: url.path)
            if result.model !== model { try SQLiteExternalBinaryData.markColumnsWithEvidence(result.model, db) }
            return result.model
        }
    }

    /// What the store at `url` holds that `model` does not explain: columns read raw, tables not
    /// read, and the tables recognised as Core Data's own. Reads without changing the file.
    ///
    /// ```swift
    /// let report = try SQLiteStore.schemaReport(model: model, at: url)
    /// report.unexplainedTables  // ["NOTES"]
    /// ```
    /// - Throws: ``CoreStackError/notAStore(path:reason:)``.
    public static func schemaReport(model: ManagedObjectModel, at url: URL) throws -> SQLiteStoreSchemaReport {
        try withReadOnlyConnection(url: url) { db in try SQLiteSchemaReconciliation.reconcile(model, db, path: url.path).report }
    }

    /// What this store's file holds that its model does not explain (raw attributes of the model
    /// included in ``SQLiteStoreSchemaReport/rawColumns``).
    ///
    /// ```swift
    /// if let line = try store.schemaReport().summary { print("not understood: \(line)") }
    /// ```
    /// - Throws: ``CoreStackError/storeClosed(_:)``, ``CoreStackError/sqlite(path:message:)``.
    public func schemaReport() throws -> SQLiteStoreSchemaReport {
        try read { db in try SQLiteSchemaReconciliation.reconcile(self.model, db, path: self.path).report }
    }
}
