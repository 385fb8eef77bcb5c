import Foundation

/// Checks a predicate against the entity it filters, before it runs in SQL or in memory, so both
/// paths reject the same predicates with the same typed errors:
/// ``CoreStackError/unknownKey(entity:key:)`` for a key the model lacks, and
/// ``CoreStackError/invalidPredicate(_:)`` for a type mismatch (a string compared with a date), a
/// misplaced aggregate, a to-many key path where one value is needed, or an unsubstituted variable.
///
/// ```swift
/// try PredicateValidator.validate(Predicate(format: "published < %@", "yesterday"), entity: book)
/// // throws invalidPredicate("cannot compare Book.published (Date) with a String (\"yesterday\") using <")
/// ```
public enum PredicateValidator {
    /// Throws when `predicate` cannot be evaluated on objects of `entity`.
    public static func validate(_ predicate: Predicate, entity: EntityDescription) throws {
        var checker = Checker()
        try checker.check(predicate, entity: entity)
    }

    /// What a key path or operand stands for, one value at a time.
    enum Kind {
        /// An attribute; `path` is the key path as written, `owner` the entity declaring it.
        case attribute(AttributeDescription, owner: EntityDescription, path: String)
        /// An object of an entity (a relationship, SELF or a subquery variable).
        case object(EntityDescription, path: String)
        /// `@count`.
        case count(path: String)

        var isString: Bool {
            if case let .attribute(a, _, _) = self { return a.type == .string || a.type == .uri }
            return false
        }

        var isObject: Bool {
            if case .object = self { return true }
            return false
        }

        var description: String {
            switch self {
            case let .attribute(a, owner, path):
                path.contains(".") ? "\(path) (\(owner.name).\(a.name), \(a.type.xcodeName))" : "\(owner.name).\(a.name) (\(a.type.xcodeName))"
            case let .object(e, path): path == "SELF" ? "SELF (a \(e.name))" : "\(path) (a \(e.name) object)"
            case let .count(path): "\(path) (a count)"
            }
        }
    }

    /// Whether a constant can be compared with a value of `kind` — the one rule SQL binding and
    /// in-memory evaluation share.
    static func fits(_ v: AttributeValue, _ kind: Kind) -> Bool {
        switch kind {
        case .count:
            switch v {
            case .integer, .double, .bool, .decimal: return true
            default: return false
            }
        case .object:
            return false
        case let .attribute(a, _, _):
            switch a.type {
            case .integer16, .integer32, .integer64, .double, .float, .decimal, .boolean:
                switch v {
                case .integer, .double, .bool, .decimal: return true
                default: return false
                }
            case .string: return v.stringValue != nil
            case .uri: return v.urlValue != nil || v.stringValue != nil
            case .date: return v.dateValue != nil
            case .uuid: return v.uuidValue != nil
            case .binaryData, .transformable: return v.dataValue != nil
            case .undefined, .objectID: return false
            }
        }
    }

    /// The error for a constant that does not fit.
    static func mismatch(_ kind: Kind, _ v: AttributeValue, _ op: Comparison.Operator) -> CoreStackError {
        .invalidPredicate("cannot compare \(kind.description) with \(v.kindDescription) (\(PredicateExcerpt.clip(v.description, limit: 60))) using \(op.rawValue)")
    }

    struct Checker {
        /// Subquery variables in scope, with the entity each stands for.
        var variables: [String: EntityDescription] = [:]

        mutating func check(_ predicate: Predicate, entity: EntityDescription) throws {
            switch predicate {
            case .constant: return
            case let .and(ps), let .or(ps): for p in ps { try check(p, entity: entity) }
            case let .not(p): try check(p, entity: entity)
            case let .comparison(c): try comparison(c, entity: entity)
            }
        }

        private func isPathLike(_ e: Expression) -> Bool {
            switch e {
            case .keyPath, .evaluatedObject, .aggregate: return true
            case let .variable(v): return variables[v] != nil
            default: return false
            }
        }

        private func unsubstituted(_ e: Expression) throws {
            switch e {
            case let .variable(v) where variables[v] == nil:
                throw CoreStackError.invalidPredicate("the variable $\(v) was not substituted")
            case let .keyPath(k) where k.hasPrefix("$"):
                let name = String(k.dropFirst().prefix { $0 != "." })
                if variables[name] == nil { throw CoreStackError.invalidPredicate("the variable $\(name) was not substituted") }
            case let .list(items):
                for i in items { try unsubstituted(i) }
            default: return
            }
        }

        private mutating func comparison(_ original: Comparison, entity: EntityDescription) throws {
            try unsubstituted(original.left)
            try unsubstituted(original.right)
            let c = try original.withKeyPathOnLeft(entity: entity, isPathLike: isPathLike)
            let kind = try leftKind(c.left, entity: entity)
            if original.modifier != .direct { try modifierTarget(c, entity: entity) } else { try toManyWithNil(c, entity: entity) }
            try operands(c, kind: kind, entity: entity)
        }

        /// A to-many relationship compared with nil (`authors == nil`) is refused, as Core Data
        /// refuses it: a to-many relationship is a set, empty or not, never nil, so the comparison
        /// would silently match nothing (or everything); the error says what to write instead.
        private func toManyWithNil(_ c: Comparison, entity: EntityDescription) throws {
            guard c.op == .equal || c.op == .notEqual, case .constant(.null) = c.right, case let .keyPath(path) = c.left else { return }
            var comps = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)[...]
            var owner = entity
            if let first = comps.first, first.hasPrefix("$") {
                guard let ve = variables[String(first.dropFirst())] else { return }
                owner = ve
                comps = comps.dropFirst()
            }
            guard let last = comps.last else { return }
            for name in comps.dropLast() {
                guard let slot = owner.relationshipSlots[name] else { return }
                owner = owner.destinations[slot]
            }
            guard let slot = owner.relationshipSlots[last], owner.allRelationships[slot].isToMany else { return }
            let want = c.op == .equal ? "none, use \(path).@count == 0" : "some, use \(path).@count > 0"
            throw CoreStackError.invalidPredicate(
                "\"\(PredicateExcerpt.clip(path, limit: 60))\" of \(entity.name) is a to-many relationship, never nil: to find \(entity.name) objects with \(want)")
        }

        /// `ANY`, `ALL` and `NONE` need a key path through a to-many relationship: on one value
        /// (an attribute, a to-one, an aggregate, SELF) they would silently mean the plain comparison.
        private func modifierTarget(_ c: Comparison, entity: EntityDescription) throws {
            let word = c.modifier == .all ? "ALL" : "ANY"
            switch c.left {
            case let .keyPath(path):
                let r = try keyPath(path, entity: entity)
                guard !r.toMany else { return }
                throw CoreStackError.invalidPredicate(
                    "\(word) needs a to-many relationship in its key path, but \"\(PredicateExcerpt.clip(path, limit: 60))\" of \(entity.name) "
                        + "reaches one value (\(r.kind.description)); drop \(word) or use a to-many key path")
            default:
                throw CoreStackError.invalidPredicate("\(word) needs a to-many key path on its left side, not a single value")
            }
        }

        /// The kind of each value the left side gives.
        private mutating func leftKind(_ e: Expression, entity: EntityDescription) throws -> Kind {
            switch e {
            case .evaluatedObject:
                return .object(entity, path: "SELF")
            case let .variable(v):
                guard let ve = variables[v] else { throw CoreStackError.invalidPredicate("the variable $\(v) was not substituted") }
                return .object(ve, path: "$" + v)
            case let .keyPath(path):
                return try keyPath(path, entity: entity).kind
            case let .aggregate(fn, of: inner):
                switch inner {
                case let .subquery(collection, variable, predicate):
                    guard fn.lowercased() == "@count" else {
                        throw CoreStackError.invalidPredicate("only @count can follow a SUBQUERY, not \(fn)")
                    }
                    let r = try keyPath(collection, entity: entity)
                    guard case let .object(dest, _) = r.kind else {
                        throw CoreStackError.invalidPredicate("the SUBQUERY collection \"\(collection)\" must be a relationship of \(entity.name)")
                    }
                    let saved = variables
                    defer { variables = saved }
                    variables[variable] = dest
                    try check(predicate, entity: dest)
                    return .count(path: "SUBQUERY(\(collection), $\(variable), …).@count")
                case let .keyPath(path):
                    return try keyPath(path + "." + fn, entity: entity).kind
                default:
                    throw CoreStackError.invalidPredicate("\(fn) needs a key path or a SUBQUERY before it")
                }
            default:
                throw CoreStackError.invalidPredicate("unsupported left side of a comparison")
            }
        }

        /// Resolves a key path: the kind of its values and whether it goes through a to-many
        /// relationship (without ending in an aggregate).
        func keyPath(_ path: String, entity root: EntityDescription) throws -> (kind: Kind, toMany: Bool) {
            var comps = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)[...]
            var entity = root
            if let first = comps.first, first.hasPrefix("$") {
                let name = String(first.dropFirst())
                guard let ve = variables[name] else { throw CoreStackError.invalidPredicate("the variable $\(name) was not substituted") }
                entity = ve
                comps = comps.dropFirst()
                if comps.isEmpty { return (.object(ve, path: path), false) }
            }
            var kind: Kind?
            var toMany = false
            var lastAttribute: (AttributeDescription, EntityDescription)?
            for (i, name) in zip(comps.indices, comps) {
                let isLast = i == comps.index(before: comps.endIndex)
                if name.isEmpty { throw CoreStackError.invalidPredicate("empty key in the key path \"\(path)\"") }
                if name.hasPrefix("@") {
                    guard isLast else { throw CoreStackError.invalidPredicate("nothing may follow \(name) in \"\(path)\"") }
                    guard toMany else {
                        throw CoreStackError.invalidPredicate("\(name) must follow a to-many relationship in \"\(path)\"")
                    }
                    switch name.lowercased() {
                    case "@count":
                        return (.count(path: path), false)
                    case "@sum", "@avg", "@min", "@max":
                        guard let (a, owner) = lastAttribute else {
                            throw CoreStackError.invalidPredicate("\(name) needs an attribute before it in \"\(path)\" (e.g. books.pages\(name))")
                        }
                        let numeric = a.type.isNumeric || a.type == .boolean
                        let orderable = numeric || a.type == .date || a.type == .string
                        guard name.lowercased() == "@min" || name.lowercased() == "@max" ? orderable : numeric else {
                            throw CoreStackError.invalidPredicate("\(name) needs numbers; \(owner.name).\(a.name) is \(a.type.xcodeName) in \"\(path)\"")
                        }
                        return (.attribute(a, owner: owner, path: path), false)
                    default:
                        throw CoreStackError.invalidPredicate("unknown aggregate \(name) in \"\(path)\"")
                    }
                }
                if lastAttribute != nil {
                    throw CoreStackError.invalidPredicate("\"\(path)\" continues past the attribute \(lastAttribute.map { "\($0.1.name).\($0.0.name)" } ?? "")")
                }
                if let slot = entity.attributeSlots[name] {
                    let a = entity.allAttributes[slot]
                    if a.isTransient { throw CoreStackError.invalidPredicate("\(entity.name).\(name) is transient and cannot be fetched on") }
                    lastAttribute = (a, entity)
                    kind = .attribute(a, owner: entity, path: path)
                } else if let slot = entity.relationshipSlots[name] {
                    let r = entity.allRelationships[slot]
                    if r.isTransient { throw CoreStackError.invalidPredicate("\(entity.name).\(name) is transient and cannot be fetched on") }
                    if r.isToMany { toMany = true }
                    entity = entity.destinations[slot]
                    kind = .object(entity, path: path)
                } else {
                    throw CoreStackError.unknownKey(entity: entity.name, key: name)
                }
            }
            guard let kind else { throw CoreStackError.invalidPredicate("empty key path") }
            return (kind, toMany)
        }

        private func entitiesMatch(_ a: EntityDescription, _ b: EntityDescription) -> Bool {
            a.isKind(of: b) || b.isKind(of: a)
        }

        /// Checks the right side against the kind of the left.
        private func operand(_ e: Expression, kind: Kind, c: Comparison, entity: EntityDescription) throws {
            switch e {
            case .constant(.null):
                return
            case let .constant(v):
                guard fits(v, kind) else { throw mismatch(kind, v, c.op) }
            case let .object(id):
                guard case let .object(dest, _) = kind else {
                    throw CoreStackError.invalidPredicate("cannot compare \(kind.description) with the object \(id) using \(c.op.rawValue)")
                }
                guard entitiesMatch(id.entity, dest) else {
                    throw CoreStackError.invalidPredicate("cannot compare \(kind.description) with \(id), a \(id.entity.name) object")
                }
            case .evaluatedObject, .variable:
                let other: EntityDescription
                if case let .variable(v) = e, let ve = variables[v] { other = ve } else { other = entity }
                guard case let .object(dest, _) = kind, entitiesMatch(other, dest) else {
                    throw CoreStackError.invalidPredicate("cannot compare \(kind.description) with an object of \(other.name) using \(c.op.rawValue)")
                }
            case let .keyPath(path):
                let r = try keyPath(path, entity: entity)
                if r.toMany {
                    throw CoreStackError.invalidPredicate("the right side \"\(path)\" must not go through a to-many relationship (use ANY on the left, or an aggregate)")
                }
                let compatible: Bool
                switch (kind, r.kind) {
                case let (.attribute(a, _, _), .attribute(b, _, _)):
                    compatible = a.type == b.type || (a.type.isNumeric && b.type.isNumeric) || (kind.isString && r.kind.isString)
                case let (.count, .attribute(b, _, _)), let (.attribute(b, _, _), .count):
                    compatible = b.type.isNumeric
                case (.count, .count): compatible = true
                case let (.object(x, _), .object(y, _)): compatible = entitiesMatch(x, y)
                default: compatible = false
                }
                guard compatible else {
                    throw CoreStackError.invalidPredicate("cannot compare \(kind.description) with \(r.kind.description) using \(c.op.rawValue)")
                }
            case .list:
                throw CoreStackError.invalidPredicate("a list can only follow IN or BETWEEN")
            case .subquery, .aggregate:
                throw CoreStackError.invalidPredicate("a SUBQUERY can only be the left side of a comparison")
            }
        }

        private func operands(_ c: Comparison, kind: Kind, entity: EntityDescription) throws {
            switch c.op {
            case .beginsWith, .endsWith, .like, .matches, .contains:
                if c.op == .contains, kind.isObject {
                    return try operand(c.right, kind: kind, c: c, entity: entity)
                }
                if c.op == .matches, case let .constant(.string(pattern)) = c.right, !PredicateParser.isValidRegex(pattern) {
                    throw CoreStackError.invalidPredicate(
                        "MATCHES needs a valid regular expression (ICU syntax); \"\(PredicateExcerpt.clip(pattern))\" is not one")
                }
                guard kind.isString else {
                    throw CoreStackError.invalidPredicate("\(c.op.rawValue) needs a String on its left, not \(kind.description)")
                }
                try operand(c.right, kind: kind, c: c, entity: entity)
            case .equal, .notEqual:
                try operand(c.right, kind: kind, c: c, entity: entity)
            case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
                if kind.isObject { throw CoreStackError.invalidPredicate("\(kind.description): objects cannot be ordered with \(c.op.rawValue)") }
                try operand(c.right, kind: kind, c: c, entity: entity)
            case .in:
                guard case let .list(items) = c.right else {
                    throw CoreStackError.invalidPredicate("IN needs a list or a to-many key path on its right side, not \(PredicateExcerpt.clip("\(c.right)", limit: 60))")
                }
                for i in items { try operand(i, kind: kind, c: c, entity: entity) }
            case .between:
                guard case let .list(items) = c.right, items.count == 2 else {
                    throw CoreStackError.invalidPredicate("BETWEEN needs a list of two values")
                }
                if kind.isObject { throw CoreStackError.invalidPredicate("\(kind.description): objects cannot be compared with BETWEEN") }
                for i in items { try operand(i, kind: kind, c: c, entity: entity) }
            }
        }
    }
}
