/// The key of an ``Attribute`` wrapper, held as one plain word so that reading it from an object
/// retains nothing and every wrapper costs an object 8 bytes: a string literal's address and
/// length, or the index of a key given at run time, interned.
///
/// Its ``bits`` name the key for the life of the process, which lets an entity remember a
/// wrapper's slot by one integer compare (see ``EntityDescription/wrapperSlot(forBits:)``): a
/// literal's text is constant data that never moves or goes away, so its address and length name
/// it (two literals with the same address and length have the same text); an interned key is an
/// index in a table that only grows. The top bit tells the two apart: a literal's address is below
/// 2^47 (user space on x86-64 and arm64), shifted up by 16 for the length. A literal that does not
/// fit (an address above that, a text of 65,536 bytes or more, a one-scalar literal stored as its
/// scalar) is interned instead. No bit pattern of a `String` is read.
///
/// ```swift
/// let literal = WrapperKey.literal("title")
/// let named = WrapperKey(interning: ["ti", "tle"].joined())
/// literal.string == named.string   // true: both name "title"
/// ```
@usableFromInline
struct WrapperKey: Sendable {
    /// The word that names this key's text for the life of the process.
    @usableFromInline let bits: UInt64

    /// The top bit: an interned key (its index in the low bits).
    @usableFromInline static var internedFlag: UInt64 { 1 << 63 }

    /// The key for a string known only at run time (interned once per distinct text).
    @usableFromInline init(interning key: String) {
        bits = Self.internedFlag | UInt64(WrapperKeyNames.index(of: key))
    }

    /// The key for a string literal: its address and length, or interned when they do not fit.
    @inlinable @inline(__always)
    static func literal(_ s: StaticString) -> WrapperKey {
        if s.hasPointerRepresentation {
            let address = UInt64(UInt(bitPattern: s.utf8Start))
            let count = UInt64(s.utf8CodeUnitCount)
            if address < 1 << 47, count < 1 << 16 { return WrapperKey(bits: address << 16 | count) }
        }
        return WrapperKey(interning: s.description)
    }

    @usableFromInline init(bits: UInt64) { self.bits = bits }

    /// The key as a string.
    @usableFromInline
    var string: String {
        if bits & Self.internedFlag != 0 { return WrapperKeyNames.name(at: Int(bits & ~Self.internedFlag)) }
        guard let start = UnsafePointer<UInt8>(bitPattern: UInt(bits >> 16)) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: start, count: Int(bits & 0xFFFF)), as: UTF8.self)
    }
}
