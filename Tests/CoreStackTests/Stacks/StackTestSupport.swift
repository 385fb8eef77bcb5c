import Foundation
import TestSupportKit
@testable import CoreStack

/// A temporary folder for one test, deleted when the value goes away.
final class StackTempFolder: @unchecked Sendable {
    let url: URL

    init(_ label: String = "stack") throws {
        url = try TemporaryRoot.folder(label)
    }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    deinit {
        // Make read-only folders made by tests deletable again.
        if let e = FileManager.default.enumerator(atPath: url.path) {
            for case let p as String in e {
                try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.appendingPathComponent(p).path)
            }
        }
        try? FileManager.default.removeItem(at: url)
    }
}

/// A thread-safe box for values observers record.
final class Recorder<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Value] = []

    func append(_ v: Value) { lock.withLock { items.append(v) } }
    var values: [Value] { lock.withLock { items } }
    var count: Int { lock.withLock { items.count } }
}

/// Polls `condition` until it holds or `seconds` pass.
func eventually(_ seconds: Double = 10, _ condition: @Sendable () -> Bool) async -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 10_000_000)
    }
    return condition()
}

/// Counts the objects of an entity in a context, on its queue.
func countObjects(_ entity: String, in context: ManagedObjectContext) async throws -> Int {
    try await context.perform { try context.count(for: FetchRequest<ManagedObject>(entityName: entity)) }
}
