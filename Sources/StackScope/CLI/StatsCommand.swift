import CoreStack
import Foundation

/// `stackscope stats STORE --entity E --property P [--predicate F] [--top N] [--bins N] [--json]`:
/// a column's figures (`ColumnStatistics`), computed in the store's SQL over every matching
/// object: rows, nulls, distinct values, range, mean, the most common values with bars, and a
/// histogram for numbers and dates.
///
/// ```swift
/// print(try StatsCommand.run(storePath: "Library.sqlite", modelPath: nil, entity: "Book", property: "pages"))
/// ```
public enum StatsCommand {
    /// The figures of `property` of `entity` in the store at `storePath`, opened read-only as
    /// `info` opens it.
    /// - Throws: ``StackScopeError/unknownEntity(name:available:)``, `CoreStackError/unknownKey(entity:key:)`
    ///   for a property the entity does not have, and the errors of opening the store.
    public static func statistics(
        storePath: String, modelPath: String?, entity entityName: String, property: String,
        predicate: CoreStack.Predicate? = nil, top: Int = 10, bins: Int = 10, files: any StoreFileAccess = StoreFiles.standard
    ) throws -> ColumnStatistics {
        let session = try StoreSession.open(storePath: storePath, modelPath: modelPath, files: files)
        defer { session.close() }
        let entity = try session.entity(named: entityName)
        if let predicate { try PredicateHint.check(predicate, entity: entity) }
        guard let store = session.coordinator.persistentStore as? SQLiteStore else {
            throw StackScopeError.invalidOption(name: "STORE", reason: "statistics are computed in SQL: \(storePath) is not an SQLite store")
        }
        var request = ColumnStatisticsRequest(entity: entity, property: property, predicate: predicate)
        request.mostCommonLimit = top
        request.binCount = bins
        return try store.columnStatistics(request)
    }

    /// The command's output, text or JSON, ending with a newline.
    public static func run(
        storePath: String, modelPath: String?, entity: String, property: String, predicate: CoreStack.Predicate? = nil,
        top: Int = 10, bins: Int = 10, json: Bool = false, files: any StoreFileAccess = StoreFiles.standard
    ) throws -> String {
        let stats = try statistics(
            storePath: storePath, modelPath: modelPath, entity: entity, property: property, predicate: predicate,
            top: top, bins: bins, files: files)
        return (json ? renderJSON(stats) : renderText(stats)) + "\n"
    }

    /// The figures as text: a header of counts, the most common values with counts and bars, the
    /// histogram with bars.
    public static func renderText(_ s: ColumnStatistics, width: Int = 30) -> String {
        var lines = [
            "\(s.entityName).\(s.propertyName)",
            "Objects:   \(s.rowCount)",
            "Nil:       \(s.nullCount)",
            "Distinct:  \(s.distinctCount)",
        ]
        if let minimum = s.minimum { lines.append("Minimum:   \(text(minimum))") }
        if let maximum = s.maximum { lines.append("Maximum:   \(text(maximum))") }
        if let mean = s.mean { lines.append("Mean:      \(formatted(mean))") }
        if !s.mostCommon.isEmpty {
            lines += ["", "Most common"]
            let top = s.mostCommon.map(\.count).max() ?? 1
            let rows = s.mostCommon.map { [text($0.value), String($0.count), bar($0.count, of: top, width: width)] }
            lines += TextTable.render(header: ["Value", "Objects", ""], rows: rows, rightAligned: [1])
        }
        if !s.histogram.isEmpty {
            lines += ["", "Histogram"]
            let top = s.histogram.map(\.count).max() ?? 1
            // A date column's bins are seconds since 2001 (as stored): shown as dates.
            var isDate = false
            if case .attribute(.date) = s.minimum { isDate = true }
            func bound(_ x: Double) -> String {
                isDate ? ValueFormatter.cell(.date(Date(timeIntervalSinceReferenceDate: x))) : formatted(x)
            }
            let rows = s.histogram.map { bin in
                ["\(bound(bin.lowerBound)) – \(bound(bin.upperBound))", String(bin.count), bar(bin.count, of: top, width: width)]
            }
            lines += TextTable.render(header: ["Range", "Objects", ""], rows: rows, rightAligned: [1])
        }
        return lines.joined(separator: "\n")
    }

    /// The figures as one JSON object.
    public static func renderJSON(_ s: ColumnStatistics) -> String {
        func value(_ v: ColumnStatistics.Value?) -> JSONValue { v.map { .string(text($0)) } ?? .null }
        return JSONValue.object([
            ("entity", .string(s.entityName)),
            ("property", .string(s.propertyName)),
            ("objects", .integer(Int64(s.rowCount))),
            ("nil", .integer(Int64(s.nullCount))),
            ("distinct", .integer(Int64(s.distinctCount))),
            ("minimum", value(s.minimum)),
            ("maximum", value(s.maximum)),
            ("mean", s.mean.map { .double($0) } ?? .null),
            ("mostCommon", .array(s.mostCommon.map { .object([("value", value($0.value)), ("objects", .integer(Int64($0.count)))]) })),
            ("histogram", .array(s.histogram.map {
                .object([("from", .double($0.lowerBound)), ("to", .double($0.upperBound)), ("objects", .integer(Int64($0.count)))])
            })),
        ]).rendered()
    }

    /// The filter (Core Data's predicate format) that keeps the objects holding `value` in
    /// `property`; nil for values the format cannot name (a destination object, binary data).
    ///
    /// ```swift
    /// StatsCommand.filter(for: .attribute(.string("Dune")), property: "title")   // "title == \"Dune\""
    /// ```
    public static func filter(for value: ColumnStatistics.Value, property: String) -> String? {
        switch value {
        case .null: return "\(property) == nil"
        case let .count(n): return "\(property).@count == \(n)"
        case .object: return nil
        case let .attribute(v):
            switch v {
            case .null: return "\(property) == nil"
            case let .string(text):
                let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                return "\(property) == \"\(escaped)\""
            case let .integer(n): return "\(property) == \(n)"
            case let .double(d) where d.isFinite: return "\(property) == \(d)"
            case let .decimal(d): return "\(property) == \(d)"
            case let .bool(b): return "\(property) == \(b ? "YES" : "NO")"
            case let .date(date): return "\(property) == CAST(\(date.timeIntervalSinceReferenceDate), \"NSDate\")"
            case let .uuid(u): return "\(property) == CAST(\"\(u.uuidString)\", \"UUID\")"
            default: return nil
            }
        }
    }

    /// The filter (Core Data's predicate format) that keeps the objects whose value falls in the
    /// histogram bin at `index` of `stats`: from its lower bound up to its upper bound, the last
    /// bin's upper bound included (as `ColumnStatistics/histogram` counts them); a date column's
    /// bounds cast to dates, a to-many relationship's by its count. Nil for an index out of range.
    ///
    /// ```swift
    /// StatsCommand.filter(forBin: 0, of: pagesStats)   // "pages >= 12.0 AND pages < 100.8"
    /// ```
    public static func filter(forBin index: Int, of stats: ColumnStatistics) -> String? {
        guard stats.histogram.indices.contains(index) else { return nil }
        let bin = stats.histogram[index]
        let last = index == stats.histogram.count - 1
        var key = stats.propertyName
        var bound: (Double) -> String = { "\($0)" }
        switch stats.minimum {
        case .count?: key += ".@count"
        case .attribute(.date)?: bound = { "CAST(\($0), \"NSDate\")" }
        case .object?, nil: return nil
        default: break
        }
        return "\(key) >= \(bound(bin.lowerBound)) AND \(key) \(last ? "<=" : "<") \(bound(bin.upperBound))"
    }

    /// A value as the browser's table shows it (an object as its URI).
    static func text(_ value: ColumnStatistics.Value) -> String {
        switch value {
        case let .attribute(v): ValueFormatter.cell(v)
        default: value.description
        }
    }

    static func formatted(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int64(x)) : String(format: "%.3f", x)
    }

    /// A bar of `count` out of `top` in eighth blocks, `width` cells for `top`.
    static func bar(_ count: Int, of top: Int, width: Int) -> String {
        guard top > 0, count > 0 else { return "" }
        let eighths = max(1, count * width * 8 / top)
        let blocks = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
        return String(repeating: "█", count: eighths / 8) + blocks[eighths % 8]
    }
}
