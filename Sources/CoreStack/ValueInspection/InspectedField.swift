/// One named field of a decoded archived object (its key in the archive, or a name the decoder
/// gave a Foundation value's part: `location`, `red`, `text`…).
///
/// ```swift
/// InspectedField(name: "length", value: .integer(3))
/// ```
public struct InspectedField: Sendable, Equatable {
    /// The field's name.
    public var name: String
    /// Its value.
    public var value: InspectedValue

    /// Creates a field.
    public init(name: String, value: InspectedValue) {
        self.name = name
        self.value = value
    }
}
