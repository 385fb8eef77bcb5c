import CoreStack
import Foundation

/// `stackscope diff OLD NEW [--model M] [--key Entity=attribute …] [--entity E …] [--limit N] [--json]`:
/// what changed between two copies of a store, per entity (`StoreDiff`), as text or JSON.
///
/// Both stores are opened read-only as `info` opens them (the model given, else the demo model,
/// else the one each store carries, else one inferred from its tables). The exit status is 0
/// whether or not the stores differ; scripts read `hasChanges` in the JSON.
///
/// ```swift
/// let out = try DiffCommand.run(oldPath: "before.sqlite", newPath: "after.sqlite", modelPath: nil,
///                               keys: ["Author=name"], entities: [], limit: 20, json: false)
/// print(out.output, terminator: "")   // Book: 1 inserted, 1 deleted, 3 changed …
/// ```
public enum DiffCommand {
    /// What the command produced.
    public struct Result: Sendable, Equatable {
        /// Standard output: the text report or the JSON, ending with a newline.
        public var output: String
        /// One-line notes about the choice of models (for standard error), each naming its store.
        public var warnings: [String]
        /// The comparison itself.
        public var report: StoreDiffReport
    }

    /// Compares the store at `oldPath` with the one at `newPath`.
    ///
    /// ```swift
    /// let result = try DiffCommand.run(oldPath: "a.sqlite", newPath: "b.sqlite", modelPath: nil,
    ///                                  keys: [], entities: ["Book"], limit: nil, json: true)
    /// ```
    ///
    /// - Parameters:
    ///   - oldPath: the store before.
    ///   - newPath: the store after.
    ///   - modelPath: a model file for both stores; nil uses each store's own choice (as `info` makes it).
    ///   - keys: `Entity=attribute` mappings used to match objects when the stores differ.
    ///   - entities: the entities to compare; empty compares all.
    ///   - limit: inserted, deleted and changed objects listed per entity in the text report (JSON
    ///     lists all); nil lists all.
    ///   - json: the whole comparison as JSON instead of the text report.
    ///   - files: how store files are opened (the real file system by default).
    /// - Throws: the errors of ``StoreSession/open(storePath:modelPath:files:)`` for either store;
    ///   ``StackScopeError/invalidOption(name:reason:)`` for a malformed `--key` or `--limit`;
    ///   ``StackScopeError/unknownEntity(name:available:)`` for an entity neither model has;
    ///   `CoreStackError/unknownKey(entity:key:)` for a key attribute the entity lacks.
    public static func run(
        oldPath: String, newPath: String, modelPath: String?, keys: [String], entities: [String], limit: Int?,
        json: Bool, files: any StoreFileAccess = StoreFiles.standard
    ) throws -> Result {
        if let limit, limit < 0 {
            throw StackScopeError.invalidOption(name: "--limit", reason: "\(limit) is negative")
        }
        let stores = try DiffStores.open(
            oldPath: oldPath, newPath: newPath, modelPath: modelPath, keys: keys, entities: entities,
            changeLimit: json ? nil : limit, files: files)
        defer { stores.close() }
        let report = try stores.diff.run()
        let warnings = stores.warnings
        let output = json
            ? renderJSON(report, oldPath: oldPath, newPath: newPath) + "\n"
            : renderText(report, oldPath: oldPath, newPath: newPath)
        return Result(output: output, warnings: warnings, report: report)
    }

    // MARK: Text

    /// The report as text: a header, then per entity with changes its counts and objects
    /// (`~` changed with `attribute: old → new`, `+` inserted, `-` deleted; join-table links made `+` or removed `-`; `↕` ordered relationships whose members moved), then the entities
    /// unchanged and those not compared.
    ///
    /// ```swift
    /// print(DiffCommand.renderText(report, oldPath: "a.sqlite", newPath: "b.sqlite"), terminator: "")
    /// ```
    public static func renderText(_ report: StoreDiffReport, oldPath: String, newPath: String) -> String {
        let dates = dateFormatter()
        var lines: [String] = []
        lines.append("old: \(oldPath) (store \(report.oldStoreUUID)\(report.oldModelVersion.map { ", model \($0)" } ?? ""))")
        lines.append("new: \(newPath) (store \(report.newStoreUUID)\(report.newModelVersion.map { ", model \($0)" } ?? ""))")
        lines.append(report.matchedByPrimaryKey
            ? "objects matched by primary key (the same store)"
            : "different stores: objects matched by key attribute")
        var unchanged: [String] = []
        var unmatched: [String] = []
        for e in report.entities {
            if case let .unmatched(reason) = e.match, !e.hasChanges {
                unmatched.append("\(e.name) (\(reason); \(e.oldCount) → \(e.newCount) objects)")
                continue
            }
            guard e.hasChanges else {
                unchanged.append(e.name)
                continue
            }
            lines.append("")
            let via = report.matchedByPrimaryKey ? "" : ", matched by \(e.match)"
            let links = e.linkedCount + e.unlinkedCount > 0 ? ", \(e.linkedCount) linked, \(e.unlinkedCount) unlinked" : ""
            let reordered = e.reorderedCount > 0 ? ", \(e.reorderedCount) reordered" : ""
            lines.append(
                "\(e.name): \(e.insertedCount) inserted, \(e.deletedCount) deleted, \(e.changedCount) changed\(links)\(reordered)"
                    + " (\(e.oldCount) → \(e.newCount) objects\(via))")
            for note in e.notes { lines.append("  note: \(note)") }
            for c in e.changed {
                let pk = c.oldPrimaryKey == c.newPrimaryKey ? "" : " (Z_PK \(c.oldPrimaryKey) → \(c.newPrimaryKey))"
                lines.append("  ~ \(text(c.key, dates))\(pk)")
                for a in c.attributes {
                    lines.append("      \(a.name): \(text(a.old, dates)) → \(text(a.new, dates))")
                }
                for r in c.relationships {
                    lines.append("      \(r.name): \(reference(r.destinationEntity, r.old, dates)) → \(reference(r.destinationEntity, r.new, dates))")
                }
            }
            if e.changedCount > e.changed.count { lines.append("  … \(e.changedCount - e.changed.count) more changed") }
            for o in e.inserted { lines.append("  + \(text(o.key, dates))") }
            if e.insertedCount > e.inserted.count { lines.append("  … \(e.insertedCount - e.inserted.count) more inserted") }
            for o in e.deleted { lines.append("  - \(text(o.key, dates))") }
            if e.deletedCount > e.deleted.count { lines.append("  … \(e.deletedCount - e.deleted.count) more deleted") }
            for l in e.links {
                lines.append(
                    "  \(l.isLinked ? "+" : "-") \(text(l.source, dates)).\(l.relationship) \(l.isLinked ? "linked to" : "unlinked from")"
                        + " \(reference(l.destinationEntity, l.destination, dates))")
            }
            let moreLinks = e.linkedCount + e.unlinkedCount - e.links.count
            if moreLinks > 0 { lines.append("  … \(moreLinks) more links made or removed") }
            for c in e.reorders { lines.append("  ↕ " + orderText(c, dates)) }
            if e.reorderedCount > e.reorders.count { lines.append("  … \(e.reorderedCount - e.reorders.count) more reordered") }
        }
        lines.append("")
        if !report.hasChanges { lines.append("no differences in the objects compared") }
        if !unchanged.isEmpty { lines.append("unchanged: \(unchanged.joined(separator: ", "))") }
        for u in unmatched { lines.append("not compared: \(u)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// An order change in one line: the owner, the relationship, the members' counts and each
    /// move (`4.chapters reordered (3 → 3): Chapter 12 2 → 0, Chapter 9 0 → 1`), the first
    /// `maxMoves` of them.
    static func orderText(_ c: RelationshipOrderChange, _ dates: ISO8601DateFormatter, maxMoves: Int = 10) -> String {
        var moves = c.moves.prefix(maxMoves).map { "\(reference(c.destinationEntity, $0.destination, dates)) \($0.oldIndex) → \($0.newIndex)" }
        if c.moves.count > maxMoves { moves.append("… \(c.moves.count - maxMoves) more moves") }
        return "\(text(c.source, dates)).\(c.relationship) reordered (\(c.oldCount) → \(c.newCount)): " + moves.joined(separator: ", ")
    }

    /// A value for the text report: strings quoted, `nil` for null.
    static func text(_ v: AttributeValue, _ dates: ISO8601DateFormatter) -> String {
        switch v {
        case .null: "nil"
        case let .string(s): JSONValue.string(s).rendered()
        case let .date(d): dates.string(from: d)
        default: v.description
        }
    }

    /// A to-one destination for the text report: `Publisher 3`, `Author "Herbert"`, or `nil`.
    static func reference(_ entity: String, _ key: AttributeValue, _ dates: ISO8601DateFormatter) -> String {
        key.isNull ? "nil" : "\(entity) \(text(key, dates))"
    }

    static func dateFormatter() -> ISO8601DateFormatter {
        let dates = ISO8601DateFormatter()
        dates.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return dates
    }

    // MARK: JSON

    /// The whole report as JSON: `old`, `new`, `matchedByPrimaryKey`, `hasChanges`, and per entity
    /// its match, counts, notes and every inserted, deleted and changed object.
    ///
    /// ```swift
    /// let json = DiffCommand.renderJSON(report, oldPath: "a.sqlite", newPath: "b.sqlite")
    /// ```
    public static func renderJSON(_ report: StoreDiffReport, oldPath: String, newPath: String) -> String {
        let dates = dateFormatter()
        func value(_ v: AttributeValue) -> JSONValue { DumpCommand.json(v, dates: dates) }
        func side(_ path: String, _ uuid: String, _ version: String?) -> JSONValue {
            .object([("path", .string(path)), ("storeUUID", .string(uuid)), ("modelVersion", version.map(JSONValue.string) ?? .null)])
        }
        let entities: [JSONValue] = report.entities.map { e in
            let match: JSONValue = switch e.match {
            case .primaryKey: .object([("by", .string("primaryKey"))])
            case let .attribute(name, source): .object([("by", .string("attribute")), ("attribute", .string(name)), ("source", .string(source))])
            case let .unmatched(reason): .object([("by", .null), ("reason", .string(reason))])
            }
            let changed: [JSONValue] = e.changed.map { c in
                .object([
                    ("key", value(c.key)), ("oldPrimaryKey", .integer(c.oldPrimaryKey)), ("newPrimaryKey", .integer(c.newPrimaryKey)),
                    ("attributes", .array(c.attributes.map { a in
                        .object([("name", .string(a.name)), ("old", value(a.old)), ("new", value(a.new))])
                    })),
                    ("relationships", .array(c.relationships.map { r in
                        .object([
                            ("name", .string(r.name)), ("destination", .string(r.destinationEntity)),
                            ("old", value(r.old)), ("new", value(r.new)),
                        ])
                    })),
                ])
            }
            func refs(_ list: [ObjectReference]) -> JSONValue {
                .array(list.map { .object([("key", value($0.key)), ("primaryKey", .integer($0.primaryKey))]) })
            }
            return .object([
                ("entity", .string(e.name)), ("match", match),
                ("oldCount", .integer(Int64(e.oldCount))), ("newCount", .integer(Int64(e.newCount))),
                ("inserted", .integer(Int64(e.insertedCount))), ("deleted", .integer(Int64(e.deletedCount))),
                ("changed", .integer(Int64(e.changedCount))), ("unchanged", .integer(Int64(e.unchangedCount))),
                ("notes", .array(e.notes.map(JSONValue.string))),
                ("linked", .integer(Int64(e.linkedCount))), ("unlinked", .integer(Int64(e.unlinkedCount))),
                ("insertedObjects", refs(e.inserted)), ("deletedObjects", refs(e.deleted)),
                ("changedObjects", .array(changed)),
                ("links", .array(e.links.map { l in
                    .object([
                        ("relationship", .string(l.relationship)), ("source", value(l.source)),
                        ("destination", .string(l.destinationEntity)), ("destinationKey", value(l.destination)),
                        ("linked", .bool(l.isLinked)),
                    ])
                })),
                ("reordered", .integer(Int64(e.reorderedCount))),
                ("reorders", .array(e.reorders.map { c in
                    .object([
                        ("relationship", .string(c.relationship)), ("source", value(c.source)),
                        ("oldPrimaryKey", .integer(c.oldPrimaryKey)), ("newPrimaryKey", .integer(c.newPrimaryKey)),
                        ("destination", .string(c.destinationEntity)),
                        ("oldCount", .integer(Int64(c.oldCount))), ("newCount", .integer(Int64(c.newCount))),
                        ("moves", .array(c.moves.map { m in
                            .object([
                                ("destinationKey", value(m.destination)),
                                ("oldIndex", .integer(Int64(m.oldIndex))), ("newIndex", .integer(Int64(m.newIndex))),
                            ])
                        })),
                    ])
                })),
            ])
        }
        return JSONValue.object([
            ("old", side(oldPath, report.oldStoreUUID, report.oldModelVersion)),
            ("new", side(newPath, report.newStoreUUID, report.newModelVersion)),
            ("matchedByPrimaryKey", .bool(report.matchedByPrimaryKey)),
            ("hasChanges", .bool(report.hasChanges)),
            ("entities", .array(entities)),
        ]).rendered()
    }
}
