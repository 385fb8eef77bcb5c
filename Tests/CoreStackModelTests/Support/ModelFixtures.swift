import Foundation

/// Fixtures under `Tests/Fixtures/`, found from this source file's path.
enum ModelFixtures {
    /// The demo library's model as an Xcode bundle (written from `DemoLibrary.model()`; see
    /// Tests/Fixtures/PROVENANCE.md).
    static let demoBundle: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // CoreStackModelTests
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Fixtures/models/demo/DemoLibrary.xcdatamodeld", isDirectory: true)
}
