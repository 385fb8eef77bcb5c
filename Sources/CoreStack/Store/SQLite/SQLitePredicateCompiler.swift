import Foundation
import GRDB

/// Compiles a ``Predicate`` and sort descriptors to SQL over Core Data's layout.
///
/// Every value becomes a bound parameter and every key is checked against the model, so neither
/// values nor key names can inject SQL. String operators and `[c]`/`[d]` options go through the
/// functions of ``SQLiteFunctions`` (``StringMatching``), so SQL and in-memory evaluation agree.
/// Key paths through to-one relationships become scalar subqueries (nil when the relationship is
/// empty); to-many key paths become `EXISTS` subqueries (`ANY`, the default) or `NOT EXISTS … NOT`
/// (`ALL`); aggregates (`rel.@count`, `books.pages.@sum`, `@avg`, `@min`, `@max`) scalar subqueries
/// over the joined relationship tables; `SUBQUERY(collection, $x, predicate).@count` a correlated
/// `COUNT(*)` in which `$x` is the destination row's alias.
struct SQLitePredicateCompiler {
    let schema: SQLiteSchema
    /// The bound values, in the order of the `?` in the SQL produced so far.
    private(set) var arguments: [DatabaseValue] = []
    private var aliasCounter = 0
    /// Subquery variables in scope: the alias and entity of the row each stands for.
    private var variables: [String: (alias: String, entity: EntityDescription)] = [:]

    init(schema: SQLiteSchema) {
        self.schema = schema
    }

    private enum Step {
        case attribute(AttributeDescription, column: String)
        case toOne(RelationshipDescription, SQLiteSchema.ToOneMapping, destination: EntityDescription)
        case toMany(RelationshipDescription, SQLiteSchema.ToManyMapping, destination: EntityDescription)
        case count
    }

    /// What a scalar expression is, for type checks.
    private enum Kind {
        case attribute(AttributeDescription)
        case object(EntityDescription)
        case count
    }

    private mutating func newAlias() -> String {
        aliasCounter += 1
        return "t\(aliasCounter)"
    }

    private mutating func bind(_ value: DatabaseValue) -> String {
        arguments.append(value)
        return "?"
    }

    // MARK: - Predicates

    /// The SQL condition for `predicate` over rows of `entity` in the table aliased `alias`.
    mutating func compile(_ predicate: Predicate, entity: EntityDescription, alias: String) throws -> String {
        switch predicate {
        case let .constant(b):
            return b ? "1" : "0"
        case let .and(ps):
            if ps.isEmpty { return "1" }
            return Self.balanced(try ps.map { try compile($0, entity: entity, alias: alias) }, "AND")
        case let .or(ps):
            if ps.isEmpty { return "0" }
            return Self.balanced(try ps.map { try compile($0, entity: entity, alias: alias) }, "OR")
        case .not:
            // A run of NOTs is one NOT or none: `NOT NOT p` nested in SQL would exhaust SQLite's
            // parser stack (about 100 levels) long before the predicate parser's nesting bound.
            var inner = predicate
            var negations = 0
            while case let .not(p) = inner {
                negations += 1
                inner = p
            }
            let sql = "COALESCE((\(try compile(inner, entity: entity, alias: alias))), 0)"
            return negations % 2 == 1 ? "NOT " + sql : sql
        case let .comparison(c):
            return try comparison(c, entity: entity, alias: alias)
        }
    }

    /// The most terms joined in one flat run of `AND` or `OR`.
    static let flatTerms = 16

    /// `terms` joined by `op` (`AND`, `OR`) in parentheses; past ``flatTerms`` terms as a balanced
    /// tree, so a chain of 5,000 comparisons nests about 12 levels deep, not 5,000 (SQLite refuses
    /// expression trees over 1,000 deep: "Expression tree is too large").
    static func balanced(_ terms: [String], _ op: String) -> String {
        balanced(terms[...], op)
    }

    private static func balanced(_ terms: ArraySlice<String>, _ op: String) -> String {
        if terms.count <= flatTerms { return "(" + terms.joined(separator: " \(op) ") + ")" }
        let mid = terms.startIndex + terms.count / 2
        return "(" + balanced(terms[..<mid], op) + " \(op) " + balanced(terms[mid...], op) + ")"
    }

    /// `IN` lists with more values than this bind them as JSON (``SQLiteJSONList``), one `?` per
    /// storage class, instead of one `?` per value.
    static let jsonListThreshold = 32

    private func isPathLike(_ e: Expression) -> Bool {
        switch e {
        case .keyPath, .evaluatedObject, .aggregate: return true
        case let .variable(v): return variables[v] != nil
        default: return false
        }
    }

    private func unbound(_ v: String) -> CoreStackError {
        .invalidPredicate("the variable $\(v) was not substituted")
    }

    /// The entity and alias a key path starts from (a subquery variable's row for `$x.key`), and its keys.
    private func start(of path: String, entity: EntityDescription, alias: String) throws -> (ArraySlice<String>, EntityDescription, String) {
        var comps = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)[...]
        guard let first = comps.first, first.hasPrefix("$") else { return (comps, entity, alias) }
        let name = String(first.dropFirst())
        guard let v = variables[name] else { throw unbound(name) }
        comps = comps.dropFirst()
        return (comps, v.entity, v.alias)
    }

    private mutating func comparison(_ original: Comparison, entity: EntityDescription, alias: String) throws -> String {
        if case let .variable(v) = original.left, variables[v] == nil { throw unbound(v) }
        if case let .variable(v) = original.right, variables[v] == nil { throw unbound(v) }
        let c = try original.withKeyPathOnLeft(entity: entity, isPathLike: isPathLike)
        switch c.left {
        case .evaluatedObject:
            return try compare(lhs: "\(alias).Z_PK", kind: .object(entity), c, entity: entity, alias: alias)
        case let .variable(v):
            guard let bound = variables[v] else { throw unbound(v) }
            return try compare(lhs: "\(bound.alias).Z_PK", kind: .object(bound.entity), c, entity: entity, alias: alias)
        case let .aggregate(fn, of: inner):
            // A SUBQUERY's predicate binds values of its own: the left side's arguments.
            let before = arguments.count
            let (sql, kind) = try aggregate(fn, of: inner, entity: entity, alias: alias)
            return try compare(lhs: sql, kind: kind, c, entity: entity, alias: alias, lhsArguments: arguments.count - before)
        case let .keyPath(path):
            let (comps, from, fromAlias) = try start(of: path, entity: entity, alias: alias)
            if comps.isEmpty, let v = variables[String(path.dropFirst())] {
                return try compare(lhs: "\(v.alias).Z_PK", kind: .object(v.entity), c, entity: entity, alias: alias)
            }
            if let last = comps.last, last.hasPrefix("@") {
                let (sql, kind) = try aggregateKeyPath(comps, entity: from, alias: fromAlias, fullPath: path)
                return try compare(lhs: sql, kind: kind, c, entity: entity, alias: alias)
            }
            return try condition(comps, entity: from, alias: fromAlias, c, fullPath: path, rootEntity: entity, rootAlias: alias)
        default:
            throw CoreStackError.invalidPredicate("unsupported left side of \(c.op.rawValue)")
        }
    }

    // MARK: - Aggregates and subqueries

    /// One table reached along a relationship: `JOIN table alias ON condition`.
    private struct JoinPiece {
        var table: String
        var on: String
    }

    /// The tables a to-many relationship of `alias` reaches, the last aliased `d`.
    private func toManyPieces(_ m: SQLiteSchema.ToManyMapping, destination: EntityDescription, alias: String, d: String) throws -> [JoinPiece] {
        let destMapping = try schema.mapping(for: destination)
        var restriction = ""
        if destMapping.tableIsShared && destination.superentity != nil {
            restriction = " AND \(d).Z_ENT IN (\(destMapping.numbersWithSubentities.map(String.init).joined(separator: ", ")))"
        }
        switch m {
        case let .foreignKey(table, column, _):
            return [JoinPiece(table: "\(table) \(d)", on: "\(d).\(column) = \(alias).Z_PK" + restriction)]
        case let .join(index, src, dst, _):
            let jt = schema.joinTables[index].table.name
            let j = d + "j"
            return [
                JoinPiece(table: "\(jt) \(j)", on: "\(j).\(src) = \(alias).Z_PK"),
                JoinPiece(table: "\(destMapping.table) \(d)", on: "\(d).Z_PK = \(j).\(dst)" + restriction),
            ]
        }
    }

    /// `FROM … WHERE …` (without the keywords) over the rows a relationship chain reaches from
    /// `alias`: the first step correlates with `alias`, later steps join (`LEFT JOIN` for to-ones
    /// when `leftJoinToOnes`, so an empty to-one still counts as a member, as in memory).
    private struct Chain {
        var from = ""
        var condition = ""
        var alias: String
        var entity: EntityDescription
        /// The attribute the chain ends in, with its column.
        var attribute: (AttributeDescription, String)?
    }

    private mutating func chain(
        _ comps: ArraySlice<String>, entity: EntityDescription, alias: String, leftJoinToOnes: Bool, fullPath: String
    ) throws -> Chain {
        var out = Chain(alias: alias, entity: entity)
        var first = true
        func add(_ pieces: [JoinPiece], left: Bool) {
            for p in pieces {
                if first {
                    out.from = p.table
                    out.condition = p.on
                    first = false
                } else {
                    out.from += "\(left ? " LEFT" : "") JOIN \(p.table) ON \(p.on)"
                }
            }
        }
        for (i, name) in comps.enumerated() {
            guard out.attribute == nil else {
                throw CoreStackError.invalidPredicate("\"\(fullPath)\" continues past an attribute")
            }
            switch try step(name, of: out.entity, fullPath: fullPath) {
            case let .attribute(a, column):
                guard i > 0 else { throw CoreStackError.invalidPredicate("\"\(fullPath)\" needs a relationship before \(name)") }
                out.attribute = (a, "\(out.alias).\(column)")
            case let .toOne(_, m, dest):
                let t = newAlias()
                let table = try schema.mapping(for: dest).table
                add([JoinPiece(table: "\(table) \(t)", on: "\(t).Z_PK = \(out.alias).\(m.column)")], left: leftJoinToOnes)
                out.alias = t
                out.entity = dest
            case let .toMany(_, m, dest):
                let d = newAlias()
                add(try toManyPieces(m, destination: dest, alias: out.alias, d: d), left: false)
                out.alias = d
                out.entity = dest
            case .count:
                throw CoreStackError.invalidPredicate("misplaced aggregate in \"\(fullPath)\"")
            }
        }
        guard !first else { throw CoreStackError.invalidPredicate("empty key path") }
        return out
    }

    /// A key path ending in an aggregate (`books.@count`, `books.pages.@sum`, `publisher.books.@count`)
    /// as a scalar SQL expression: NULL when a to-one before the first to-many is empty (as in
    /// memory); `@count` and `@sum` 0 and `@avg`/`@min`/`@max` NULL for an empty collection.
    private mutating func aggregateKeyPath(
        _ comps: ArraySlice<String>, entity: EntityDescription, alias: String, fullPath: String
    ) throws -> (String, Kind) {
        guard let fn = comps.last?.lowercased(), comps.count >= 2 else {
            throw CoreStackError.invalidPredicate("an aggregate needs a to-many key path before it in \"\(fullPath)\"")
        }
        let body = comps.dropLast()
        guard let name = body.first else { throw CoreStackError.invalidPredicate("empty key path") }
        switch try step(name, of: entity, fullPath: fullPath) {
        case let .toOne(_, m, dest):
            // Through a to-one first: NULL when it is empty.
            let t = newAlias()
            let table = try schema.mapping(for: dest).table
            let (inner, kind) = try aggregateKeyPath(comps.dropFirst(), entity: dest, alias: t, fullPath: fullPath)
            return ("(SELECT \(inner) FROM \(table) \(t) WHERE \(t).Z_PK = \(alias).\(m.column))", kind)
        case .toMany:
            let ch = try chain(body, entity: entity, alias: alias, leftJoinToOnes: true, fullPath: fullPath)
            let source = "FROM \(ch.from) WHERE \(ch.condition)"
            if fn == "@count" { return ("(SELECT COUNT(*) \(source))", .count) }
            guard let (a, column) = ch.attribute else {
                throw CoreStackError.invalidPredicate("\(fn) needs an attribute before it in \"\(fullPath)\"")
            }
            switch fn {
            case "@sum": return ("(SELECT COALESCE(SUM(\(column)), 0) \(source))", .attribute(a))
            case "@avg": return ("(SELECT AVG(\(column)) \(source))", .attribute(a))
            case "@min": return ("(SELECT MIN(\(column)) \(source))", .attribute(a))
            case "@max": return ("(SELECT MAX(\(column)) \(source))", .attribute(a))
            default: throw CoreStackError.invalidPredicate("unknown aggregate \(fn) in \"\(fullPath)\"")
            }
        case .attribute, .count:
            throw CoreStackError.invalidPredicate("\(fn) must follow a to-many relationship in \"\(fullPath)\"")
        }
    }

    /// `SUBQUERY(collection, $x, predicate).@count` (or an aggregate of a key path) as a scalar.
    private mutating func aggregate(_ fn: String, of inner: Expression, entity: EntityDescription, alias: String) throws -> (String, Kind) {
        switch inner {
        case let .keyPath(path):
            let (comps, from, fromAlias) = try start(of: path + "." + fn, entity: entity, alias: alias)
            return try aggregateKeyPath(comps, entity: from, alias: fromAlias, fullPath: path + "." + fn)
        case let .subquery(collection, variable, predicate):
            guard fn.lowercased() == "@count" else {
                throw CoreStackError.invalidPredicate("only @count can follow a SUBQUERY, not \(fn)")
            }
            let (comps, from, fromAlias) = try start(of: collection, entity: entity, alias: alias)
            let ch = try chain(comps, entity: from, alias: fromAlias, leftJoinToOnes: false, fullPath: collection)
            guard ch.attribute == nil else {
                throw CoreStackError.invalidPredicate("the SUBQUERY collection \"\(collection)\" must be a relationship")
            }
            let saved = variables
            defer { variables = saved }
            variables[variable] = (ch.alias, ch.entity)
            let condition = try compile(predicate, entity: ch.entity, alias: ch.alias)
            return ("(SELECT COUNT(*) FROM \(ch.from) WHERE \(ch.condition) AND (\(condition)))", .count)
        default:
            throw CoreStackError.invalidPredicate("\(fn) needs a key path or a SUBQUERY before it")
        }
    }

    private func step(_ name: String, of entity: EntityDescription, fullPath: String) throws -> Step {
        let mapping = try schema.mapping(for: entity)
        if let slot = entity.attributeSlots[name] {
            let a = entity.allAttributes[slot]
            guard let column = mapping.attributeColumns[slot] else {
                throw CoreStackError.invalidPredicate("\(entity.name).\(name) is transient and cannot be fetched on")
            }
            return .attribute(a, column: column)
        }
        if let slot = entity.relationshipSlots[name] {
            let r = entity.allRelationships[slot]
            let dest = entity.destinations[slot]
            if let m = mapping.toOne[slot] { return .toOne(r, m, destination: dest) }
            if let m = mapping.toMany[slot] { return .toMany(r, m, destination: dest) }
            throw CoreStackError.invalidPredicate("\(entity.name).\(name) is transient and cannot be fetched on")
        }
        throw CoreStackError.unknownKey(entity: entity.name, key: name)
    }

    /// `(from, where)` of the rows a to-many relationship of `alias` reaches, aliased `d`.
    private func toManySource(_ m: SQLiteSchema.ToManyMapping, destination: EntityDescription, alias: String, d: String) throws -> (String, String) {
        let pieces = try toManyPieces(m, destination: destination, alias: alias, d: d)
        guard let first = pieces.first else { throw CoreStackError.invalidPredicate("empty relationship mapping") }
        let from = ([first.table] + pieces.dropFirst().map { "JOIN \($0.table) ON \($0.on)" }).joined(separator: " ")
        return (from, first.on)
    }

    private mutating func condition(
        _ comps: ArraySlice<String>, entity: EntityDescription, alias: String, _ c: Comparison, fullPath: String,
        rootEntity: EntityDescription, rootAlias: String
    ) throws -> String {
        guard let name = comps.first else { throw CoreStackError.invalidPredicate("empty key path") }
        let rest = comps.dropFirst()
        if name == "@count" {
            throw CoreStackError.invalidPredicate("@count must follow a to-many relationship in \"\(fullPath)\"")
        }
        // No to-many ahead: a scalar value.
        if try !pathHasToMany(comps, entity: entity, fullPath: fullPath) {
            let (sql, kind) = try scalar(comps, entity: entity, alias: alias, fullPath: fullPath)
            return try compare(lhs: sql, kind: kind, c, entity: rootEntity, alias: rootAlias)
        }
        switch try step(name, of: entity, fullPath: fullPath) {
        case let .toOne(_, m, dest):
            let t = newAlias()
            let destTable = try schema.mapping(for: dest).table
            let inner = try condition(rest, entity: dest, alias: t, c, fullPath: fullPath, rootEntity: rootEntity, rootAlias: rootAlias)
            return "EXISTS (SELECT 1 FROM \(destTable) \(t) WHERE \(t).Z_PK = \(alias).\(m.column) AND (\(inner)))"
        case let .toMany(_, m, dest):
            let d = newAlias()
            let (from, link) = try toManySource(m, destination: dest, alias: alias, d: d)
            if rest.first == "@count" {
                guard rest.count == 1 else {
                    throw CoreStackError.invalidPredicate("nothing may follow @count in \"\(fullPath)\"")
                }
                return try compare(lhs: "(SELECT COUNT(*) FROM \(from) WHERE \(link))", kind: .count, c, entity: rootEntity, alias: rootAlias)
            }
            let inner: String
            if rest.isEmpty {
                inner = try compare(lhs: "\(d).Z_PK", kind: .object(dest), c, entity: rootEntity, alias: rootAlias)
            } else {
                inner = try condition(rest, entity: dest, alias: d, c, fullPath: fullPath, rootEntity: rootEntity, rootAlias: rootAlias)
            }
            if c.modifier == .all {
                return "NOT EXISTS (SELECT 1 FROM \(from) WHERE \(link) AND NOT COALESCE((\(inner)), 0))"
            }
            return "EXISTS (SELECT 1 FROM \(from) WHERE \(link) AND (\(inner)))"
        case .attribute, .count:
            throw CoreStackError.invalidPredicate("\"\(fullPath)\" continues past an attribute")
        }
    }

    private func pathHasToMany(_ comps: ArraySlice<String>, entity: EntityDescription, fullPath: String) throws -> Bool {
        var e = entity
        for (i, name) in comps.enumerated() {
            switch try step(name, of: e, fullPath: fullPath) {
            case .toMany: return true
            case let .toOne(_, _, dest): e = dest
            case .attribute:
                if i != comps.count - 1 {
                    throw CoreStackError.invalidPredicate("\"\(fullPath)\" continues past the attribute \(e.name).\(name)")
                }
            case .count: break
            }
        }
        return false
    }

    /// A scalar expression for a key path of attributes and to-ones (nil when a to-one is empty).
    private mutating func scalar(_ comps: ArraySlice<String>, entity: EntityDescription, alias: String, fullPath: String) throws -> (String, Kind) {
        guard let name = comps.first else { throw CoreStackError.invalidPredicate("empty key path") }
        let rest = comps.dropFirst()
        switch try step(name, of: entity, fullPath: fullPath) {
        case let .attribute(a, column):
            guard rest.isEmpty else {
                throw CoreStackError.invalidPredicate("\"\(fullPath)\" continues past the attribute \(entity.name).\(name)")
            }
            return ("\(alias).\(column)", .attribute(a))
        case let .toOne(_, m, dest):
            if rest.isEmpty { return ("\(alias).\(m.column)", .object(dest)) }
            let t = newAlias()
            let destTable = try schema.mapping(for: dest).table
            let (inner, kind) = try scalar(rest, entity: dest, alias: t, fullPath: fullPath)
            return ("(SELECT \(inner) FROM \(destTable) \(t) WHERE \(t).Z_PK = \(alias).\(m.column))", kind)
        case .toMany:
            throw CoreStackError.invalidPredicate("\"\(fullPath)\" goes through a to-many relationship; it needs ANY, ALL or @count")
        case .count:
            throw CoreStackError.invalidPredicate("@count must follow a to-many relationship in \"\(fullPath)\"")
        }
    }

    // MARK: - Comparing a value

    private static func describe(_ kind: Kind) -> String {
        switch kind {
        case let .attribute(a): "\(a.name) (\(a.type.xcodeName))"
        case let .object(e): "a \(e.name) object"
        case .count: "a count"
        }
    }

    /// Binds a constant compared with a value of `kind`, checking its type.
    private mutating func bindConstant(_ v: AttributeValue, kind: Kind, entity: EntityDescription, c: Comparison) throws -> String {
        func mismatch() -> CoreStackError {
            .invalidPredicate(
                "\(entity.name): cannot compare \(Self.describe(kind)) with \(v.kindDescription) (\(v)) using \(c.op.rawValue)")
        }
        switch kind {
        case .count:
            guard let i = v.integerValue ?? v.doubleValue.map({ Int64($0.rounded(.down)) }) else { throw mismatch() }
            if case let .double(d) = v { return bind(d.databaseValue) }
            return bind(i.databaseValue)
        case .object:
            throw mismatch()
        case let .attribute(a):
            switch a.type {
            case .integer16, .integer32, .integer64, .double, .float, .decimal:
                switch v {
                case let .integer(i): return bind(i.databaseValue)
                case let .double(d): return bind(d.databaseValue)
                case let .bool(b): return bind((b ? 1 : 0).databaseValue)
                case .decimal: return bind(SQLiteValueCodec.databaseValue(v, type: .decimal))
                default: throw mismatch()
                }
            case .boolean:
                // Stored as 0/1; a number binds as itself, so `flag == 2` matches nothing, as in memory.
                switch v {
                case let .bool(b): return bind((b ? 1 : 0).databaseValue)
                case let .integer(i): return bind(i.databaseValue)
                case let .double(d): return bind(d.databaseValue)
                case .decimal: return bind(SQLiteValueCodec.databaseValue(v, type: .decimal))
                default: throw mismatch()
                }
            case .string:
                guard let s = v.stringValue else { throw mismatch() }
                return bind(Self.text(s))
            case .uri:
                if let u = v.urlValue { return bind(Self.text(u.absoluteString)) }
                guard let s = v.stringValue else { throw mismatch() }
                return bind(Self.text(s))
            case .date:
                guard let d = v.dateValue else { throw mismatch() }
                return bind(d.timeIntervalSinceReferenceDate.databaseValue)
            case .uuid:
                guard let u = v.uuidValue else { throw mismatch() }
                return bind(SQLiteValueCodec.uuidData(u).databaseValue)
            case .binaryData, .transformable:
                guard let d = v.dataValue else { throw mismatch() }
                return bind(d.databaseValue)
            case .undefined, .objectID:
                throw mismatch()
            }
        }
    }

    /// A string as a bound value. GRDB binds text up to its first NUL, so a string holding NUL
    /// binds as the BLOB of its UTF-8 bytes: the string functions read it whole, equality and `IN`
    /// compare it as text again (`CAST(? AS TEXT)`: a save stores such a string whole, as text),
    /// and orderings compare bytes (see `compare`).
    private static func text(_ s: String) -> DatabaseValue {
        s.utf8.contains(0) ? Data(s.utf8).databaseValue : s.databaseValue
    }

    private static func hasNUL(_ e: Expression) -> Bool {
        switch e {
        case let .constant(.string(s)): s.utf8.contains(0)
        case let .list(items): items.contains(where: hasNUL)
        default: false
        }
    }

    private mutating func bindObject(_ id: ManagedObjectID, kind: Kind, entity: EntityDescription, c: Comparison) throws -> String {
        guard case let .object(dest) = kind else {
            throw CoreStackError.invalidPredicate("\(entity.name): cannot compare \(Self.describe(kind)) with the object \(id)")
        }
        guard id.entity.name == dest.name || id.entity.isKind(of: dest) || (try? schema.mapping(for: id.entity))?.entity.isKind(of: dest) == true else {
            throw CoreStackError.invalidPredicate("\(entity.name): \(id) is not a \(dest.name) object")
        }
        // A temporary object is not in the store: a key no row has.
        return bind((id.primaryKey ?? -1).databaseValue)
    }

    private func isString(_ kind: Kind) -> Bool {
        if case let .attribute(a) = kind { return a.type == .string || a.type == .uri }
        return false
    }

    private mutating func bindOperand(_ e: Expression, kind: Kind, entity: EntityDescription, alias: String, c: Comparison) throws -> String {
        switch e {
        case let .constant(v): return try bindConstant(v, kind: kind, entity: entity, c: c)
        case let .object(id): return try bindObject(id, kind: kind, entity: entity, c: c)
        case .evaluatedObject:
            guard case .object = kind else { throw CoreStackError.invalidPredicate("SELF compared with \(Self.describe(kind))") }
            return "\(alias).Z_PK"
        case let .variable(v):
            guard let bound = variables[v] else { throw unbound(v) }
            guard case .object = kind else { throw CoreStackError.invalidPredicate("$\(v) compared with \(Self.describe(kind))") }
            return "\(bound.alias).Z_PK"
        case let .keyPath(path):
            let (comps, from, fromAlias) = try start(of: path, entity: entity, alias: alias)
            if comps.isEmpty, let bound = variables[String(path.dropFirst())] {
                guard case .object = kind else { throw CoreStackError.invalidPredicate("\(path) compared with \(Self.describe(kind))") }
                return "\(bound.alias).Z_PK"
            }
            let sql: String
            let rkind: Kind
            if let last = comps.last, last.hasPrefix("@") {
                (sql, rkind) = try aggregateKeyPath(comps, entity: from, alias: fromAlias, fullPath: path)
            } else {
                if try pathHasToMany(comps, entity: from, fullPath: path) {
                    throw CoreStackError.invalidPredicate("the right side \"\(path)\" must not go through a to-many relationship")
                }
                (sql, rkind) = try scalar(comps, entity: from, alias: fromAlias, fullPath: path)
            }
            switch (kind, rkind) {
            case let (.attribute(a), .attribute(b)):
                let compatible = a.type == b.type || (a.type.isNumeric && b.type.isNumeric) || (isString(kind) && isString(rkind))
                guard compatible else {
                    throw CoreStackError.invalidPredicate("\(entity.name): cannot compare \(Self.describe(kind)) with \(Self.describe(rkind))")
                }
            case (.object, .object), (.count, _), (.attribute, .count):
                break
            default:
                throw CoreStackError.invalidPredicate("\(entity.name): cannot compare \(Self.describe(kind)) with \(Self.describe(rkind))")
            }
            return sql
        case .list:
            throw CoreStackError.invalidPredicate("a list can only follow IN or BETWEEN")
        case .subquery, .aggregate:
            throw CoreStackError.invalidPredicate("a SUBQUERY can only be the left side of a comparison")
        }
    }

    private func isNull(_ e: Expression) -> Bool {
        if case .constant(.null) = e { return true }
        return false
    }

    /// The SQL of `c` with `original` as its left side. `lhsArguments`: how many of the arguments
    /// bound last are the left side's own (a SUBQUERY's), bound again wherever the left side
    /// appears again (each term of an `IN`).
    private mutating func compare(
        lhs original: String, kind: Kind, _ c: Comparison, entity: EntityDescription, alias: String, lhsArguments: Int = 0
    ) throws -> String {
        let opts = c.options.rawValue
        var lhs = original
        let ordering: Set<Comparison.Operator> = [.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .between]
        if ordering.contains(c.op), c.options.isEmpty, isString(kind), Self.hasNUL(c.right) {
            // The constant is a BLOB of UTF-8 bytes: compare the text's bytes too, as memory does.
            lhs = "CAST(\(original) AS BLOB)"
        }
        let stringOps: [Comparison.Operator: String] = [
            .beginsWith: "beginswith", .endsWith: "endswith", .like: "like", .matches: "matches", .contains: "contains",
        ]
        if let fn = stringOps[c.op] {
            if c.op == .contains, case .object = kind {
                // `relationship CONTAINS object` on a to-many already unrolled: equality.
                return "\(lhs) = \(try bindOperand(c.right, kind: kind, entity: entity, alias: alias, c: c))"
            }
            guard isString(kind) else {
                throw CoreStackError.invalidPredicate("\(entity.name): \(c.op.rawValue) needs a String, not \(Self.describe(kind))")
            }
            if isNull(c.right) { return "0" }
            let rhs = try bindOperand(c.right, kind: kind, entity: entity, alias: alias, c: c)
            return "cs_match('\(fn)', \(lhs), \(rhs), \(opts))"
        }
        switch c.op {
        case .equal, .notEqual:
            let eq = c.op == .equal
            if isNull(c.right) { return "\(lhs) IS \(eq ? "" : "NOT ")NULL" }
            var rhs = try bindOperand(c.right, kind: kind, entity: entity, alias: alias, c: c)
            if !c.options.isEmpty && isString(kind) {
                let m = "cs_match('equals', \(lhs), \(rhs), \(opts))"
                return eq ? m : "COALESCE(\(m), 0) = 0"
            }
            // A string holding NUL is bound as a BLOB (see `text`); stored text is compared as text.
            if isString(kind), Self.hasNUL(c.right) { rhs = "CAST(\(rhs) AS TEXT)" }
            return eq ? "\(lhs) = \(rhs)" : "\(lhs) IS NOT \(rhs)"
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            if isNull(c.right) { return "0" }
            let rhs = try bindOperand(c.right, kind: kind, entity: entity, alias: alias, c: c)
            if case .object = kind { throw CoreStackError.invalidPredicate("\(entity.name): objects cannot be ordered with \(c.op.rawValue)") }
            if !c.options.isEmpty && isString(kind) {
                return "cs_fold(\(lhs), \(opts)) \(c.op.rawValue) cs_fold(\(rhs), \(opts))"
            }
            if lhs != original { return "\(lhs) \(c.op.rawValue) CAST(\(rhs) AS BLOB)" }
            return "\(lhs) \(c.op.rawValue) \(rhs)"
        case .in:
            guard case let .list(items) = c.right else {
                throw CoreStackError.invalidPredicate("IN needs a list on its right side")
            }
            // Each term names the left side once, first, then binds its own values: its `?` and
            // its arguments go out together, term by term, so they stay in the same order.
            let lhsValues = takeArguments(from: arguments.count - lhsArguments)
            let terms: [Term]
            if items.count > Self.jsonListThreshold {
                terms = try jsonIn(lhs: lhs, items: items, kind: kind, entity: entity, alias: alias, c: c)
            } else {
                terms = try shortIn(lhs: lhs, items: items, kind: kind, entity: entity, alias: alias, c: c)
            }
            for t in terms { arguments += lhsValues + t.arguments }
            if terms.isEmpty { return "0" }
            return items.count > Self.jsonListThreshold
                ? Self.balanced(terms.map(\.sql), "OR") : "(" + terms.map(\.sql).joined(separator: " OR ") + ")"
        case .between:
            guard case let .list(items) = c.right, items.count == 2 else {
                throw CoreStackError.invalidPredicate("BETWEEN needs a list of two values")
            }
            if items.contains(where: isNull) { return "0" }
            if case .object = kind { throw CoreStackError.invalidPredicate("\(entity.name): objects cannot be compared with BETWEEN") }
            let lo = try bindOperand(items[0], kind: kind, entity: entity, alias: alias, c: c)
            let hi = try bindOperand(items[1], kind: kind, entity: entity, alias: alias, c: c)
            if !c.options.isEmpty && isString(kind) {
                return "cs_fold(\(lhs), \(opts)) BETWEEN cs_fold(\(lo), \(opts)) AND cs_fold(\(hi), \(opts))"
            }
            if lhs != original { return "\(lhs) BETWEEN CAST(\(lo) AS BLOB) AND CAST(\(hi) AS BLOB)" }
            return "\(lhs) BETWEEN \(lo) AND \(hi)"
        default:
            throw CoreStackError.invalidPredicate("\(c.op.rawValue) is not supported here")
        }
    }

    /// A long `IN` list: its constants and objects bound as JSON (``SQLiteJSONList``), the same
    /// type checks and encodings as one `?` each. Key paths and SELF in the list stay in an SQL
    /// `IN (…)` list; with `[c]`/`[d]`, both sides go through `cs_fold` (what `cs_match('equals')`
    /// compares), except BLOB-bound text (strings holding NUL), which keeps one `cs_match` each.
    private mutating func jsonIn(
        lhs: String, items: [Expression], kind: Kind, entity: EntityDescription, alias: String, c: Comparison
    ) throws -> [Term] {
        let opts = c.options.rawValue
        let folded = !c.options.isEmpty && isString(kind)
        var terms: [Term] = []
        var expressions: [Term] = []
        var bound: [DatabaseValue] = []
        if items.contains(where: isNull) { terms.append(Term(sql: "\(lhs) IS NULL")) }
        for item in items where !isNull(item) {
            let before = arguments.count
            let sql = try bindOperand(item, kind: kind, entity: entity, alias: alias, c: c)
            let values = takeArguments(from: before)
            if sql == "?", values.count == 1 {
                bound.append(values[0])
            } else {
                // A key path, SELF, or anything else that is SQL: kept with the values it binds.
                expressions.append(Term(sql: sql, arguments: values))
            }
        }
        func isBlob(_ v: DatabaseValue) -> Bool {
            if case .blob = v.storage { return true }
            return false
        }
        if folded {
            for blob in bound where isBlob(blob) {
                terms.append(Term(sql: "cs_match('equals', \(lhs), ?, \(opts))", arguments: [blob]))
            }
            bound.removeAll(where: isBlob)
            for e in expressions { terms.append(Term(sql: "cs_match('equals', \(lhs), \(e.sql), \(opts))", arguments: e.arguments)) }
            expressions.removeAll()
        } else if isString(kind) {
            // BLOBs bound for a string are strings holding NUL (see `text`): compared as text.
            for blob in bound where isBlob(blob) {
                terms.append(Term(sql: "\(lhs) = CAST(? AS TEXT)", arguments: [blob]))
            }
            bound.removeAll(where: isBlob)
        }
        let compared = folded ? "cs_fold(\(lhs), \(opts))" : lhs
        for source in SQLiteJSONList(bound).sources({ folded ? "cs_fold(\($0), \(opts))" : $0 }) {
            terms.append(Term(sql: "\(compared) IN (\(source.sql))", arguments: [source.json.databaseValue]))
        }
        if !expressions.isEmpty {
            terms.append(Term(sql: "\(lhs) IN (\(expressions.map(\.sql).joined(separator: ", ")))", arguments: expressions.flatMap(\.arguments)))
        }
        return terms
    }

    /// A short `IN` list: one `?` per value, in one `IN (…)` (or one `cs_match` each with `[c]`/`[d]`).
    private mutating func shortIn(
        lhs: String, items: [Expression], kind: Kind, entity: EntityDescription, alias: String, c: Comparison
    ) throws -> [Term] {
        let opts = c.options.rawValue
        var terms: [Term] = []
        var values: [String] = []
        var valueArguments: [DatabaseValue] = []
        for item in items {
            if isNull(item) { terms.append(Term(sql: "\(lhs) IS NULL")); continue }
            let before = arguments.count
            let v = try bindOperand(item, kind: kind, entity: entity, alias: alias, c: c)
            let bound = takeArguments(from: before)
            if !c.options.isEmpty && isString(kind) {
                terms.append(Term(sql: "cs_match('equals', \(lhs), \(v), \(opts))", arguments: bound))
            } else {
                values.append(isString(kind) && Self.hasNUL(item) ? "CAST(\(v) AS TEXT)" : v)
                valueArguments += bound
            }
        }
        if !values.isEmpty { terms.append(Term(sql: "\(lhs) IN (\(values.joined(separator: ", ")))", arguments: valueArguments)) }
        return terms
    }

    /// One term of an `IN`: its SQL and the values of its `?`, in order.
    private struct Term {
        var sql: String
        var arguments: [DatabaseValue] = []
    }

    /// Removes and returns the arguments bound from index `start` on.
    private mutating func takeArguments(from start: Int) -> [DatabaseValue] {
        guard start < arguments.count else { return [] }
        let taken = Array(arguments[start...])
        arguments.removeSubrange(start...)
        return taken
    }

    // MARK: - Sorting

    /// The ORDER BY term of a sort descriptor.
    mutating func orderTerm(_ sort: SortDescriptor, entity: EntityDescription, alias: String) throws -> String {
        let comps = sort.key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if try pathHasToMany(comps[...], entity: entity, fullPath: sort.key) {
            throw CoreStackError.invalidFetchRequest("cannot sort on \"\(sort.key)\": it goes through a to-many relationship")
        }
        var (sql, kind) = try scalar(comps[...], entity: entity, alias: alias, fullPath: sort.key)
        if isString(kind) {
            switch sort.comparison {
            case .default: break
            case .caseInsensitive: sql = "cs_fold(\(sql), \(Comparison.Options.caseInsensitive.rawValue))"
            case .caseAndDiacriticInsensitive:
                sql = "cs_fold(\(sql), \(Comparison.Options([.caseInsensitive, .diacriticInsensitive]).rawValue))"
            }
        }
        return sql + (sort.ascending ? " ASC" : " DESC")
    }
}
