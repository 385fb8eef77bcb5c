import CoreStack
import Foundation

/// `stackscope demo create PATH [--size N]`.
public enum DemoCommand {
    /// Creates the demo store and returns the line to print.
    public static func create(path: String, size: Int, files: any StoreFileAccess = StoreFiles.standard) throws -> String {
        let summary = try DemoLibrary.create(at: URL(fileURLWithPath: path), size: size, files: files)
        let parts = summary.counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        return "Created \(path): \(summary.total) objects (\(parts.joined(separator: ", ")))\n"
    }
}
