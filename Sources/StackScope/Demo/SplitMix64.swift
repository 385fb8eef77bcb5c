/// A small, seeded pseudo-random generator (SplitMix64), so the demo store comes out the same
/// on every machine and every run. Not for cryptography.
///
/// ```swift
/// var rng = SplitMix64(seed: 42)
/// rng.next()            // always the same first value for seed 42
/// rng.int(in: 1...6)    // a die roll
/// ```
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next value of the sequence (advances the state by the SplitMix64 step).
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `range`, by plain modulo reduction (the tiny bias does not matter for demo data,
    /// and unlike `Int.random(in:using:)` the algorithm cannot change under us).
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        let width = UInt64(range.upperBound - range.lowerBound) + 1
        return range.lowerBound + Int(next() % width)
    }

    /// A double in `0..<1`.
    public mutating func unit() -> Double {
        Double(next() >> 11) / Double(UInt64(1) << 53)
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// One element of a non-empty array.
    public mutating func pick<T>(_ items: [T]) -> T {
        items[int(in: 0...(items.count - 1))]
    }

    /// `count` distinct indexes of `0..<upperBound` (fewer when there are fewer), in ascending order.
    public mutating func distinctIndexes(_ count: Int, below upperBound: Int) -> [Int] {
        guard upperBound > 0 else { return [] }
        var chosen = Set<Int>()
        let want = min(count, upperBound)
        while chosen.count < want { chosen.insert(int(in: 0...(upperBound - 1))) }
        return chosen.sorted()
    }

    /// `count` bytes.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) }
    }
}
