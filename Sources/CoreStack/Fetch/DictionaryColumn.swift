import Foundation

/// One column of a dictionary fetch: an attribute, or an aggregate of one (`"@sum.pages"`,
/// `"@max.published"`, `"@count"`), as ``FetchRequest/propertiesToFetch`` names it.
///
/// ```swift
/// try DictionaryColumn.parse("@sum.pages", entity: book) // .aggregate(.sum, slot: 1, name: "@sum.pages")
/// ```
public enum DictionaryColumn: Sendable, Hashable {
    /// An aggregate function over an attribute (or over rows, for `@count` alone).
    public enum Function: String, Sendable, Hashable, CaseIterable {
        /// `@count`, `@sum`, `@min`, `@max` and `@avg`, as Core Data's key path aggregates spell them.
        case count, sum, min, max, avg
    }

    /// An attribute's value, by slot of the fetched entity.
    case attribute(slot: Int, name: String)
    /// A to-one relationship's destination, by relationship slot (given as its URI).
    case toOne(slot: Int, name: String)
    /// An aggregate over the rows of a group (over every row without grouping).
    case aggregate(Function, slot: Int?, name: String)

    /// The key of the column in each result dictionary.
    public var name: String {
        switch self {
        case let .attribute(_, name), let .toOne(_, name), let .aggregate(_, _, name): name
        }
    }

    var isAggregate: Bool { if case .aggregate = self { true } else { false } }

    /// The column a `propertiesToFetch` entry names.
    /// - Throws: ``CoreStackError/unknownKey(entity:key:)`` for a key the entity lacks;
    ///   ``CoreStackError/invalidFetchRequest(_:)`` for an unknown function, an aggregate of a
    ///   to-many or of a non-numeric attribute with `@sum` or `@avg`.
    public static func parse(_ text: String, entity: EntityDescription) throws -> DictionaryColumn {
        guard text.hasPrefix("@") else {
            if let slot = entity.attributeSlots[text] { return .attribute(slot: slot, name: text) }
            if let slot = entity.relationshipSlots[text] {
                guard !entity.allRelationships[slot].isToMany else {
                    throw CoreStackError.invalidFetchRequest("\(entity.name).\(text) is a to-many relationship: a dictionary fetch takes attributes and to-one relationships")
                }
                return .toOne(slot: slot, name: text)
            }
            throw CoreStackError.unknownKey(entity: entity.name, key: text)
        }
        let parts = text.dropFirst().split(separator: ".", maxSplits: 1).map(String.init)
        guard let first = parts.first, let function = Function(rawValue: first) else {
            throw CoreStackError.invalidFetchRequest("\(text): the aggregate must be one of \(Function.allCases.map { "@" + $0.rawValue }.joined(separator: ", "))")
        }
        guard parts.count == 2 else {
            guard function == .count else { throw CoreStackError.invalidFetchRequest("\(text) needs an attribute: @\(first).KEY") }
            return .aggregate(.count, slot: nil, name: text)
        }
        guard let slot = entity.attributeSlots[parts[1]] else { throw CoreStackError.unknownKey(entity: entity.name, key: parts[1]) }
        if function == .sum || function == .avg {
            switch entity.attributeTypes[slot] {
            case .integer16, .integer32, .integer64, .double, .float: break
            default:
                throw CoreStackError.invalidFetchRequest("\(text): @\(first) needs a numeric attribute (integer, double or float)")
            }
        }
        return .aggregate(function, slot: slot, name: text)
    }

    /// The columns of a request, checked: with grouping every plain column is grouped by, and
    /// without it aggregates come alone.
    static func plan(
        properties: [String]?, groupBy: [String]?, sortKeys: [String], entity: EntityDescription
    ) throws -> (columns: [DictionaryColumn], groupBy: [Int]) {
        let names = properties ?? entity.allAttributes.filter { !$0.isTransient }.map(\.name)
        let columns = try names.map { try parse($0, entity: entity) }
        var groupSlots: [Int] = []
        if let groupBy {
            for key in groupBy {
                guard let slot = entity.attributeSlots[key] else {
                    throw CoreStackError.invalidFetchRequest("propertiesToGroupBy: \(entity.name).\(key) is not an attribute")
                }
                groupSlots.append(slot)
            }
            for c in columns {
                guard case let .attribute(slot, name) = c else {
                    if case let .toOne(_, name) = c {
                        throw CoreStackError.invalidFetchRequest("\(name): a grouped fetch takes grouped attributes and aggregates")
                    }
                    continue
                }
                guard groupSlots.contains(slot) else {
                    throw CoreStackError.invalidFetchRequest("\(name) is fetched but not in propertiesToGroupBy")
                }
            }
            for key in sortKeys where !groupBy.contains(key) {
                throw CoreStackError.invalidFetchRequest("a grouped fetch sorts by grouped attributes only; \(key) is not in propertiesToGroupBy")
            }
        } else if columns.contains(where: \.isAggregate) && !columns.allSatisfy(\.isAggregate) {
            throw CoreStackError.invalidFetchRequest("aggregates and plain properties together need propertiesToGroupBy")
        }
        return (columns, groupSlots)
    }

    /// Aggregates rows in memory, as SQL does: groups ordered by the sort descriptors (over grouped
    /// attributes), then by their keys; with no grouping and only aggregates, one row.
    static func aggregate(
        _ rows: [RowSnapshot], columns: [DictionaryColumn], groupBy: [Int], entity: EntityDescription,
        sortDescriptors: [SortDescriptor]
    ) -> [[AttributeValue]] {
        var groups: [[AttributeValue]: [RowSnapshot]] = [:]
        var order: [[AttributeValue]] = []
        for row in rows {
            let key = groupBy.map { $0 < row.values.count ? row.values[$0] : .null }
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(row)
        }
        if groupBy.isEmpty && order.isEmpty { order = [[]]; groups[[]] = [] }
        let sortIndexes = sortDescriptors.map { d in (d, groupBy.firstIndex(of: entity.attributeSlots[d.key] ?? -1) ?? 0) }
        order.sort { a, b in
            for (d, i) in sortIndexes {
                let r = d.sortValue(a[i]).compare(to: d.sortValue(b[i])) ?? .orderedSame
                if r != .orderedSame { return d.ascending == (r == .orderedAscending) }
            }
            for i in a.indices {
                let r = a[i].compare(to: b[i]) ?? .orderedSame
                if r != .orderedSame { return r == .orderedAscending }
            }
            return false
        }
        return order.map { key in
            let members = groups[key] ?? []
            return columns.map { c in
                switch c {
                case let .attribute(slot, _):
                    return groupBy.firstIndex(of: slot).map { key[$0] } ?? .null
                case .toOne:
                    return .null
                case let .aggregate(f, slot, _):
                    let values = slot.map { s in members.map { s < $0.values.count ? $0.values[s] : .null }.filter { !$0.isNull } }
                    return reduce(f, values: values, rowCount: members.count, type: slot.map { entity.attributeTypes[$0] })
                }
            }
        }
    }

    private static func reduce(_ f: Function, values: [AttributeValue]?, rowCount: Int, type: AttributeType?) -> AttributeValue {
        guard let values else { return .integer(Int64(rowCount)) }
        switch f {
        case .count: return .integer(Int64(values.count))
        case .min, .max:
            return values.reduce(AttributeValue.null) { best, v in
                if best.isNull { return v }
                let r = v.compare(to: best) ?? .orderedSame
                return (f == .min ? r == .orderedAscending : r == .orderedDescending) ? v : best
            }
        case .sum, .avg:
            let integral = type == .integer16 || type == .integer32 || type == .integer64
            if f == .sum && integral {
                return .integer(values.reduce(Int64(0)) { $0 &+ ($1.integerValue ?? 0) })
            }
            let total = values.reduce(0.0) { $0 + ($1.doubleValue ?? Double($1.integerValue ?? 0)) }
            if f == .sum { return .double(total) }
            return values.isEmpty ? .null : .double(total / Double(values.count))
        }
    }

    /// A dictionary fetch done over a store's rows in memory (stores without SQL, and the
    /// columns SQL is not asked for): aggregates and groups as ``aggregate(_:columns:groupBy:entity:sortDescriptors:)``
    /// does, the request's offset and limit applied to the groups.
    static func rowsInMemory(
        _ store: any PersistentStore, _ request: StoreFetchRequest, columns: [DictionaryColumn], groupBy: [Int]
    ) throws -> [[AttributeValue]] {
        let grouped = !groupBy.isEmpty || columns.contains(where: \.isAggregate)
        var base = request
        if grouped {
            base.fetchLimit = 0
            base.fetchOffset = 0
        }
        let rows = try store.fetch(base)
        guard grouped else {
            return rows.map { row in
                columns.map { c in
                    switch c {
                    case let .attribute(slot, _): slot < row.snapshot.values.count ? row.snapshot.values[slot] : .null
                    case let .toOne(slot, _):
                        (slot < row.snapshot.toOne.count ? row.snapshot.toOne[slot] : nil).map { .url($0.uriRepresentation()) } ?? .null
                    case .aggregate: .null
                    }
                }
            }
        }
        let out = aggregate(rows.map(\.snapshot), columns: columns, groupBy: groupBy, entity: request.entity, sortDescriptors: request.sortDescriptors)
        return window(out, offset: request.fetchOffset, limit: request.fetchLimit)
    }

    static func window<E>(_ rows: [E], offset: Int, limit: Int) -> [E] {
        var out = rows[...]
        if offset > 0 { out = out.dropFirst(offset) }
        if limit > 0 { out = out.prefix(limit) }
        return Array(out)
    }
}
