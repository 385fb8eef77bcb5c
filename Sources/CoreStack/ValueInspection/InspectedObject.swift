/// An archived object: its class chain, a one-line description when the decoder knows the class
/// (a range, a colour, a locale…), and its fields.
///
/// ```swift
/// // NSValue(range: NSRange(location: 2, length: 3)) archived:
/// object.className    // "NSValue"
/// object.description  // "range {2, 3}"
/// ```
public struct InspectedObject: Sendable, Equatable {
    /// The object's number in the archive's `$objects`.
    public var index: Int
    /// The class (`$classname`).
    public var className: String
    /// The class and its superclasses (`$classes`), most derived first.
    public var classChain: [String]
    /// What the value is in one line, for classes the decoder knows (nil otherwise).
    public var description: String?
    /// The fields, in archive order (for known classes: the decoded parts).
    public var fields: [InspectedField]

    /// Creates an object node.
    public init(index: Int, className: String, classChain: [String], description: String?, fields: [InspectedField]) {
        self.index = index
        self.className = className
        self.classChain = classChain
        self.description = description
        self.fields = fields
    }
}
