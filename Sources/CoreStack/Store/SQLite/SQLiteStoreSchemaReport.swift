import Foundation

/// What a store file holds that its model does not explain, and what CoreStack recognised as Core
/// Data's own: the answer to "what did this store hold that was not understood?".
///
/// Made by ``SQLiteStore/schemaReport(model:at:)`` (or ``SQLiteStore/schemaReport()`` on an open
/// store). A column of an entity table that the model does not place becomes a raw attribute of
/// the table's root entity when the store is read with ``SQLiteStore/readingModel(for:at:)``
/// (``AttributeDescription/rawColumn``); a table that is neither an entity table, a join table of
/// the model, nor one of Core Data's own tables is listed in ``unexplainedTables``.
///
/// ```swift
/// let report = try SQLiteStore.schemaReport(model: model, at: url)
/// report.summary  // "2 columns read raw (ZASSET.ZFOO, ZASSET.ZBAR); 1 table outside the model (NOTES)"
/// ```
public struct SQLiteStoreSchemaReport: Sendable, Equatable {
    /// Columns of entity tables that the model does not place, as `TABLE.COLUMN`: read as raw
    /// attributes by a model from ``SQLiteStore/readingModel(for:at:)``.
    public var rawColumns: [String]
    /// Tables that are neither the model's entity or join tables nor Core Data's own, sorted.
    public var unexplainedTables: [String]
    /// Core Data's own tables found in the file (bookkeeping, persistent history, CloudKit
    /// mirroring, R-tree indexes and their shadow tables), sorted: recognised and not read as entities.
    public var coreDataTables: [String]
    /// Entities of the model the store does not hold (not in its `Z_PRIMARYKEY`, or without their
    /// table: a store of one configuration of a larger model), left out of the reading model.
    public var entitiesNotInStore: [String]
    /// Columns the model's attributes need that the store lacks, as `TABLE.COLUMN`: those
    /// attributes are left out of the reading model.
    public var missingColumns: [String]

    /// A report with these lists.
    ///
    /// ```swift
    /// let empty = SQLiteStoreSchemaReport(rawColumns: [], unexplainedTables: [], coreDataTables: ["Z_METADATA"])
    /// ```
    public init(
        rawColumns: [String], unexplainedTables: [String], coreDataTables: [String],
        entitiesNotInStore: [String] = [], missingColumns: [String] = []
    ) {
        self.entitiesNotInStore = entitiesNotInStore
        self.missingColumns = missingColumns
        self.rawColumns = rawColumns
        self.unexplainedTables = unexplainedTables
        self.coreDataTables = coreDataTables
    }

    /// Whether the model explains everything in the file.
    ///
    /// ```swift
    /// if !report.isComplete { print(report.summary ?? "") }
    /// ```
    public var isComplete: Bool {
        rawColumns.isEmpty && unexplainedTables.isEmpty && entitiesNotInStore.isEmpty
            && missingColumns.isEmpty
    }

    /// One line saying what was not understood, nil when everything was: `2 columns read raw
    /// (ZASSET.ZFOO, ZASSET.ZBAR); 1 table outside the model (NOTES)` (at most five names per list).
    ///
    /// ```swift
    /// print(report.summary ?? "everything understood")
    /// ```
    public var summary: String? {
        func list(_ items: [String]) -> String {
            items.prefix(5).joined(separator: ", ") + (items.count > 5 ? ", …" : "")
        }
        func plural(_ n: Int, _ word: String) -> String {
            n == 1 ? "1 \(word)" : word.hasSuffix("y") ? "\(n) \(word.dropLast())ies" : "\(n) \(word)s"
        }
        var parts: [String] = []
        if !rawColumns.isEmpty { parts.append("\(plural(rawColumns.count, "column")) read raw (\(list(rawColumns)))") }
        if !unexplainedTables.isEmpty { parts.append("\(plural(unexplainedTables.count, "table")) outside the model (\(list(unexplainedTables)))") }
        if !missingColumns.isEmpty {
            parts.append("\(plural(missingColumns.count, "attribute")) of the model without a column (\(list(missingColumns)))")
        }
        if !entitiesNotInStore.isEmpty {
            parts.append("\(plural(entitiesNotInStore.count, "entity")) of the model not in the store (\(list(entitiesNotInStore)))")
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }
}
