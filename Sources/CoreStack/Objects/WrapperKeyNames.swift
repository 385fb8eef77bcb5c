/// The keys given to ``Attribute`` wrappers at run time, interned: each distinct text gets an
/// index for the rest of the process (a program has few such keys; the table only grows).
///
/// ```swift
/// let i = WrapperKeyNames.index(of: "title")
/// WrapperKeyNames.name(at: i)   // "title"
/// ```
enum WrapperKeyNames {
    private static let table = LockedValue<(indices: [String: Int], names: [String])>(([:], []))

    /// The index of `name`, added if new.
    static func index(of name: String) -> Int {
        table.withLock { t in
            if let i = t.indices[name] { return i }
            let i = t.names.count
            t.names.append(name)
            t.indices[name] = i
            return i
        }
    }

    /// The name at `index` (empty for an index never handed out).
    static func name(at index: Int) -> String {
        table.withLock { t in t.names.indices.contains(index) ? t.names[index] : "" }
    }
}
