/// A small hash of a few 64-bit words with a seed: a multiply and two xor-shifts per word and a
/// finishing mix (the finaliser of MurmurHash3), for the `_rawHashValue(seed:)` of types that sets
/// and dictionaries hash on every insert, register and save (``ManagedObjectID``,
/// ``ManagedObject``). `Hasher` (SipHash-1-3) costs several times as much per value.
///
/// Not flooding-resistant by itself; the words hashed are the framework's own (keys it assigned,
/// object addresses), not text from outside.
///
/// ```swift
/// var m = HashMixer(seed: seed)
/// m.combine(id.fastHash)
/// return m.value
/// ```
struct HashMixer {
    private var state: UInt64

    /// A mixer started from a set's or dictionary's seed.
    @inline(__always)
    init(seed: Int) {
        state = UInt64(bitPattern: Int64(seed)) ^ 0x9E37_79B9_7F4A_7C15
    }

    /// Mixes one word in.
    @inline(__always)
    mutating func combine(_ word: UInt64) {
        state = (state ^ word) &* 0xBF58_476D_1CE4_E5B9
        state ^= state &>> 31
    }

    /// The hash of the words combined so far.
    @inline(__always)
    var value: Int {
        var h = state
        h ^= h &>> 33
        h = h &* 0xFF51_AFD7_ED55_8CCD
        h ^= h &>> 33
        return Int(truncatingIfNeeded: h)
    }
}
