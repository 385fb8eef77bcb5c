import Foundation
import Testing
@testable import CoreStack

/// A key whose hash is chosen by the test, so runs of collisions and wrap-around are exercised.
private struct CollidingKey: FastHashKey, Hashable {
    var id: Int
    var bucketHint: UInt64
    var fastHash: UInt64 { bucketHint }
}

@Suite("FastMap and ObjectSet, against Dictionary and Array")
struct FastMapTests {
    @Test("random inserts, updates and removals agree with a Dictionary, with heavy collisions", arguments: [1, 2, 3])
    func agreesWithDictionary(seed: Int) {
        var rng = SplitMix64(seed: UInt64(seed))
        var map = FastMap<CollidingKey, Int>()
        var oracle: [CollidingKey: Int] = [:]
        var snapshots: [(FastMap<CollidingKey, Int>, [CollidingKey: Int])] = []
        // 20,000 steps; 4,000 under ThreadSanitizer (CI sets TSAN_OPTIONS), where this
        // single-threaded test has no race to find and its long probe runs took 12 minutes.
        let steps = ProcessInfo.processInfo.environment["TSAN_OPTIONS"] == nil ? 20_000 : 4_000
        for step in 0..<steps {
            // Few distinct hashes: long probe runs, which wrap around the table's end.
            let key = CollidingKey(id: Int(rng.next() % 600), bucketHint: rng.next() % 7 &* 0x1_0000_0001 | 0xF)
            switch rng.next() % 5 {
            case 0, 1:
                #expect(map.updateValue(step, forKey: key) == oracle.updateValue(step, forKey: key))
            case 4:
                // Find or insert: returns the present value, or inserts the made one.
                var made = false
                let got = map.value(forKey: key, orInsert: { made = true; return step })
                #expect(made == (oracle[key] == nil))
                if oracle[key] == nil { oracle[key] = step }
                #expect(got == oracle[key])
            case 2:
                #expect(map.removeValue(forKey: key) == oracle.removeValue(forKey: key))
            default:
                #expect(map[key] == oracle[key])
            }
            if step % 2_500 == 0 { snapshots.append((map, oracle)) }
        }
        #expect(map.count == oracle.count)
        for (k, v) in oracle { #expect(map[k] == v) }
        var seen: [CollidingKey: Int] = [:]
        for (k, v) in map { seen[k] = v }
        #expect(seen == oracle)
        // Copies taken along the way were not changed by later mutations (copy on write).
        for (copy, expected) in snapshots {
            #expect(copy.count == expected.count)
            for (k, v) in expected { #expect(copy[k] == v) }
        }
    }

    @Test("reserveCapacity, insertNew(_:forAbsentKey:) and removeAll")
    func capacityAndInsertNew() {
        var map = FastMap<CollidingKey, String>(minimumCapacity: 1_000)
        for i in 0..<1_000 {
            let key = CollidingKey(id: i, bucketHint: UInt64(i))
            if map[key] == nil { map.insertNew("v\(i)", forAbsentKey: key) }
        }
        #expect(map[CollidingKey(id: 5, bucketHint: 5)] == "v5")
        #expect(map.count == 1_000)
        #expect(Set(map.values) == Set((0..<1_000).map { "v\($0)" }))
        map.removeAll()
        #expect(map.isEmpty && map[CollidingKey(id: 5, bucketHint: 5)] == nil)
    }

    @Test("value(forKey:orInsert:) whose make changes a copy sharing the map's storage, or inserts the key itself")
    func makeThatChangesTheMap() {
        func key(_ n: Int) -> CollidingKey { CollidingKey(id: n, bucketHint: 0x5 | UInt64(n % 2) << 40) }
        var map = FastMap<CollidingKey, Int>()
        for n in 0..<12 { map[key(n)] = n }
        // A copy shares the storage until one of them changes it.
        var alias = map
        let got = map.value(forKey: key(100)) {
            for n in 0..<40 { alias[key(200 + n)] = n }  // grows the shared storage's other owner
            alias[key(100)] = -1
            return 100
        }
        #expect(got == 100 && map[key(100)] == 100 && map.count == 13)
        #expect(alias[key(100)] == -1 && alias.count == 53)
        for n in 0..<12 { #expect(map[key(n)] == n && alias[key(n)] == n) }
        // A map reached through a reference: make may insert the key it is asked for.
        final class Holder { var map = FastMap<CollidingKey, Int>() }
        let holder = Holder()
        var inner = holder.map
        let kept = inner.value(forKey: key(1)) {
            holder.map[key(1)] = 7
            return 8
        }
        #expect(kept == 8 && inner[key(1)] == 8 && holder.map[key(1)] == 7)
    }

    @Test("a make that re-enters the very map it inserts into ends the process (Swift's exclusivity check), never corrupts it")
    func reentrantMakeTraps() async {
        await #expect(processExitsWith: .failure) {
            final class Holder { var map = FastMap<CollidingKey, Int>() }
            let holder = Holder()
            _ = holder.map.value(forKey: CollidingKey(id: 1, bucketHint: 1)) {
                holder.map[CollidingKey(id: 2, bucketHint: 1)] = 2
                return 1
            }
        }
    }

    @Test("values are released when removed, replaced and when the map goes away")
    func releasesValues() {
        final class Token {}
        weak var removed: Token?
        weak var replaced: Token?
        weak var kept: Token?
        do {
            func key(_ n: Int) -> CollidingKey { CollidingKey(id: n, bucketHint: UInt64(n) &* 0x9E37_79B9_7F4A_7C15 | 1) }
            var map = FastMap<CollidingKey, Token>()
            let a = Token(), b = Token(), c = Token()
            removed = a; replaced = b; kept = c
            map[key(1_001)] = a
            map[key(1_002)] = b
            map[key(1_003)] = c
            map[key(1_001)] = nil
            map[key(1_002)] = Token()
            // Growing moves the entries into new storage: c must survive it, once.
            for n in 0..<100 { map[key(n)] = Token() }
            #expect(map[key(1_003)] === c)
            #expect(map.count == 102)
        }
        #expect(removed == nil && replaced == nil && kept == nil)
    }

    @Test("ObjectSet keeps insertion order through removals, re-insertions and compaction")
    func objectSetOrder() throws {
        let stack = try TestStack(.inMemory)
        let context = stack.context
        try context.performAndWait {
            let objects = try (0..<200).map { _ in try context.insertObject(forEntityName: "Author") }
            var set = ObjectSet(.updated)
            var oracle: [ManagedObject] = []
            var rng = SplitMix64(seed: 9)
            for _ in 0..<5_000 {
                let o = objects[Int(rng.next() % 200)]
                if rng.next() % 2 == 0 {
                    let added = set.insert(o)
                    #expect(added == !oracle.contains { $0 === o })
                    if added { oracle.append(o) }
                } else {
                    let removed = set.remove(o)
                    #expect(removed == oracle.contains { $0 === o })
                    oracle.removeAll { $0 === o }
                }
            }
            #expect(set.count == oracle.count)
            #expect(set.values.map(ObjectIdentifier.init) == oracle.map(ObjectIdentifier.init))
            for o in objects { #expect(set.contains(o) == oracle.contains { $0 === o }) }
        }
    }

    @Test("ObjectSet: positions left by a cleared or another set of the same role do not count as membership")
    func objectSetStalePositions() throws {
        let stack = try TestStack(.inMemory)
        let context = stack.context
        try context.performAndWait {
            let a = try context.insertObject(forEntityName: "Author")
            let b = try context.insertObject(forEntityName: "Author")
            var first = ObjectSet(.pendingRefreshed)
            first.insert(a)
            first.insert(b)
            first.removeAll()
            #expect(!first.contains(a) && !first.contains(b) && first.isEmpty)
            var second = ObjectSet(.pendingRefreshed)
            #expect(!second.contains(a))
            let insertedB = second.insert(b)
            #expect(insertedB)
            // a's stale position 0 now points at b in `second`: not a member.
            #expect(!second.contains(a))
            #expect(second.contains(b))
            let insertedA = second.insert(a)
            #expect(insertedA)
            #expect(second.values.map(ObjectIdentifier.init) == [ObjectIdentifier(b), ObjectIdentifier(a)])
            // A set of another role is independent.
            var other = ObjectSet(.deleted)
            #expect(!other.contains(b))
            let added = other.insert(b)
            let removed = other.remove(b)
            #expect(added && removed)
            #expect(second.contains(b))
        }
    }
}
