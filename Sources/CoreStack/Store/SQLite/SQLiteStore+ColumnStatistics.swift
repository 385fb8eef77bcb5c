import Foundation
import GRDB

extension SQLiteStore {
    /// What one column of an entity holds (``ColumnStatistics``), computed in SQL over every
    /// object the request's predicate matches: three queries over the entity's table (counts and
    /// range in one pass, the most common values, the histogram), none loading objects. On the
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

    private func statistics(_ db: Database, _ request: ColumnStatisticsRequest, _ column: StatisticsColumn) throws -> ColumnStatistics {
        var fetch = StoreFetchRequest(entity: request.entity, predicate: request.predicate)
        fetch.includesSubentities = request.includesSubentities
        // No ORDER BY: an empty grouping asks for none.
        let (base, arguments) = try selectSQL(db, fetch, countOnly: false, columns: column.select, groupBy: [])
        let args = StatementArguments(arguments)
        let mean = column.isNumeric ? "AVG(CASE WHEN typeof(v) IN ('integer', 'real') THEN v END)" : "NULL"
        let summarySQL = "SELECT COUNT(*), COUNT(v), COUNT(DISTINCT v), MIN(v), MAX(v), \(mean) FROM (\(base)) s"
        guard let summary = try Row.fetchOne(db, sql: summarySQL, arguments: args) else {
            throw CoreStackError.sqlite(path: path, message: "no result for the statistics of \(request.entity.name).\(request.property)")
        }
        let rowCount: Int = summary[0]
        let valueCount: Int = summary[1]
        let distinct: Int = summary[2]
        let minValue = summary[3] as DatabaseValue
        let maxValue = summary[4] as DatabaseValue
        let average = summary[5] as Double?

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

        var mostCommon: [ColumnStatistics.ValueCount] = []
        if request.mostCommonLimit > 0 {
            let topSQL = "SELECT v, e, COUNT(*) AS n FROM (SELECT *\(isObject(column) ? "" : ", NULL AS e") FROM (\(base))) s "
                + "WHERE v IS NOT NULL GROUP BY v, e ORDER BY n DESC, v LIMIT \(request.mostCommonLimit)"
            for row in try Row.fetchAll(db, sql: topSQL, arguments: args) {
                let n: Int = row[2]
                mostCommon.append(.init(value: value(row[0], entityNumber: row[1]), count: n))
            }
        }

        var histogram: [ColumnStatistics.Bin] = []
        if column.isNumeric, request.binCount > 0, let lo = Double.fromDatabaseValue(minValue), let hi = Double.fromDatabaseValue(maxValue) {
            let bins = hi > lo ? request.binCount : 1
            let width = hi > lo ? (hi - lo) / Double(bins) : 1
            var counts = [Int](repeating: 0, count: bins)
            let histogramSQL = "SELECT MIN(MAX(CAST((v - ?) / ? AS INTEGER), 0), \(bins - 1)) AS b, COUNT(*) FROM (\(base)) s "
                + "WHERE typeof(v) IN ('integer', 'real') GROUP BY b"
            for row in try Row.fetchAll(db, sql: histogramSQL, arguments: StatementArguments([lo, width]) + args) {
                let b: Int = row[0], n: Int = row[1]
                if counts.indices.contains(b) { counts[b] += n }
            }
            histogram = counts.enumerated().map { i, n in
                .init(lowerBound: lo + Double(i) * width, upperBound: i == bins - 1 ? hi : lo + Double(i + 1) * width, count: n)
            }
        }
        return ColumnStatistics(
            entityName: request.entity.name, propertyName: request.property, rowCount: rowCount,
            nullCount: rowCount - valueCount, distinctCount: distinct,
            minimum: minValue.isNull ? nil : value(minValue, entityNumber: nil),
            maximum: maxValue.isNull ? nil : value(maxValue, entityNumber: nil),
            mean: average, mostCommon: mostCommon, histogram: histogram)
    }

    private func isObject(_ column: StatisticsColumn) -> Bool {
        if case .object = column.reading { return true }
        return false
    }
}
