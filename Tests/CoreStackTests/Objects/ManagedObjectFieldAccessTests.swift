import Foundation
import Testing
@testable import CoreStack

/// An object whose hooks re-enter its own fields: `awakeFromFetch` and `awakeFromInsert` read and
/// write its typed properties while CoreStack is filling or registering it.
final class SelfTouching: ManagedObject {
    @Attribute("name") var name: String
    @Attribute("count") var count: Int
    @Attribute("echo") var echo: String?

    override func awakeFromInsert() {
        count = 1
        echo = "inserted \(count)"
    }

    override func awakeFromFetch() {
        // Runs while the fetch is turning rows into objects: reads and writes its own slots.
        echo = "\(name):\(count)"
    }
}

/// `ManagedObject.values` and `faultState` skip Swift's run-time exclusivity checks (see the
/// note at their declaration). These tests exercise what makes that safe, and run under
/// ThreadSanitizer and AddressSanitizer in CI (.ci/run): objects of several contexts read,
/// written and faulted on their own queues at the same time (a field touched from two threads
/// is a TSan report), and user hooks that touch the object's fields while CoreStack fills it (an
/// access held across them would hand the hook a buffer that is then replaced: an ASan report).
@Suite("ManagedObject fields without exclusivity checks: confinement and re-entrant hooks")
struct ManagedObjectFieldAccessTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionName: "SelfTouching") {
            EntityDescription("SelfTouching", class: SelfTouching.self) {
                AttributeDescription("name", .string, isOptional: false)
                AttributeDescription("count", .integer64, isOptional: false)
                AttributeDescription("echo", .string)
            }
        }
    }

    @Test("hooks that read and write the object's own properties while it is inserted, fetched and faulted", arguments: StoreKind.allCases)
    func reentrantHooks(kind: StoreKind) throws {
        let stack = try TestStack(kind, model: Self.model())
        try stack.context.performAndWait {
            for i in 0..<300 {
                let o = try SelfTouching(context: stack.context)
                #expect(o.count == 1 && o.echo == "inserted 1")
                o.name = "n\(i)"
                o.count = i
            }
            try stack.context.save()
        }
        let reader = stack.newContext("reader")
        try reader.performAndWait {
            var request = FetchRequest<SelfTouching>(entityName: "SelfTouching", sortDescriptors: [SortDescriptor("count")])
            request.returnsObjectsAsFaults = false
            let filled = try reader.fetch(request)
            #expect(filled.count == 300)
            #expect(filled.enumerated().allSatisfy { i, o in o.echo == "n\(i):\(i)" && o.lastAccessorError == nil })
        }
        let faulting = stack.newContext("faulting")
        try faulting.performAndWait {
            var request = FetchRequest<SelfTouching>(entityName: "SelfTouching", sortDescriptors: [SortDescriptor("count")])
            request.returnsObjectsAsFaults = true
            let faults = try faulting.fetch(request)
            #expect(faults.allSatisfy { $0.isFault })
            // Firing each fault runs awakeFromFetch inside the property read that fired it.
            #expect(faults.enumerated().allSatisfy { i, o in o.count == i && o.echo == "n\(i):\(i)" })
        }
    }

    @Test("several contexts read, write and fault their own objects of one store at the same time")
    func contextsOnTheirOwnQueues() throws {
        let stack = try TestStack(.sqlite, model: Self.model())
        try stack.context.performAndWait {
            for i in 0..<200 {
                let o = try SelfTouching(context: stack.context)
                o.name = "n\(i)"
                o.count = i
            }
            try stack.context.save()
        }
        let contexts = (0..<4).map { stack.newContext("worker \($0)") }
        let sums = LockedValue<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: contexts.count) { k in
            let context = contexts[k]
            let sum: Int = (try? context.performAndWait {
                var total = 0
                for round in 0..<5 {
                    let objects = try context.fetch(FetchRequest<SelfTouching>(entityName: "SelfTouching"))
                    for o in objects {
                        total += o.count
                        o.echo = "worker \(k) round \(round)"
                    }
                    context.refreshAllObjects()
                }
                return total
            }) ?? -1
            sums.withLock { $0.append(sum) }
        }
        // Each context saw every object's count in every round, while the others did the same.
        let expected = 5 * (0..<200).reduce(0, +)
        #expect(sums.withLock { $0 } == Array(repeating: expected, count: contexts.count))
    }
}
