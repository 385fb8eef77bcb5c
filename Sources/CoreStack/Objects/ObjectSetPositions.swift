/// Where an object sits in each of its context's ``ObjectSet``s, one slot per
/// ``ObjectSet/Role`` (-1 where it is not a member).
///
/// Seven 32-bit slots, 28 bytes per object: less than one hash-table entry of the sets they
/// replace, and no hashing.
///
/// ```swift
/// var positions = ObjectSetPositions()
/// positions[.inserted] = 4
/// positions[.inserted]   // 4
/// positions[.updated]    // -1
/// ```
struct ObjectSetPositions {
    private var slots: (Int32, Int32, Int32, Int32, Int32, Int32, Int32) = (-1, -1, -1, -1, -1, -1, -1)

    init() {}

    subscript(role: ObjectSet.Role) -> Int {
        @inline(__always) get {
            withUnsafeBytes(of: slots) { Int($0.load(fromByteOffset: role.rawValue * 4, as: Int32.self)) }
        }
        @inline(__always) set {
            // A set of 2^31 objects would not fit in memory; a clipped position only reads as absent.
            let stored = Int32(clamping: newValue)
            withUnsafeMutableBytes(of: &slots) { $0.storeBytes(of: stored, toByteOffset: role.rawValue * 4, as: Int32.self) }
        }
    }
}
