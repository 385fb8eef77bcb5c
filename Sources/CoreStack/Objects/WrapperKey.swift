/// The key of an ``Attribute`` wrapper, held as plain words so that reading it from an object
/// retains nothing: a string literal (`StaticString`), or a key given at run time, interned.
///
/// Its ``bits`` name the key for the life of the process, which lets an entity remember a
/// wrapper's slot by two integer compares (see ``EntityDescription/wrapperSlot(forBits:)``):
/// a literal's text is constant data that never moves or goes away, so its address and length
/// name it (two literals with the same address and length have the same text); an interned key
/// is an index in a table that only grows. The two kinds never share bits (the high word's top
/// bits tell them apart). No bit pattern of a `String` is read.
///
/// ```swift
/// let literal = WrapperKey.literal("title")
/// let named = WrapperKey(interning: ["ti", "tle"].joined())
/// literal.string == named.string   // true: both name "title"
/// ```
@usableFromInline
enum WrapperKey: Sendable {
    /// A key written as a string literal.
    case literal(StaticString)
    /// A key given at run time: its index in ``WrapperKeyNames``.
    case interned(Int)

    /// The key for a string known only at run time (interned once per distinct text).
    init(interning key: String) {
        self = .interned(WrapperKeyNames.index(of: key))
    }

    /// Two words that name this key's text for the life of the process.
    @inlinable @inline(__always)
    var bits: (low: UInt64, high: UInt64) {
        switch self {
        case .literal(let s):
            if s.hasPointerRepresentation {
                return (UInt64(UInt(bitPattern: s.utf8Start)), UInt64(s.utf8CodeUnitCount))
            }
            // A one-scalar literal stored as its scalar, not as text.
            return (UInt64(s.unicodeScalar.value), 1 << 62)
        case .interned(let index):
            return (UInt64(index), 1 << 63)
        }
    }

    /// The key as a string.
    @usableFromInline
    var string: String {
        switch self {
        case .literal(let s): return s.description
        case .interned(let index): return WrapperKeyNames.name(at: index)
        }
    }
}
