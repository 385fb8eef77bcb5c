import Foundation

/// Test fixtures under `Tests/Fixtures/`, found from this source file's path.
///
/// ```swift
/// let url = Fixtures.url("models/bnr-CoreDataStack/Sample.xcdatamodeld")
/// ```
enum Fixtures {
    /// The `Tests/Fixtures` folder.
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // CoreStackTests
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Fixtures", isDirectory: true)

    /// The fixture at `relative` (a path inside `Tests/Fixtures`).
    static func url(_ relative: String) -> URL {
        root.appendingPathComponent(relative)
    }
}
