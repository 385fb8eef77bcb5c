/// How far ``DemoLibrary/create(at:size:files:progress:)`` has come: objects written so far and
/// about how many there will be (chapters per book are drawn at random, so the total is exact only
/// once ``isFinished``).
///
/// ```swift
/// try DemoLibrary.create(at: url, size: 100_000) { progress in
///     print("\(progress.written) of about \(progress.expectedTotal)")
/// }
/// ```
public struct DemoProgress: Sendable, Equatable {
    /// Objects written to the store so far.
    public var written: Int
    /// About how many objects the store will hold (exact once ``isFinished``).
    public var expectedTotal: Int
    /// Whether every object is written.
    public var isFinished: Bool

    /// Creates a progress report; not finished by default.
    public init(written: Int, expectedTotal: Int, isFinished: Bool = false) {
        self.written = written
        self.expectedTotal = expectedTotal
        self.isFinished = isFinished
    }

    /// The share written, 0 to 1.
    public var fraction: Double {
        guard expectedTotal > 0 else { return isFinished ? 1 : 0 }
        return isFinished ? 1 : min(1, Double(written) / Double(expectedTotal))
    }
}
