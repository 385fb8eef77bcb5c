import Foundation

/// One conflict handed to a ``CustomMergePolicy``: its snapshots, and the values the save will
/// write for the properties either side changed, which the policy's closure edits.
///
/// ```swift
/// drafts[i].choose(.store, for: "title")
/// drafts[i].values["pages"] = .attribute(.integer(500))
/// ```
public struct ConflictResolutionDraft: Sendable {
    /// Which side's value to take.
    public enum Side: Sendable, Hashable {
        /// The saving context's value (``MergeConflict/objectSnapshot``).
        case context
        /// The store's current value (``MergeConflict/persistedSnapshot``).
        case store
        /// The value the context had read (``MergeConflict/cachedSnapshot``).
        case cached
    }

    /// The conflict, with all its snapshots.
    public let conflict: MergeConflict
    /// The values the save writes, by property name: at first the context's value for each
    /// property it changed and the store's for each property only the store changed. Properties
    /// not listed keep the store's value. Attributes take ``PropertyValue/attribute(_:)`` values of
    /// the attribute's type, to-one relationships ``PropertyValue/toOne(_:)``.
    public var values: [String: PropertyValue]

    init(conflict: MergeConflict) {
        self.conflict = conflict
        var values: [String: PropertyValue] = [:]
        let mine = Set(conflict.contextChangedKeys)
        for key in conflict.changedKeys {
            values[key] = mine.contains(key) ? conflict.objectSnapshot[key] : conflict.persistedSnapshot?[key]
        }
        self.values = values
    }

    /// Makes `side`'s value of `key` the one written (a side without the key leaves it as it is).
    ///
    /// ```swift
    /// draft.choose(.context, for: "title")
    /// ```
    public mutating func choose(_ side: Side, for key: String) {
        let source: [String: PropertyValue]?
        switch side {
        case .context: source = conflict.objectSnapshot
        case .store: source = conflict.persistedSnapshot
        case .cached: source = conflict.cachedSnapshot
        }
        if let v = source?[key] { values[key] = v }
    }
}
