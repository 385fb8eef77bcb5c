import SwiftSyntax

/// What a stored property's declared type makes of it: an attribute of one of the types the store
/// keeps, or a relationship to another entity's class.
enum ModelType: Equatable {
    /// An attribute; `attributeType` is the `AttributeType` case (`string`, `integer32`, …),
    /// `swiftType` the non-optional Swift type (`String`, `Int32`, …).
    case attribute(attributeType: String, swiftType: String, isOptional: Bool)
    /// A to-one relationship (`Publisher?`).
    case toOne(destination: String)
    /// A to-one relationship declared without `?` (refused: the accessor returns an optional).
    case requiredToOne(destination: String)
    /// An unordered to-many relationship (`Set<Author>`).
    case toMany(destination: String)
    /// An ordered to-many relationship (`[Chapter]`).
    case orderedToMany(destination: String)
    /// A type nothing maps (`[String]`, `CGPoint`, a tuple, …).
    case unsupported

    /// Swift types an attribute can have, and the `AttributeType` each is stored as.
    static let attributeTypes: [String: String] = [
        "String": "string",
        "Int": "integer64", "Int64": "integer64", "Int32": "integer32", "Int16": "integer16",
        "Double": "double", "Float": "float", "Bool": "boolean",
        "Date": "date", "Data": "binaryData", "UUID": "uuid", "URL": "uri", "Decimal": "decimal",
    ]

    /// Classifies a declared type.
    init(_ type: TypeSyntax) {
        if let wrapped = Self.optionalWrapped(type) {
            if let name = Self.simpleName(wrapped) {
                if let attribute = Self.attributeTypes[name] {
                    self = .attribute(attributeType: attribute, swiftType: name, isOptional: true)
                } else {
                    self = .toOne(destination: name)
                }
            } else {
                self = .unsupported
            }
            return
        }
        if let element = Self.genericArgument(of: type, named: "Set") {
            self = Self.destination(element).map { .toMany(destination: $0) } ?? .unsupported
            return
        }
        if let element = Self.arrayElement(type) {
            self = Self.destination(element).map { .orderedToMany(destination: $0) } ?? .unsupported
            return
        }
        if let name = Self.simpleName(type) {
            if let attribute = Self.attributeTypes[name] {
                self = .attribute(attributeType: attribute, swiftType: name, isOptional: false)
            } else {
                self = .requiredToOne(destination: name)
            }
            return
        }
        self = .unsupported
    }

    /// Whether the type is a relationship of any shape.
    var isRelationship: Bool {
        switch self {
        case .toOne, .requiredToOne, .toMany, .orderedToMany: true
        case .attribute, .unsupported: false
        }
    }

    /// The destination class of a relationship.
    var destination: String? {
        switch self {
        case let .toOne(d), let .requiredToOne(d), let .toMany(d), let .orderedToMany(d): d
        case .attribute, .unsupported: nil
        }
    }

    /// A relationship's destination: a plain type name that is not an attribute type.
    private static func destination(_ type: TypeSyntax) -> String? {
        guard let name = simpleName(type), attributeTypes[name] == nil else { return nil }
        return name
    }

    /// `T` of `T?`, `T!` or `Optional<T>`.
    private static func optionalWrapped(_ type: TypeSyntax) -> TypeSyntax? {
        if let optional = type.as(OptionalTypeSyntax.self) { return optional.wrappedType }
        if let iuo = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return iuo.wrappedType }
        return genericArgument(of: type, named: "Optional")
    }

    /// `T` of `[T]` or `Array<T>`.
    private static func arrayElement(_ type: TypeSyntax) -> TypeSyntax? {
        if let array = type.as(ArrayTypeSyntax.self) { return array.element }
        return genericArgument(of: type, named: "Array")
    }

    /// The one generic argument of `Name<T>` (or `Swift.Name<T>`).
    private static func genericArgument(of type: TypeSyntax, named name: String) -> TypeSyntax? {
        let clause: GenericArgumentClauseSyntax?
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == name {
            clause = identifier.genericArgumentClause
        } else if let member = type.as(MemberTypeSyntax.self), member.name.text == name {
            clause = member.genericArgumentClause
        } else {
            return nil
        }
        guard let arguments = clause?.arguments, arguments.count == 1, let first = arguments.first,
            case let .type(argument) = first.argument
        else { return nil }
        return argument
    }

    /// The name of a plain nominal type (`Date`, `Foundation.Date` → `Date`); nil for anything
    /// generic, a tuple, a function, an existential, ….
    static func simpleName(_ type: TypeSyntax) -> String? {
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.genericArgumentClause == nil {
            return identifier.name.text
        }
        if let member = type.as(MemberTypeSyntax.self), member.genericArgumentClause == nil {
            return member.name.text
        }
        return nil
    }
}
