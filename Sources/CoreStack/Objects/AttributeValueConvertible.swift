import Foundation

/// A Swift type that maps to an ``AttributeValue``: used by the typed ``Attribute`` wrapper and by
/// ``ManagedObject/setValue(_:forKey:)``.
///
/// ```swift
/// let v = "Dune".attributeValue        // .string("Dune")
/// let n = Int(attributeValue: .integer(3)) // 3
/// ```
public protocol AttributeValueConvertible {
    /// The value as an ``AttributeValue``.
    var attributeValue: AttributeValue { get }
    /// Reads the value; nil when the stored value is of another kind (or nil).
    init?(attributeValue: AttributeValue)
    /// What a non-optional property reads when the stored value is nil (0, "", false, …).
    static var absentValue: Self { get }
}

// The members are inlinable so that a typed property's read is specialised in the client module
// (for `Date?` especially: Optional's conformance is generic and otherwise looks up metadata).

/// Strings are stored in string attributes.
extension String: AttributeValueConvertible {
    /// The value as an ``AttributeValue``: `.string(self)`.
    @inlinable public var attributeValue: AttributeValue { .string(self) }
    /// Reads the value from `v`; nil when `v` holds another kind of value.
    @inlinable public init?(attributeValue v: AttributeValue) { guard let s = v.stringValue else { return nil }; self = s }
    /// What a non-optional property of this type reads when nothing is stored: `""`.
    @inlinable public static var absentValue: String { "" }
}

/// `Int` is stored in the integer attributes (as a 64-bit value).
extension Int: AttributeValueConvertible {
    /// The value as an ``AttributeValue``: `.integer(Int64(self))`.
    @inlinable public var attributeValue: AttributeValue { .integer(Int64(self)) }
    /// Reads the value from `v`; nil when `v` holds another kind of value.
    @inlinable public init?(attributeValue v: AttributeValue) { guard let i = v.integerValue else { return nil }; self = Int(i) }
    /// What a non-optional property of this type reads when nothing is stored: `0`.
    @inlinable public static var absentValue: Int { 0 }
}

/// `Int16` is stored in 16-bit integer attributes.
extension Int16: AttributeValueConvertible {
    /// The value as an ``AttributeValue``: `.integer(Int64(self))`.
    @inlinable public var attributeValue: AttributeValue { .integer(Int64(self)) }
    /// Reads the value from `v`; nil when `v` holds another kind of value or one out of range.
    @inlinable public init?(attributeValue v: AttributeValue) {
        guard let i = v.integerValue, let x = Int16(exactly: i) else { return nil }
        self = x
    }
    /// What a non-optional property of this type reads when nothing is stored: `0`.
    @inlinable public static var absentValue: Int16 { 0 }
}

/// `Int32` is stored in 32-bit integer attributes.
extension Int32: AttributeValueConvertible {
    /// The value as an ``AttributeValue``: `.integer(Int64(self))`.
    @inlinable public var attributeValue: AttributeValue { .integer(Int64(self)) }
    /// Reads the value from `v`; nil when `v` holds another kind of value or one out of range.
    @inlinable public init?(attributeValue v: AttributeValue) {
        guard let i = v.integerValue, let x = Int32(exactly: i) else { return nil }
        self = x
    }
    /// What a non-optional property of this type reads when nothing is stored: `0`.
    @inlinable public static var absentValue: Int32 { 0 }
}

/// `Int64` is stored in 64-bit integer attributes.
extension Int64: AttributeValueConvertible {
    /// The value as an ``AttributeValue``: `.integer(self)`.
    @inlinable public var attributeValue: AttributeValue { .integer(self) }
    /// Reads the value from `v`; nil when `v` holds another kind of value.
    @inlinable public init?(attributeValue v: AttributeValue) { guard let i = v.integerValue else { return nil }; self = i }
    /// What a non-optional property of this type reads when nothing is stored: `0`.
    @inlinable public static var absentValue: Int64 { 0 }
}

/// `Double` is stored in double attributes.
extension Double: AttributeValueConvertible {
    /// The value as an ``AttributeValue``: `.double(self)`.
    @inlinable public var attributeValue: AttributeValue { .double(self) }
    /// Reads the value from `v`; nil when `v` holds another kind of value.
    @inlinable public init?(attributeValue v: AttributeValue) {
        if case .date = v { return nil }
        guard let d = v.doubleValue else { return nil }
        self = d
    }
    /// What a non-optional property of this type reads when nothing is stored: `0`.
    @inlinable public static var absentValue: Double { 0 }
}

/// `Float` is stored in float attributes.
extension Float: AttributeValueConvertible {
    /// The value as an ``AttributeValue``: `.double(Double(self))`.
    @inlinable public var attributeValue: AttributeValue { .double(Double(self)) }
    /// Reads the value from `v`; nil when `v` holds another kind of value.
    @inlinable public init?(attributeValue v: AttributeValue) {
        if case .date = v { return nil }
        guard let d = v.doubleValue else { return nil }
        self = Float(d)
    }
    /// What a non-optional property of this type reads when nothing is stored: `0`.
    @inlinable public static var absentValue: Float { 0 }
}

/// `Bool` is stored in Boolean attributes.
extension Bool: AttributeValueConvertible {
    /// The value as an ``AttributeValue``: `.bool(self)`.
    @inlinable public var attributeValue: AttributeValue { .bool(self) }
    /// Reads the value from `v`; nil when `v` holds another kind of value.
    @inlinable public init?(attributeValue v: AttributeValue) { guard let b = v.boolValue else { return nil }; self = b }
    /// What a non-optional property of this type reads when nothing is stored: `false`.
    @inlinable public static var absentValue: Bool { false }
}

/// `Date` is stored in date attributes.
extension Date: AttributeValueConvertible {
    /// The value as an ``AttributeValue``: `.date(self)`.
    @inlinable public var attributeValue: AttributeValue { .date(self) }
    /// Reads the value from `v`; nil when `v` holds another kind of value.
    @inlinable public init?(attributeValue v: AttributeValue) { guard let d = v.dateValue else { return nil }; self = d }
    /// What a non-optional property of this type reads when nothing is stored: `Date(timeIntervalSinceReferenceDate: 0)`.
    @inlinable public static var absentValue: Date { Date(timeIntervalSinceReferenceDate: 0) }
}

/// `Data` is stored in binary attributes.
extension Data: AttributeValueConvertible {
    /// The value as an ``AttributeValue``: `.data(self)`.
    @inlinable public var attributeValue: AttributeValue { .data(self) }
    /// Reads the value from `v`; nil when `v` holds another kind of value.
    @inlinable public init?(attributeValue v: AttributeValue) { guard let d = v.dataValue else { return nil }; self = d }
    /// What a non-optional property of this type reads when nothing is stored: `Data()`.
    @inlinable public static var absentValue: Data { Data() }
}

/// `UUID` is stored in UUID attributes.
extension UUID: AttributeValueConvertible {
    /// The value as an ``AttributeValue``: `.uuid(self)`.
    @inlinable public var attributeValue: AttributeValue { .uuid(self) }
    /// Reads the value from `v`; nil when `v` holds another kind of value.
    @inlinable public init?(attributeValue v: AttributeValue) { guard let u = v.uuidValue else { return nil }; self = u }
    /// What a non-optional property of this type reads when nothing is stored: `UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))`.
    @inlinable public static var absentValue: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
}

/// `URL` is stored in URI attributes.
extension URL: AttributeValueConvertible {
    /// The value as an ``AttributeValue``: `.url(self)`.
    @inlinable public var attributeValue: AttributeValue { .url(self) }
    /// Reads the value from `v`; nil when `v` holds another kind of value.
    @inlinable public init?(attributeValue v: AttributeValue) { guard let u = v.urlValue else { return nil }; self = u }
    /// What a non-optional property of this type reads when nothing is stored: `URL(fileURLWithPath: "/")`.
    @inlinable public static var absentValue: URL { URL(fileURLWithPath: "/") }
}

/// `Decimal` is stored in decimal attributes.
extension Decimal: AttributeValueConvertible {
    /// The value as an ``AttributeValue``: `.decimal(self)`.
    @inlinable public var attributeValue: AttributeValue { .decimal(self) }
    /// Reads the value from `v`; nil when `v` holds another kind of value.
    @inlinable public init?(attributeValue v: AttributeValue) { guard let d = v.decimalValue else { return nil }; self = d }
    /// What a non-optional property of this type reads when nothing is stored: `0`.
    @inlinable public static var absentValue: Decimal { 0 }
}

extension AttributeValue: AttributeValueConvertible {
    /// The value as an ``AttributeValue``: `self`.
    @inlinable public var attributeValue: AttributeValue { self }
    /// Reads the value from `v`; nil when `v` holds another kind of value.
    @inlinable public init?(attributeValue v: AttributeValue) { self = v }
    /// What a non-optional property of this type reads when nothing is stored: `.null`.
    @inlinable public static var absentValue: AttributeValue { .null }
}

/// An optional of a convertible type: `nil` is ``AttributeValue/null``.
extension Optional: AttributeValueConvertible where Wrapped: AttributeValueConvertible {
    /// The value as an ``AttributeValue``: `self?.attributeValue ?? .null`.
    @inlinable public var attributeValue: AttributeValue { self?.attributeValue ?? .null }
    /// Reads the value from `v`; nil when `v` holds another kind of value.
    @inlinable public init?(attributeValue v: AttributeValue) {
        if v.isNull { self = .none; return }
        guard let w = Wrapped(attributeValue: v) else { return nil }
        self = .some(w)
    }
    /// What a non-optional property of this type reads when nothing is stored: `nil`.
    @inlinable public static var absentValue: Wrapped? { nil }
}

extension AttributeValue {
    /// Converts a Swift value (String, Int…, Double, Float, Bool, Date, Data, UUID, URL, Decimal,
    /// AttributeValue, nil) to an attribute value; nil for anything else.
    public init?(any value: Any?) {
        guard let value else { self = .null; return }
        if let c = value as? any AttributeValueConvertible { self = c.attributeValue; return }
        switch value {
        case let i as Int8: self = .integer(Int64(i))
        case let i as UInt8: self = .integer(Int64(i))
        case let i as UInt16: self = .integer(Int64(i))
        case let i as UInt32: self = .integer(Int64(i))
        case let n as NSNumber: self = .double(n.doubleValue)
        default: return nil
        }
    }

    /// The plain Swift value: String, Int64, Double, Bool, Date, Data, UUID, URL, Decimal, or nil.
    public var anyValue: Any? {
        switch self {
        case .null: nil
        case let .integer(i): i
        case let .double(d): d
        case let .string(s): s
        case let .bool(b): b
        case let .date(d): d
        case let .data(d): d
        case let .uuid(u): u
        case let .decimal(d): d
        case let .url(u): u
        }
    }
}
