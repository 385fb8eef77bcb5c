/// How the objects of one entity were matched between the two stores of a ``StoreDiff``.
///
/// ```swift
/// switch entityDiff.match {
/// case .primaryKey: print("same store: matched by Z_PK")
/// case let .attribute(name, source): print("matched by \(name) (\(source))")
/// case let .unmatched(reason): print("not compared: \(reason)")
/// }
/// ```
public enum StoreDiffMatch: Sendable, Hashable, CustomStringConvertible {
    /// By primary key (`Z_PK`): both files are the same store (same store UUID).
    case primaryKey
    /// By the value of an attribute (its name in the new model; several joined by commas for a
    /// compound key, `title,year`); `source` says why that attribute:
    /// `given` (`--key`), `uniqueness constraint`, `UUID attribute`.
    case attribute(name: String, source: String)
    /// Not compared: nothing identifies its objects across the two stores.
    case unmatched(reason: String)

    /// One line: `primary key (same store)`, `attribute isbn (given)`, `not matched: …`.
    ///
    /// ```swift
    /// StoreDiffMatch.primaryKey.description   // "primary key (same store)"
    /// ```
    public var description: String {
        switch self {
        case .primaryKey: "primary key (same store)"
        case let .attribute(name, source): "attribute \(name) (\(source))"
        case let .unmatched(reason): "not matched: \(reason)"
        }
    }

    /// Whether the entity's objects were compared.
    public var isMatched: Bool {
        if case .unmatched = self { false } else { true }
    }
}
