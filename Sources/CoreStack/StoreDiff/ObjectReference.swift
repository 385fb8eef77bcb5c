/// An object present in only one store of a ``StoreDiff`` (inserted or deleted).
///
/// ```swift
/// for inserted in entityDiff.inserted { print(inserted.key, inserted.primaryKey) }
/// ```
public struct ObjectReference: Sendable, Hashable {
    /// The value that would match it: its primary key, or its match attribute's value.
    public var key: AttributeValue
    /// Its primary key (`Z_PK`) in the store that has it.
    public var primaryKey: Int64

    /// A reference from its parts.
    ///
    /// ```swift
    /// ObjectReference(key: "978-0441013593", primaryKey: 41)
    /// ```
    public init(key: AttributeValue, primaryKey: Int64) {
        self.key = key
        self.primaryKey = primaryKey
    }
}
