/// One key and value of a decoded dictionary.
///
/// ```swift
/// InspectedEntry(key: .string("name"), value: .string("Ada"))
/// ```
public struct InspectedEntry: Sendable, Equatable {
    /// The key (a string in property lists and JSON; any value in an archived dictionary).
    public var key: InspectedValue
    /// The value.
    public var value: InspectedValue

    /// Creates an entry.
    public init(key: InspectedValue, value: InspectedValue) {
        self.key = key
        self.value = value
    }
}
