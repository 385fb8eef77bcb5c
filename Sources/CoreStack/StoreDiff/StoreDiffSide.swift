/// One of the two stores of a ``StoreDiff``.
///
/// ```swift
/// let pk = try diff.primaryKey(of: "Author", matching: "Le Guin", in: .old)
/// ```
public enum StoreDiffSide: String, Sendable, Hashable, CaseIterable {
    /// The store before.
    case old
    /// The store after.
    case new
}
