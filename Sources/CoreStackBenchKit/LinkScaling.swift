import CoreStack
import Foundation

/// The cost of one link as a relationship grows (`corestack-bench --only links`): N members are
/// linked one at a time to one owner, through the member's to-one (the owner's ordered to-many
/// inverse grows) and through the owner's unordered to-many (`add(_:toKey:)`, the member's to-one
/// inverse follows). Linear maintenance keeps the time per link flat from 1,000 to 1,000,000 members.
///
/// ```swift
/// for row in try LinkScaling.measure(sizes: [1_000, 10_000, 100_000], runs: 3) {
///     print(row.members, row.orderedNanosPerLink, row.unorderedNanosPerLink)
/// }
/// ```
public struct LinkScaling: Sendable {
    /// Members linked to the one owner.
    public var members: Int
    /// Median nanoseconds per `member.setObject(owner, forKey: "owner")` (ordered inverse).
    public var orderedNanosPerLink: Double
    /// Median nanoseconds per `owner.add(member, toKey: "tags")` (unordered, to-one inverse).
    public var unorderedNanosPerLink: Double

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionName: "Links") {
            EntityDescription("Owner") {
                AttributeDescription("name", .string)
                RelationshipDescription("members", destination: "Member", inverse: "owner", toMany: true, isOrdered: true)
                RelationshipDescription("tags", destination: "Member", inverse: "tagOwner", toMany: true)
            }
            EntityDescription("Member") {
                AttributeDescription("name", .string)
                RelationshipDescription("owner", destination: "Owner", inverse: "members")
                RelationshipDescription("tagOwner", destination: "Owner", inverse: "tags")
            }
        }
    }

    /// Times the links for each size, `runs` times (fresh context and objects each run; the
    /// inserts are not timed).
    public static func measure(sizes: [Int], runs: Int) throws -> [LinkScaling] {
        let model = try model()
        var out: [LinkScaling] = []
        for n in sizes {
            var ordered: [Double] = [], unordered: [Double] = []
            for _ in 0..<max(1, runs) {
                let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
                try coordinator.addPersistentStore(InMemoryStore(model: model))
                let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
                try context.performAndWait {
                    let owner = try context.insertObject(forEntityName: "Owner")
                    let members = try (0..<n).map { _ in try context.insertObject(forEntityName: "Member") }
                    let (o, _) = try timed { for m in members { try m.setObject(owner, forKey: "owner") } }
                    let (u, _) = try timed { for m in members { try owner.add(m, toKey: "tags") } }
                    guard try owner.objectIDs(forRelationshipNamed: "members").count == n,
                        try owner.objectIDs(forRelationshipNamed: "tags").count == n
                    else { throw BenchError.usage("links: wrong member count") }
                    ordered.append(o * 1e9 / Double(n))
                    unordered.append(u * 1e9 / Double(n))
                }
            }
            out.append(LinkScaling(
                members: n, orderedNanosPerLink: BenchFormat.median(ordered), unorderedNanosPerLink: BenchFormat.median(unordered)))
        }
        return out
    }
}
