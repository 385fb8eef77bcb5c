import Foundation
import GRDB

extension SQLiteStore {
    /// What one column of an entity holds (``ColumnStatistics``), computed in SQL over every
    /// object the request's predicate matches: one query over the entity's table grouping the
    /// values (the counts, range, most common values and histogram are taken from its groups;
    /// a second scan for the mean of real numbers), none loading objects. On the
    /// store's second connection when the file is in WAL mode, so saves and faults go on meanwhile;
    /// `cancellation` stops a running query (the call then throws `CancellationError`).
    ///
    /// ```swift
    /// let stats = try store.columnStatistics(ColumnStatisticsRequest(entity: chapter, property: "wordCount"))
    /// print("\(stats.rowCount) chapters, mean \(stats.mean ?? 0) words")
    /// ```
    /// - Throws: ``CoreStackError/unknownKey(entity:key:)`` for a property the entity does not
    ///   have, ``CoreStackError/invalidFetchRequest(_:)`` for a transient one, the errors of a
    ///   fetch with the same predicate, `CancellationError`.
    public func columnStatistics(
        _ request: ColumnStatisticsRequest, cancellation: FetchCancellation? = nil
    ) throws -> ColumnStatistics {
        try cancellation?.check()
        let column = try statisticsColumn(request)
        let query = { [self] (db: Database) throws -> ColumnStatistics in
            Self.installProgressHandler(db, cancellation)
            defer { Self.removeProgressHandler(db, cancellation) }
            return try statistics(db, request, column)
        }
        do {
            if cancellation != nil, let result = try offQueueReader.read(query) { return result }
            return try readStatement(query)
        } catch {
            if cancellation?.isCancelled == true { throw CancellationError() }
            throw error
        }
    }

    /// What the statistics read: an SQL expression per object, and how its values are read back.
    private struct StatisticsColumn {
        enum Reading { case attribute(AttributeType), object(entityColumn: String?, destination: EntityDescription), count }
        /// `v` (and `e`, the destination's `Z_ENT`, for a to-one into an inheritance tree).
        var select: String
        var reading: Reading
        var isNumeric: Bool
    }

    private func statisticsColumn(_ request: ColumnStatisticsRequest) throws -> StatisticsColumn {
        let entity = request.entity
        let mapping = try schema.mapping(for: entity)
        if let attribute = entity.attribute(named: request.property) {
            let slot = try entity.attributeSlot(request.property)
            guard let column = mapping.attributeColumns[slot] else {
                throw CoreStackError.invalidFetchRequest("\(entity.name).\(request.property) is transient: it has no column to describe")
            }
            let numeric: Set<AttributeType> = [.integer16, .integer32, .integer64, .double, .float, .decimal, .date]
            return StatisticsColumn(select: "t0.\(column) AS v", reading: .attribute(attribute.type), isNumeric: numeric.contains(attribute.type))
        }
        guard let relationship = entity.relationship(named: request.property),
            let slot = try? entity.relationshipSlot(request.property),
            let destination = entity.destinationEntity(ofRelationship: request.property)
        else { throw CoreStackError.unknownKey(entity: entity.name, key: request.property) }
        if let toOne = mapping.toOne[slot] {
            let e = toOne.entityColumn.map { "t0.\($0)" } ?? "NULL"
            return StatisticsColumn(
                select: "t0.\(toOne.column) AS v, \(e) AS e", reading: .object(entityColumn: toOne.entityColumn, destination: destination),
                isNumeric: false)
        }
        switch mapping.toMany[slot] {
        case let .foreignKey(table, column, _):
            return StatisticsColumn(select: "(SELECT COUNT(*) FROM \(table) x WHERE x.\(column) = t0.Z_PK) AS v", reading: .count, isNumeric: true)
        case let .join(index, sourceColumn, _, _):
            let table = schema.joinTables[index].table.name
            return StatisticsColumn(select: "(SELECT COUNT(*) FROM \(table) x WHERE x.\(sourceColumn) = t0.Z_PK) AS v", reading: .count, isNumeric: true)
        case nil:
            throw CoreStackError.invalidFetchRequest("\(entity.name).\(relationship.name) is transient: it has no column to describe")
        }
    }

    /// The figures in one pass over the matching objects: their values grouped and read in value
    /// order (SQLite's: numbers, then text, then blobs), from which the counts, the range, the most
    /// common values and the histogram's bins are taken as the groups go by. The mean of a column
    /// holding real numbers is SQLite's own `AVG` (a second scan, no sort), so it is the figure
    /// SQLite gives to the last bit; of integers it is their exact sum over their count, as `AVG`
    /// computes it.
    private func statistics(_ db: Database, _ request: ColumnStatisticsRequest, _ column: StatisticsColumn) throws -> ColumnStatistics {
        var fetch = StoreFetchRequest(entity: request.entity, predicate: request.predicate)
        fetch.includesSubentities = request.includesSubentities
        // No ORDER BY: an empty grouping asks for none.
        let (base, arguments) = try selectSQL(db, fetch, countOnly: false, columns: column.select, groupBy: [])
        let args = StatementArguments(arguments)
        let object = isObject(column)

        func value(_ dbValue: DatabaseValue, entityNumber: Int64?) -> ColumnStatistics.Value {
            if dbValue.isNull { return .null }
            switch column.reading {
            case let .attribute(type): return .attribute(SQLiteValueCodec.value(dbValue, type: type))
            case .count: return .count(Int(Int64.fromDatabaseValue(dbValue) ?? 0))
            case let .object(_, destination):
                guard let key = Int64.fromDatabaseValue(dbValue) else { return .null }
                let target = entityNumber.flatMap { schema.entitiesByNumber[Int($0)] } ?? destination
                return .object(ManagedObjectID(entity: target, storeToken: storeToken, primaryKey: key))
            }
        }

        var rowCount = 0
        var nullCount = 0
        var distinct = 0
        var minValue: DatabaseValue?
        var maxValue: DatabaseValue?
        var previous: DatabaseValue?
        // Integers summed exactly (as AVG does until it overflows); any real, or an overflow: AVG itself.
        var integerSum: Int64 = 0
        var integerCount = 0
        var needsAverage = false
        // The most common values so far, most common first, ties in value order (the order seen).
        let limit = max(0, request.mostCommonLimit)
        var top: [(value: DatabaseValue, entity: Int64?, count: Int)] = []
        // The numbers and how many objects hold each, for the histogram once the range is known.
        let wantsHistogram = column.isNumeric && request.binCount > 0
        var numbers: [(Double, Int)] = []

        let groupsSQL = "SELECT v, e, COUNT(*) FROM (SELECT *\(object ? "" : ", NULL AS e") FROM (\(base))) s GROUP BY v, e ORDER BY v, e"
        let groups = try Row.fetchCursor(db, sql: groupsSQL, arguments: args)
        while let row = try groups.next() {
            let v = row[0] as DatabaseValue
            let n: Int = row[2]
            rowCount += n
            guard !v.isNull else {
                nullCount += n
                continue
            }
            // A to-one's groups are (key, entity): one key, one object, whatever its entity column says.
            if !object || previous != v { distinct += 1 }
            previous = v
            if minValue == nil { minValue = v }
            maxValue = v
            switch v.storage {
            case let .int64(i):
                if column.isNumeric {
                    let (product, o1) = i.multipliedReportingOverflow(by: Int64(n))
                    let (sum, o2) = integerSum.addingReportingOverflow(product)
                    if o1 || o2 { needsAverage = true } else { integerSum = sum }
                    integerCount += n
                }
                if wantsHistogram { numbers.append((Double(i), n)) }
            case let .double(d):
                if column.isNumeric { needsAverage = true }
                if wantsHistogram { numbers.append((d, n)) }
            default: break
            }
            if limit > 0, top.count < limit || n > top[top.count - 1].count {
                let entity: Int64? = object ? row[1] : nil
                let at = top.firstIndex { $0.count < n } ?? top.count
                top.insert((v, entity, n), at: at)
                if top.count > limit { top.removeLast() }
            }
        }

        var mean: Double?
        if needsAverage {
            let averageSQL = "SELECT AVG(CASE WHEN typeof(v) IN ('integer', 'real') THEN v END) FROM (\(base)) s"
            mean = try Double.fetchOne(db, sql: averageSQL, arguments: args)
        } else if integerCount > 0 {
            mean = Double(integerSum) / Double(integerCount)
        }

        var histogram: [ColumnStatistics.Bin] = []
        if wantsHistogram, let lo = minValue.flatMap(Double.fromDatabaseValue), let hi = maxValue.flatMap(Double.fromDatabaseValue) {
            let bins = hi > lo ? request.binCount : 1
            let width = hi > lo ? (hi - lo) / Double(bins) : 1
            var counts = [Int](repeating: 0, count: bins)
            for (x, n) in numbers {
                // As SQL's MIN(MAX(CAST((v - lo) / width AS INTEGER), 0), bins - 1).
                let q = (x - lo) / width
                let b = q.isNaN || q < 1 ? 0 : q >= Double(bins - 1) ? bins - 1 : Int(q)
                counts[b] += n
            }
            histogram = counts.enumerated().map { i, n in
                .init(lowerBound: lo + Double(i) * width, upperBound: i == bins - 1 ? hi : lo + Double(i + 1) * width, count: n)
            }
        }
        return ColumnStatistics(
            entityName: request.entity.name, propertyName: request.property, rowCount: rowCount,
            nullCount: nullCount, distinctCount: distinct,
            minimum: minValue.map { value($0, entityNumber: nil) },
            maximum: maxValue.map { value($0, entityNumber: nil) },
            mean: mean, mostCommon: top.map { .init(value: value($0.value, entityNumber: $0.entity), count: $0.count) },
            histogram: histogram)
    }

    private func isObject(_ column: StatisticsColumn) -> Bool {
        if case .object = column.reading { return true }
        return false
    }
}
