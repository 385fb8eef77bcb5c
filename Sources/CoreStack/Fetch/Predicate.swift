import Foundation

/// A predicate as a typed tree: the one representation that compiles to SQL and evaluates in memory.
///
/// Foundation also declares a `Predicate` (the `#Predicate` macro's type). Where a file imports both,
/// write `CoreStack.Predicate`, or add `typealias Predicate = CoreStack.Predicate` to the module.
///
/// Write it with the operators on ``Expression``:
///
/// ```swift
/// let p: Predicate = .key("title").beginsWith("the", options: .caseInsensitive)
///     && .key("pages") > 100
///     && .key("publisher.name") != nil
/// ```
public indirect enum Predicate: Sendable, Hashable {
    /// `TRUEPREDICATE` / `FALSEPREDICATE`.
    case constant(Bool)
    /// All must hold.
    case and([Predicate])
    /// One must hold.
    case or([Predicate])
    /// Must not hold.
    case not(Predicate)
    /// A comparison of two expressions.
    case comparison(Comparison)

    /// `TRUEPREDICATE`.
    public static let alwaysTrue = Predicate.constant(true)
    /// `FALSEPREDICATE`.
    public static let alwaysFalse = Predicate.constant(false)

    /// A key path, to start a comparison: `.key("title").beginsWith("Du")`.
    public static func key(_ path: String) -> Expression { .keyPath(path) }

    /// `a AND b` (nested ANDs are flattened).
    ///
    /// ```swift
    /// let p: Predicate = .key("pages") > 100 && .key("title").beginsWith("Du")
    /// ```
    public static func && (lhs: Predicate, rhs: Predicate) -> Predicate {
        switch (lhs, rhs) {
        case let (.and(a), .and(b)): .and(a + b)
        case let (.and(a), b): .and(a + [b])
        case let (a, .and(b)): .and([a] + b)
        default: .and([lhs, rhs])
        }
    }

    /// `a OR b` (nested ORs are flattened).
    public static func || (lhs: Predicate, rhs: Predicate) -> Predicate {
        switch (lhs, rhs) {
        case let (.or(a), .or(b)): .or(a + b)
        case let (.or(a), b): .or(a + [b])
        case let (a, .or(b)): .or([a] + b)
        default: .or([lhs, rhs])
        }
    }

    /// The negation of a predicate (`NOT`).
    ///
    /// ```swift
    /// let unread = !(.key("read") == true)
    /// ```
    public static prefix func ! (p: Predicate) -> Predicate { .not(p) }

    /// Every key path the predicate reads (for change tracking and checks against the model).
    public var keyPaths: Set<String> {
        switch self {
        case .constant: []
        case let .and(ps), let .or(ps): ps.reduce(into: []) { $0.formUnion($1.keyPaths) }
        case let .not(p): p.keyPaths
        case let .comparison(c): c.left.keyPaths.union(c.right.keyPaths)
        }
    }
}

/// A comparison: `left op right`, with string options and an aggregate modifier.
public struct Comparison: Sendable, Hashable {
    /// The operator.
    public enum Operator: String, Sendable, Hashable, CaseIterable {
        /// `==`: equal.
        case equal = "=="
        /// `!=`: not equal.
        case notEqual = "!="
        /// `<`: less than.
        case lessThan = "<"
        /// `<=`: less than or equal.
        case lessThanOrEqual = "<="
        /// `>`: greater than.
        case greaterThan = ">"
        /// `>=`: greater than or equal.
        case greaterThanOrEqual = ">="
        /// The left value is one of the right list.
        case `in` = "IN"
        /// The right list holds the left value (`list CONTAINS value`) — for collections.
        case contains = "CONTAINS"
        /// The left string begins with the right one.
        case beginsWith = "BEGINSWITH"
        /// The left string ends with the right one.
        case endsWith = "ENDSWITH"
        /// `*` and `?` wildcards.
        case like = "LIKE"
        /// A regular expression that must match the whole string.
        case matches = "MATCHES"
        /// `BETWEEN {low, high}`, inclusive.
        case between = "BETWEEN"
    }

    /// For a to-many key path on the left: must the comparison hold for any or all of the values.
    public enum Modifier: String, Sendable, Hashable {
        /// No modifier: the key path on the left names one value.
        case direct = ""
        /// `ANY`: the comparison holds for at least one value of the to-many key path.
        case any = "ANY"
        /// `ALL`: the comparison holds for every value of the to-many key path.
        case all = "ALL"
    }

    /// String comparison options: `[c]`, `[d]`, `[cd]`.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The option bits.
        public let rawValue: Int
        /// Options from their bits.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// `[c]`: case-insensitive.
        public static let caseInsensitive = Options(rawValue: 1)
        /// `[d]`: diacritic-insensitive.
        public static let diacriticInsensitive = Options(rawValue: 2)
    }

    /// The left-hand expression (usually a key path).
    public var left: Expression
    /// The operator.
    public var op: Operator
    /// The right-hand expression (usually a constant).
    public var right: Expression
    /// The operator.
    public var options: Options
    /// `ANY`/`ALL` for a to-many key path on the left.
    public var modifier: Modifier

    /// A comparison `left op right`.
    public init(_ left: Expression, _ op: Operator, _ right: Expression, options: Options = [], modifier: Modifier = .direct) {
        self.left = left
        self.op = op
        self.right = right
        self.options = options
        self.modifier = modifier
    }
}

/// One side of a comparison.
public indirect enum Expression: Sendable, Hashable {
    /// A key path from the evaluated object: `"title"`, `"publisher.name"`, `"books.@count"`.
    case keyPath(String)
    /// A constant value.
    case constant(AttributeValue)
    /// A constant object, compared by identity.
    case object(ManagedObjectID)
    /// A list of expressions (`IN {1, 2}`, `BETWEEN {a, b}`).
    case list([Expression])
    /// `SELF`: the evaluated object.
    case evaluatedObject
    /// `$NAME`: a substitution variable (replaced by ``Predicate/withSubstitutionVariables(_:)``),
    /// or inside a `SUBQUERY` the element being tested.
    case variable(String)
    /// `SUBQUERY(collection, $x, predicate)`: the destinations of a to-many key path that match
    /// a predicate, in which `$x` (and key paths `$x.name`) stand for each destination.
    case subquery(collection: String, variable: String, predicate: Predicate)
    /// An aggregate (`@count`, `@sum`, `@avg`, `@min`, `@max`) of a collection expression:
    /// `SUBQUERY(…).@count`. Aggregates of key paths stay in the key path (`books.@count`).
    case aggregate(String, of: Expression)

    /// A key path.
    public static func key(_ path: String) -> Expression { .keyPath(path) }

    var keyPaths: Set<String> {
        switch self {
        case let .keyPath(k): k.hasPrefix("$") ? [] : [k]
        case let .list(items): items.reduce(into: []) { $0.formUnion($1.keyPaths) }
        case let .subquery(collection, _, _): [collection]
        case let .aggregate(_, e): e.keyPaths
        default: []
        }
    }

    // MARK: Building comparisons

    /// `key == value`.
    public static func == (lhs: Expression, rhs: AttributeValue) -> Predicate {
        .comparison(Comparison(lhs, .equal, .constant(rhs)))
    }
    /// `key != value`.
    public static func != (lhs: Expression, rhs: AttributeValue) -> Predicate {
        .comparison(Comparison(lhs, .notEqual, .constant(rhs)))
    }
    /// `key < value`.
    public static func < (lhs: Expression, rhs: AttributeValue) -> Predicate {
        .comparison(Comparison(lhs, .lessThan, .constant(rhs)))
    }
    /// `key <= value`.
    public static func <= (lhs: Expression, rhs: AttributeValue) -> Predicate {
        .comparison(Comparison(lhs, .lessThanOrEqual, .constant(rhs)))
    }
    /// `key > value`.
    public static func > (lhs: Expression, rhs: AttributeValue) -> Predicate {
        .comparison(Comparison(lhs, .greaterThan, .constant(rhs)))
    }
    /// `key >= value`.
    public static func >= (lhs: Expression, rhs: AttributeValue) -> Predicate {
        .comparison(Comparison(lhs, .greaterThanOrEqual, .constant(rhs)))
    }
    /// `key == nil`.
    public static func == (lhs: Expression, rhs: _OptionalNilComparisonType) -> Predicate {
        .comparison(Comparison(lhs, .equal, .constant(.null)))
    }
    /// `key != nil`.
    public static func != (lhs: Expression, rhs: _OptionalNilComparisonType) -> Predicate {
        .comparison(Comparison(lhs, .notEqual, .constant(.null)))
    }
    /// `key == object` for a to-one relationship.
    public static func == (lhs: Expression, rhs: ManagedObjectID) -> Predicate {
        .comparison(Comparison(lhs, .equal, .object(rhs)))
    }

    /// `key BEGINSWITH s` (`options`: `[c]`, `[d]`).
    public func beginsWith(_ s: String, options: Comparison.Options = []) -> Predicate {
        .comparison(Comparison(self, .beginsWith, .constant(.string(s)), options: options))
    }
    /// `key ENDSWITH s`.
    public func endsWith(_ s: String, options: Comparison.Options = []) -> Predicate {
        .comparison(Comparison(self, .endsWith, .constant(.string(s)), options: options))
    }
    /// `key CONTAINS s`.
    public func contains(_ s: String, options: Comparison.Options = []) -> Predicate {
        .comparison(Comparison(self, .contains, .constant(.string(s)), options: options))
    }
    /// `key LIKE pattern` (`*` and `?` wildcards).
    public func like(_ pattern: String, options: Comparison.Options = []) -> Predicate {
        .comparison(Comparison(self, .like, .constant(.string(pattern)), options: options))
    }
    /// `key MATCHES regex` (ICU regular expression, whole string).
    public func matches(_ regex: String, options: Comparison.Options = []) -> Predicate {
        .comparison(Comparison(self, .matches, .constant(.string(regex)), options: options))
    }
    /// `key IN {values}`.
    public func `in`(_ values: [AttributeValue]) -> Predicate {
        .comparison(Comparison(self, .in, .list(values.map { .constant($0) })))
    }
    /// `key BETWEEN {low, high}` (both ends included).
    public func between(_ low: AttributeValue, _ high: AttributeValue) -> Predicate {
        .comparison(Comparison(self, .between, .list([.constant(low), .constant(high)])))
    }
    /// `equal` with string options (`title ==[c] "dune"`).
    public func equals(_ value: AttributeValue, options: Comparison.Options) -> Predicate {
        .comparison(Comparison(self, .equal, .constant(value), options: options))
    }
}
