import Foundation
import GRDB

extension SQLiteStore {
    /// The model a store written by Apple's Core Data (framework 637 and later) carries in
    /// `Z_MODELCACHE.Z_CONTENT`, decoded without a model file and without changing the file; nil
    /// when the store has no model cache (stores of early Core Data versions; CoreStack writes one in
    /// every store it creates or migrates).
    ///
    /// Binary attributes whose columns hold Core Data's external-storage values (`0x02` + UUID,
    /// `0x01` + bytes, sampled) are read and written as such even when the archive does not flag
    /// them (see ``SQLiteExternalBinaryData``).
    ///
    /// The model's ``ManagedObjectModel/origin`` is ``ModelOrigin/storeModelCache``; open the store
    /// with it like with any model:
    ///
    /// ```swift
    /// if let model = try SQLiteStore.storedModel(at: url) {
    ///     let store = try SQLiteStore(url: url, model: model, readOnly: true)
    /// }
    /// ```
    /// - Throws: ``CoreStackError/notAStore(path:reason:)`` for a file that is not a store;
    ///   ``ModelArchiveError`` for a cache that cannot be decoded (truncated, not deflate, not an
    ///   archived model), naming what and where; ``CoreStackError/invalidModel(entity:property:reason:)``.
    public static func storedModel(at url: URL) throws -> ManagedObjectModel? {
        guard let blob = try storedModelCache(at: url) else { return nil }
        let model = try ManagedObjectModel(archivedModelCache: blob, source: "\(url.path): Z_MODELCACHE")
        // Allows External Storage, when the archive does not say it: from the columns' marker bytes.
        try withReadOnlyConnection(url: url) { db in try SQLiteExternalBinaryData.markColumnsWithEvidence(model, db) }
        return model
    }

    /// The raw bytes of `Z_MODELCACHE.Z_CONTENT` (raw deflate), or nil when the store has none.
    public static func storedModelCache(at url: URL) throws -> Data? {
        _ = try inspect(url: url)  // a Core Data store, or a typed error
        return try withReadOnlyConnection(url: url) { db in
            guard try db.tableExists("Z_MODELCACHE"), try db.columns(in: "Z_MODELCACHE").contains(where: { $0.name == "Z_CONTENT" })
            else { return nil }
            guard let data = try Data.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1"), !data.isEmpty else {
                return nil
            }
            return data
        }
    }

    /// A model inferred from the store's tables, for a store that carries no model of its own (see
    /// ``storedModel(at:)``): entities and hierarchy from `Z_PRIMARYKEY`, attributes from columns,
    /// to-one relationships from foreign-key columns (with their indexes, companion columns and data
    /// as evidence), one-to-one pairs, inverse to-manys (marked
    /// ``RelationshipDescription/isInferredInverse``), many-to-many from join tables. Property names
    /// are the column names without `Z` (the case is lost), and the model's
    /// ``ManagedObjectModel/origin`` is ``ModelOrigin/inferredFromSchema``. Reads without changing
    /// the file.
    ///
    /// ```swift
    /// let model = try SQLiteStore.storedModel(at: url) ?? SQLiteStore.inferredModel(at: url)
    /// let store = try SQLiteStore(url: url, model: model, readOnly: true)
    /// ```
    /// Columns nothing explains (an order column without its foreign key, a column another program
    /// added) become raw attributes of their table's root entity (``AttributeDescription/rawColumn``,
    /// see ``readingModel(for:at:)``), so the model opens the store read-only whatever its tables
    /// hold; ``schemaReport(model:at:)`` lists them and the tables that were not understood.
    ///
    /// - Throws: ``CoreStackError/notAStore(path:reason:)``, ``CoreStackError/invalidModel(entity:property:reason:)``.
    public static func inferredModel(at url: URL) throws -> ManagedObjectModel {
        _ = try inspect(url: url)
        return try withReadOnlyConnection(url: url) { db in
            let inferred = try SQLiteSchemaInference.inferModel(db, path: url.path)
            return try SQLiteSchemaReconciliation.reconcile(inferred, db, path: url.path).model
        }
    }
}
