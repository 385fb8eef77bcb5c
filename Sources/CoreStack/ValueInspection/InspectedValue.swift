import Foundation

/// One node of a decoded binary value: what ``ValueInspector`` found inside a keyed archive, a
/// property list or a JSON document, as a tree.
///
/// Collections keep the class the archive named (`NSMutableSet`, `NSOrderedSet`…), nil for
/// plain property lists and JSON. An archived object met a second time (shared, or a cycle back
/// to an ancestor) is a ``reference(index:className:)`` to its `$objects` number instead of a
/// second copy, and a bound of ``ValueInspectionLimits`` reached leaves an ``elided(_:)`` node.
///
/// ```swift
/// let inspection = ValueInspector.inspect(try JSONSerialization.data(withJSONObject: [1, 2]))
/// inspection.value  // .array(className: nil, items: [.integer(1), .integer(2)])
/// ```
public indirect enum InspectedValue: Sendable, Equatable {
    /// `$null`, `NSNull`, JSON `null`.
    case null
    /// A Boolean (`NSNumber` of a `BOOL`, JSON `true`/`false`, a plist `<true/>`).
    case bool(Bool)
    /// An integer.
    case integer(Int)
    /// A floating-point number.
    case real(Double)
    /// A string.
    case string(String)
    /// A date (an archived `NSDate`, a plist `<date>`).
    case date(Date)
    /// Bytes (themselves inspectable with ``ValueInspector/inspect(_:limits:)``).
    case data(Data)
    /// A UUID (an archived `NSUUID`).
    case uuid(UUID)
    /// A URL as its string (an archived `NSURL` with its base resolved).
    case url(String)
    /// An array, set or ordered set (the archive's class name, nil for property lists and JSON).
    case array(className: String?, items: [InspectedValue])
    /// A dictionary in its stored order (sorted by key for JSON).
    case dictionary(className: String?, entries: [InspectedEntry])
    /// An archived instance of any other class, or a decoded Foundation value with fields of its own.
    case object(InspectedObject)
    /// An archived object already shown elsewhere in the tree (shared or a cycle): its `$objects` number.
    case reference(index: Int, className: String)
    /// A bound was reached here; the text says which.
    case elided(String)
    /// The last child of a collection cut at the node bound (`limit`, ``ValueInspectionLimits/maximumNodes``):
    /// how many of its values were left out (counted, not decoded).
    case truncated(remaining: Int, limit: Int)

    /// How many direct children the node has (items, entries or fields).
    ///
    /// ```swift
    /// InspectedValue.array(className: nil, items: [.null]).childCount  // 1
    /// ```
    public var childCount: Int {
        switch self {
        case let .array(_, items): items.count
        case let .dictionary(_, entries): entries.count
        case let .object(o): o.fields.count
        default: 0
        }
    }

    /// How many items, entries or fields the collection holds: ``childCount``, with a last
    /// ``truncated(remaining:limit:)`` child counted as the values it stands for.
    ///
    /// ```swift
    /// InspectedValue.array(className: nil, items: [.null, .truncated(remaining: 9, limit: 2)]).declaredCount  // 10
    /// ```
    public var declaredCount: Int {
        let last: InspectedValue?
        switch self {
        case let .array(_, items): last = items.last
        case let .dictionary(_, entries): last = entries.last?.value
        case let .object(o): last = o.fields.last?.value
        default: return 0
        }
        if case let .truncated(remaining, _)? = last { return childCount - 1 + remaining }
        return childCount
    }
}
