import Foundation

/// The type of an attribute, with Core Data's `NSAttributeType` codes as raw values.
///
/// ```swift
/// let type = AttributeType(xcodeName: "Integer 32") // .integer32
/// type?.rawValue                                      // 200
/// ```
public enum AttributeType: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// No type (`NSUndefinedAttributeType`): transient attributes of any value.
    case undefined = 0
    /// A 16-bit integer.
    case integer16 = 100
    /// A 32-bit integer.
    case integer32 = 200
    /// A 64-bit integer.
    case integer64 = 300
    /// A decimal number (`Decimal`).
    case decimal = 400
    /// A double-precision floating-point number.
    case double = 500
    /// A single-precision floating-point number.
    case float = 600
    /// A string.
    case string = 700
    /// A Boolean.
    case boolean = 800
    /// A date (stored as seconds since 2001-01-01 UTC).
    case date = 900
    /// Bytes, stored inline or, with external storage allowed, in a file beside the store.
    case binaryData = 1000
    /// A UUID.
    case uuid = 1100
    /// A URL.
    case uri = 1200
    /// A value stored as bytes through a value transformer (by default a keyed archive).
    case transformable = 1800
    /// An object ID (`NSObjectIDAttributeType`).
    case objectID = 2000

    /// Reads the name Xcode writes in a model file (`attributeType="Integer 32"`).
    public init?(xcodeName: String) {
        switch xcodeName {
        case "Undefined": self = .undefined
        case "Integer 16": self = .integer16
        case "Integer 32": self = .integer32
        case "Integer 64": self = .integer64
        case "Decimal": self = .decimal
        case "Double": self = .double
        case "Float": self = .float
        case "String": self = .string
        case "Boolean": self = .boolean
        case "Date": self = .date
        case "Binary": self = .binaryData
        case "UUID": self = .uuid
        case "URI": self = .uri
        case "Transformable": self = .transformable
        case "ObjectID": self = .objectID
        default: return nil
        }
    }

    /// The name Xcode writes in a model file.
    public var xcodeName: String {
        switch self {
        case .undefined: "Undefined"
        case .integer16: "Integer 16"
        case .integer32: "Integer 32"
        case .integer64: "Integer 64"
        case .decimal: "Decimal"
        case .double: "Double"
        case .float: "Float"
        case .string: "String"
        case .boolean: "Boolean"
        case .date: "Date"
        case .binaryData: "Binary"
        case .uuid: "UUID"
        case .uri: "URI"
        case .transformable: "Transformable"
        case .objectID: "ObjectID"
        }
    }

    /// The type's name in Xcode (`"Integer 32"`).
    public var description: String { xcodeName }

    /// The column type Core Data declares for this attribute type.
    public var sqlColumnType: String {
        switch self {
        case .integer16, .integer32, .integer64, .boolean: "INTEGER"
        case .date: "TIMESTAMP"
        case .double, .float: "FLOAT"
        case .decimal: "DECIMAL"
        case .string, .uri: "VARCHAR"
        case .uuid, .binaryData, .transformable, .undefined, .objectID: "BLOB"
        }
    }

    /// True for the integer types.
    public var isInteger: Bool { self == .integer16 || self == .integer32 || self == .integer64 }

    /// True for every numeric type (integers, decimal, double, float).
    public var isNumeric: Bool { isInteger || self == .decimal || self == .double || self == .float }

    /// The range an integer type can hold.
    public var integerRange: ClosedRange<Int64>? {
        switch self {
        case .integer16: Int64(Int16.min)...Int64(Int16.max)
        case .integer32: Int64(Int32.min)...Int64(Int32.max)
        case .integer64: Int64.min...Int64.max
        default: nil
        }
    }
}
