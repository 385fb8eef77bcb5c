import Foundation

/// Finds a helper executable of this package (`corestack-stack-probe`, `corestack-history-probe`,
/// `corestack-migrate-probe`) that `swift build --build-tests` puts next to the test bundle.
enum ProbeExecutable {
    /// The executable named `name`: beside the test bundle, beside the test binary, or in the
    /// package's `.build/debug`.
    static func url(named name: String) throws -> URL {
        var folders: [URL] = [Bundle.main.bundleURL]
        if let exe = Bundle.main.executableURL { folders.append(exe.deletingLastPathComponent()) }
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        folders.append(packageRoot.appendingPathComponent(".build/debug"))
        for f in folders {
            let candidate = f.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw Missing(name: name, searched: folders.map(\.path))
    }

    struct Missing: Error, CustomStringConvertible {
        var name: String
        var searched: [String]
        var description: String {
            "the \(name) executable was not found (looked in \(searched.joined(separator: ", "))); "
                + "build it with `swift build --build-tests`"
        }
    }
}
