import Foundation

/// Evaluates predicates in memory, on managed objects (for pending changes) or on any source of
/// key-path values (the in-memory store's rows). Its answers match the SQL compiler's.
///
/// ```swift
/// let matches = try PredicateEvaluator.evaluate(.key("pages") > 100, on: book)
/// ```
public enum PredicateEvaluator {
    /// Evaluates a predicate on an object (firing faults along key paths as needed).
    public static func evaluate(_ predicate: Predicate, on object: ManagedObject) throws -> Bool {
        try evaluate(predicate, on: ObjectSubject(object: object))
    }

    static func evaluate<S: EvaluationSubject>(_ predicate: Predicate, on subject: S, bindings: [String: ManagedObjectID] = [:]) throws -> Bool {
        switch predicate {
        case let .constant(b): return b
        case let .and(ps):
            for p in ps where try !evaluate(p, on: subject, bindings: bindings) { return false }
            return true
        case let .or(ps):
            for p in ps where try evaluate(p, on: subject, bindings: bindings) { return true }
            return false
        case let .not(p): return try !evaluate(p, on: subject, bindings: bindings)
        case let .comparison(c): return try compare(c, on: subject, bindings: bindings)
        }
    }

    // MARK: Comparisons

    private static func compare<S: EvaluationSubject>(_ c: Comparison, on subject: S, bindings: [String: ManagedObjectID]) throws -> Bool {
        let left = try resolve(c.left, on: subject, bindings: bindings)
        let right = try resolve(c.right, on: subject, bindings: bindings)
        switch c.modifier {
        case .any:
            return try left.elements.contains { try test($0, c, right) }
        case .all:
            return try left.elements.allSatisfy { try test($0, c, right) }
        case .direct:
            // A to-many key path without ANY behaves as ANY, as in Core Data's SQL — except
            // `relationship CONTAINS object`, which asks whether the collection holds the object.
            if case let .collection(items) = left, c.op != .contains || items.contains(where: { if case .scalar = $0 { true } else { false } }) {
                return try items.contains { try test($0, c, right) }
            }
            return try test(left, c, right)
        }
    }

    static func test(_ left: EvalValue, _ c: Comparison, _ right: EvalValue) throws -> Bool {
        switch c.op {
        case .in:
            return right.elements.contains { equal(left, $0, c.options) }
        case .between:
            let bounds = right.elements
            guard bounds.count == 2 else { throw CoreStackError.invalidPredicate("BETWEEN needs two values") }
            return ordered(left, bounds[0], c.options, { $0 != .orderedAscending })
                && ordered(left, bounds[1], c.options, { $0 != .orderedDescending })
        case .contains:
            if case let .collection(items) = left {
                return items.contains { equal($0, right, c.options) }
            }
            if case .object = left { return equal(left, right, c.options) }
            return stringTest(left, right) { StringMatching.contains($0, $1, options: c.options) }
        case .equal: return equal(left, right, c.options)
        case .notEqual: return !equal(left, right, c.options)
        case .lessThan: return ordered(left, right, c.options, { $0 == .orderedAscending })
        case .lessThanOrEqual: return ordered(left, right, c.options, { $0 != .orderedDescending })
        case .greaterThan: return ordered(left, right, c.options, { $0 == .orderedDescending })
        case .greaterThanOrEqual: return ordered(left, right, c.options, { $0 != .orderedAscending })
        case .beginsWith: return stringTest(left, right) { StringMatching.beginsWith($0, $1, options: c.options) }
        case .endsWith: return stringTest(left, right) { StringMatching.endsWith($0, $1, options: c.options) }
        case .like: return stringTest(left, right) { StringMatching.like($1, $0, options: c.options) }
        case .matches: return stringTest(left, right) { StringMatching.matches($1, $0, options: c.options) }
        }
    }

    private static func stringTest(_ left: EvalValue, _ right: EvalValue, _ f: (String, String) -> Bool) -> Bool {
        guard case let .scalar(.string(l)) = left, case let .scalar(.string(r)) = right else { return false }
        return f(l, r)
    }

    static func equal(_ a: EvalValue, _ b: EvalValue, _ options: Comparison.Options) -> Bool {
        switch (a, b) {
        case let (.object(x), .object(y)): return x == y
        case let (.object(x), .scalar(.null)), let (.scalar(.null), .object(x)): return x == nil
        case let (.scalar(.string(x)), .scalar(.string(y))) where !options.isEmpty:
            return StringMatching.equals(x, y, options: options)
        case let (.scalar(x), .scalar(y)):
            if x.isNull || y.isNull { return x.isNull && y.isNull }
            return x.compare(to: y) == .orderedSame
        default: return false
        }
    }

    private static func ordered(
        _ a: EvalValue, _ b: EvalValue, _ options: Comparison.Options, _ accept: (ComparisonResult) -> Bool
    ) -> Bool {
        guard case var .scalar(x) = a, case var .scalar(y) = b, !x.isNull, !y.isNull else { return false }
        if !options.isEmpty, case let .string(l) = x, case let .string(r) = y {
            // As SQL's cs_fold on both sides.
            x = .string(StringMatching.fold(l, options: options))
            y = .string(StringMatching.fold(r, options: options))
        }
        guard let r = x.compare(to: y) else { return false }
        return accept(r)
    }

    // MARK: Resolving expressions

    static func resolve<S: EvaluationSubject>(_ e: Expression, on subject: S, bindings: [String: ManagedObjectID] = [:]) throws -> EvalValue {
        switch e {
        case let .constant(v): return .scalar(v)
        case let .object(id): return .object(id)
        case let .list(items): return .collection(try items.map { try resolve($0, on: subject, bindings: bindings) })
        case .evaluatedObject: return .object(subject.selfID)
        case let .variable(name):
            guard let id = bindings[name] else {
                throw CoreStackError.invalidPredicate("the variable $\(name) has no value (substitute it first)")
            }
            return .object(id)
        case let .keyPath(path):
            var parts = path.split(separator: ".").map(String.init)
            if let first = parts.first, first.hasPrefix("$") {
                let name = String(first.dropFirst())
                guard let id = bindings[name] else {
                    throw CoreStackError.invalidPredicate("the variable $\(name) has no value (substitute it first)")
                }
                parts.removeFirst()
                return try subject.subject(for: id).value(forKeyPath: parts)
            }
            return try subject.value(forKeyPath: parts)
        case let .subquery(collection, variable, predicate):
            let members = try resolve(.keyPath(collection), on: subject, bindings: bindings)
            var kept: [EvalValue] = []
            for member in members.elements {
                guard case let .object(id?) = member else { continue }
                var inner = bindings
                inner[variable] = id
                if try evaluate(predicate, on: subject.subject(for: id), bindings: inner) { kept.append(member) }
            }
            return .collection(kept)
        case let .aggregate(function, of: inner):
            return try ObjectSubject.aggregate(function, try resolve(inner, on: subject, bindings: bindings), [])
        }
    }
}

/// A value met while evaluating: a scalar, an object reference, or a collection.
enum EvalValue {
    case scalar(AttributeValue)
    case object(ManagedObjectID?)
    case collection([EvalValue])

    var elements: [EvalValue] {
        if case let .collection(items) = self { return items }
        return [self]
    }
}

/// Something key paths can be read from.
protocol EvaluationSubject {
    var selfID: ManagedObjectID? { get }
    func value(forKeyPath path: [String]) throws -> EvalValue
    /// The same kind of subject for another object (for `$x` in subqueries).
    func subject(for id: ManagedObjectID) throws -> Self
}

/// Reads key paths from a managed object, through its relationships.
struct ObjectSubject: EvaluationSubject {
    let object: ManagedObject

    var selfID: ManagedObjectID? { object.objectID }

    func subject(for id: ManagedObjectID) throws -> ObjectSubject {
        guard let context = object.managedObjectContext else {
            throw CoreStackError.objectNotFound("\(object.objectID) is not in a context")
        }
        return ObjectSubject(object: try context.object(with: id))
    }

    func value(forKeyPath path: [String]) throws -> EvalValue {
        try Self.walk(.object(object.objectID), objects: [object], path[...], context: object.managedObjectContext)
    }

    private static func walk(
        _ current: EvalValue, objects: [ManagedObject], _ path: ArraySlice<String>, context: ManagedObjectContext?
    ) throws -> EvalValue {
        guard let key = path.first else { return current }
        let rest = path.dropFirst()
        if key.hasPrefix("@") {
            return try aggregate(key, current, rest)
        }
        if case .collection = current {
            // Walk each member up to an aggregate, flatten, then aggregate the whole.
            let cut = path.firstIndex { $0.hasPrefix("@") } ?? path.endIndex
            var out: [EvalValue] = []
            for o in objects {
                let v = try walk(.object(o.objectID), objects: [o], path[..<cut], context: context)
                out.append(contentsOf: v.elements)
            }
            guard cut < path.endIndex else { return .collection(out) }
            return try aggregate(path[cut], .collection(out), path[(cut + 1)...])
        }
        guard let object = objects.first else { return .scalar(.null) }
        if let slot = object.entity.attributeSlots[key] {
            let v = try object.attributeValue(forKey: object.entity.allAttributes[slot].name)
            guard rest.isEmpty else {
                if let agg = rest.first, agg.hasPrefix("@") { return try aggregate(agg, .scalar(v), rest.dropFirst()) }
                throw CoreStackError.invalidPredicate("\(object.entity.name).\(key) is an attribute; the key path cannot go on")
            }
            return .scalar(v)
        }
        guard let slot = object.entity.relationshipSlots[key] else {
            throw CoreStackError.unknownKey(entity: object.entity.name, key: key)
        }
        let r = object.entity.allRelationships[slot]
        let ids = try object.destinationIDs(slot: slot)
        guard let context else { throw CoreStackError.objectNotFound("\(object.objectID) is not in a context") }
        if !r.isToMany {
            guard let id = ids.first else {
                return rest.isEmpty ? .object(nil) : .scalar(.null)
            }
            if rest.isEmpty { return .object(id) }
            let dest = try context.object(with: id)
            return try walk(.object(id), objects: [dest], rest, context: context)
        }
        let dests = try ids.map { try context.object(with: $0) }
        if rest.isEmpty { return .collection(ids.map { .object($0) }) }
        return try walk(.collection(ids.map { .object($0) }), objects: dests, rest, context: context)
    }

    static func aggregate(_ key: String, _ current: EvalValue, _ rest: ArraySlice<String>) throws -> EvalValue {
        let items = current.elements
        let numbers = items.compactMap { v -> AttributeValue? in
            if case let .scalar(s) = v, !s.isNull { return s }
            return nil
        }
        let result: AttributeValue
        switch key.lowercased() {
        case "@count": result = .integer(Int64(items.count))
        case "@sum":
            if numbers.allSatisfy({ if case .integer = $0 { true } else { false } }) {
                result = .integer(numbers.reduce(0) { $0 + ($1.integerValue ?? 0) })
            } else {
                result = .double(numbers.reduce(0) { $0 + ($1.doubleValue ?? 0) })
            }
        case "@avg":
            result = numbers.isEmpty ? .null : .double(numbers.reduce(0) { $0 + ($1.doubleValue ?? 0) } / Double(numbers.count))
        case "@min": result = numbers.min { ($0.compare(to: $1) ?? .orderedSame) == .orderedAscending } ?? .null
        case "@max": result = numbers.max { ($0.compare(to: $1) ?? .orderedSame) == .orderedAscending } ?? .null
        default: throw CoreStackError.invalidPredicate("unknown aggregate \(key)")
        }
        guard rest.isEmpty else { throw CoreStackError.invalidPredicate("the key path cannot go on after \(key)") }
        return .scalar(result)
    }
}
