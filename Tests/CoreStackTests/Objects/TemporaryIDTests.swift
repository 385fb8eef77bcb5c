import Foundation
import Testing
@testable import CoreStack

@Suite("Temporary IDs after a save")
struct TemporaryIDTests {
    @Test("a temporary ID finds its object after the save made it permanent, in its context and in another")
    func temporaryIDsStillFindTheirObjects() throws {
        let stack = try TestStack(.sqlite)
        let context = stack.context
        let (temporary, permanent) = try context.performAndWait {
            // Interleaved entities: each entity's temporary keys are not consecutive.
            var objects: [ManagedObject] = []
            for i in 0..<6 {
                if i.isMultiple(of: 2) {
                    let a = try context.insert(Author.self)
                    a.name = "A\(i)"
                    objects.append(a)
                } else {
                    let p = try context.insert(Publisher.self)
                    p.name = "P\(i)"
                    objects.append(p)
                }
            }
            let temporary = objects.map(\.objectID)
            try context.save()
            let permanent = objects.map(\.objectID)
            #expect(permanent.allSatisfy { !$0.isTemporaryID })
            #expect(context.registeredObjects.count == 6)
            for (t, o) in zip(temporary, objects) {
                #expect(context.registeredObject(for: t) === o)
                #expect(try context.existingObject(with: t) === o)
            }
            return (temporary, permanent)
        }
        let other = stack.newContext()
        try other.performAndWait {
            for (t, p) in zip(temporary, permanent) {
                let o = try other.existingObject(with: t)
                #expect(o.objectID == p)
            }
        }
    }

    @Test("giving some inserts permanent IDs leaves the others registered under their temporary IDs")
    func partialPromotion() throws {
        let stack = try TestStack(.inMemory)
        let context = stack.context
        try context.performAndWait {
            let a = try context.insert(Author.self)
            let b = try context.insert(Author.self)
            let ta = a.objectID
            let tb = b.objectID
            try context.obtainPermanentIDs(for: [a])
            #expect(!a.objectID.isTemporaryID && b.objectID.isTemporaryID)
            #expect(context.registeredObject(for: a.objectID) === a)
            #expect(context.registeredObject(for: ta) === a)
            #expect(context.registeredObject(for: tb) === b)
            #expect(context.registeredObjects.count == 2)
            a.name = "A"
            b.name = "B"
            try context.save()
            #expect(context.registeredObject(for: tb) === b)
            #expect(context.registeredObject(for: b.objectID) === b)
            #expect(context.registeredObjects.count == 2)
        }
    }

    /// Two entities of the library model, and makers of their permanent IDs in a store named
    /// `store` and of temporary IDs with counter values of the test's own (other tests take
    /// temporary IDs from the shared counter meanwhile).
    static func runsFixture(store: String) throws -> (
        author: EntityDescription, publisher: EntityDescription,
        perm: (EntityDescription, Int64) -> ManagedObjectID, temp: (EntityDescription, Int64) -> ManagedObjectID
    ) {
        let model = try LibraryModel.make()
        let token = StoreIdentifiers.token(for: store)
        return (
            try #require(model.entity(named: "Author")), try #require(model.entity(named: "Publisher")),
            { ManagedObjectID(entity: $0, storeToken: token, primaryKey: $1) }, { ManagedObjectID(entity: $0, temporaryKey: $1) }
        )
    }

    @Test("permanent-ID runs: one run for consecutive keys, separate runs per entity, merged out of order")
    func permanentIDRuns() throws {
        let (author, publisher, perm, temp) = try Self.runsFixture(store: "RUNS-TEST")
        var runs = PermanentIDRuns()
        let first = (1...1000).map { temp(author, $0) }
        let later = (2001...2003).map { temp(publisher, $0) }
        let mixed = [temp(author, 1001), temp(publisher, 1002), temp(author, 1003)]
        runs.record(temporary: first, permanent: (1...1000).map { perm(author, Int64($0)) })
        #expect(runs.runCount == 1)
        // A batch with earlier keys recorded after a later one goes back into order.
        runs.record(temporary: later, permanent: [perm(publisher, 1), perm(publisher, 2), perm(publisher, 3)])
        runs.record(temporary: mixed, permanent: [perm(author, 2001), perm(publisher, 7), perm(author, 2002)])
        #expect(runs.runCount == 5)
        for (i, t) in first.enumerated() { #expect(runs[t] == perm(author, Int64(i + 1))) }
        #expect(runs[later[2]] == perm(publisher, 3))
        #expect(runs[mixed[0]] == perm(author, 2001))
        #expect(runs[mixed[1]] == perm(publisher, 7))
        #expect(runs[mixed[2]] == perm(author, 2002))
        // Never recorded, and not temporary.
        #expect(runs[temp(author, 1004)] == nil)
        #expect(runs[temp(publisher, 1)] == nil)  // a key in a run of another entity
        #expect(runs[perm(author, 5)] == nil)
        runs.removeAll()
        #expect(runs[first[0]] == nil)
    }

    @Test("permanent-ID runs recorded from plain keys: one run per consecutive stretch, found like ID-recorded runs")
    func permanentIDRunsFromKeys() throws {
        let (author, publisher, perm, temp) = try Self.runsFixture(store: "RUNS-KEYS-TEST")
        let token = StoreIdentifiers.token(for: "RUNS-KEYS-TEST")
        var runs = PermanentIDRuns()
        // Temporary keys 1...500 then 600...699 (a gap), primary keys 1...600: two runs.
        let temporaryKeys = Array(Int64(1)...500) + Array(Int64(600)...699)
        runs.record(entity: author, storeToken: token, temporaryKeys: temporaryKeys, primaryKeys: Array(Int64(1)...600))
        #expect(runs.runCount == 2)
        // Another entity's keys, earlier temporary keys recorded later: back into order.
        runs.record(entity: publisher, storeToken: token, temporaryKeys: [510, 511, 513], primaryKeys: [40, 41, 42])
        #expect(runs.runCount == 4)
        for (i, t) in temporaryKeys.enumerated() { #expect(runs[temp(author, t)] == perm(author, Int64(i + 1))) }
        #expect(runs[temp(publisher, 510)] == perm(publisher, 40))
        #expect(runs[temp(publisher, 511)] == perm(publisher, 41))
        #expect(runs[temp(publisher, 513)] == perm(publisher, 42))
        #expect(runs[temp(publisher, 512)] == nil)
        #expect(runs[temp(author, 510)] == nil)  // a key in a run of another entity
        #expect(runs[temp(author, 550)] == nil)
    }

    @Test("permanent-ID runs of interleaved entities (an owner, then its ten members, 1,000 times) recorded per entity: every key found, runs in order")
    func permanentIDRunsInterleaved() throws {
        let (author, publisher, perm, temp) = try Self.runsFixture(store: "RUNS-INTERLEAVED-TEST")
        let token = StoreIdentifiers.token(for: "RUNS-INTERLEAVED-TEST")
        // Temporary keys 11i+1 are owners (publishers), 11i+2…11i+11 their members (authors).
        let owners = (0..<1000).map { Int64(11 * $0 + 1) }
        let members = (0..<1000).flatMap { i in (2...11).map { Int64(11 * i + $0) } }
        var runs = PermanentIDRuns()
        // As a save records them: the members' runs after the owners', each landing between two.
        runs.record(entity: publisher, storeToken: token, temporaryKeys: owners, primaryKeys: (1...1000).map(Int64.init))
        runs.record(entity: author, storeToken: token, temporaryKeys: members, primaryKeys: (1...10_000).map(Int64.init))
        #expect(runs.runCount == 2000)
        for (i, t) in owners.enumerated() { #expect(runs[temp(publisher, t)] == perm(publisher, Int64(i + 1))) }
        for (i, t) in members.enumerated() { #expect(runs[temp(author, t)] == perm(author, Int64(i + 1))) }
        #expect(runs[temp(author, 1)] == nil)  // an owner's key, another entity
        #expect(runs[temp(publisher, 2)] == nil)
        #expect(runs[temp(author, 11_001)] == nil)  // past the last run
        // A later batch, and one recorded late with earlier keys, still land in order.
        runs.record(entity: author, storeToken: token, temporaryKeys: [20_000, 20_001], primaryKeys: [10_001, 10_002])
        runs.record(entity: publisher, storeToken: token, temporaryKeys: [11_001, 11_005], primaryKeys: [1001, 1002])
        #expect(runs[temp(author, 20_001)] == perm(author, 10_002))
        #expect(runs[temp(publisher, 11_005)] == perm(publisher, 1002))
        let index = try #require(members.firstIndex(of: 5_000))
        #expect(runs[temp(author, 5_000)] == perm(author, Int64(index + 1)))
    }

    @Test("obtaining permanent IDs: result parallel to the input, permanent and already-assigned IDs kept, interleaved entities")
    func obtainPermanentIDsMixed() throws {
        let stack = try TestStack(.sqlite)
        let context = stack.context
        let coordinator = stack.coordinator
        try context.performAndWait {
            let a1 = try context.insert(Author.self)
            let p1 = try context.insert(Publisher.self)
            let a2 = try context.insert(Author.self)
            let p2 = try context.insert(Publisher.self)
            a1.name = "A1"; a2.name = "A2"; p1.name = "P1"; p2.name = "P2"
            let early = try context.insert(Author.self)
            early.name = "E"
            let earlyTemporary = early.objectID
            try context.obtainPermanentIDs(for: [early])
            let earlyPermanent = early.objectID
            let saved = try context.insert(Author.self)
            saved.name = "S"
            try context.save()
            let permanent = saved.objectID
            #expect(!permanent.isTemporaryID)
            let input = [a1.objectID, permanent, p1.objectID, earlyTemporary, a2.objectID, p2.objectID]
            let out = try coordinator.obtainPermanentIDs(for: input)
            #expect(out.count == input.count)
            #expect(out[1] == permanent)
            #expect(out[3] == earlyPermanent)
            for i in [0, 2, 4, 5] {
                #expect(!out[i].isTemporaryID)
                #expect(out[i].entity === input[i].entity)
                #expect(coordinator.canonicalID(input[i]) == out[i])
            }
            #expect(Set(out).count == out.count)
            // Asked again: the same permanent IDs.
            #expect(try coordinator.obtainPermanentIDs(for: input) == out)
        }
    }

    @Test("become: a temporary ID turned in place into a permanent one equals it and hashes like it; another entity's ID is taken whole")
    func becomePermanent() throws {
        let model = try LibraryModel.make()
        let author = try #require(model.entity(named: "Author"))
        let publisher = try #require(model.entity(named: "Publisher"))
        let token = StoreIdentifiers.token(for: "BECOME-TEST")
        let permanent = ManagedObjectID(entity: author, storeToken: token, primaryKey: 42)
        var id = ManagedObjectID(entity: author, temporaryKey: 7)
        id.become(permanent)
        #expect(id == permanent)
        #expect(!id.isTemporaryID && id.primaryKey == 42 && id.storeIdentifier == "BECOME-TEST")
        #expect(Set([id]).contains(permanent))
        let other = ManagedObjectID(entity: publisher, storeToken: token, primaryKey: 3)
        id.become(other)
        #expect(id == other && id.entity === publisher)
    }

    @Test("sets of objects and IDs hash with their cheap mix and still find every member")
    func cheapHashes() throws {
        let stack = try TestStack(.inMemory)
        let context = stack.context
        try context.performAndWait {
            let objects = try (0..<2000).map { i in
                let a = try context.insert(Author.self)
                a.name = "A\(i)"
                return a
            }
            let set = Set(objects)
            #expect(set.count == 2000)
            #expect(objects.allSatisfy { set.contains($0) })
            try context.save()
            let ids = Set(objects.map(\.objectID))
            #expect(ids.count == 2000)
            let entity = objects[0].entity
            for o in objects {
                let key = try #require(o.objectID.primaryKey)
                // A rebuilt ID is found: equal IDs hash alike.
                #expect(ids.contains(ManagedObjectID(entity: entity, storeToken: o.objectID.storeToken, primaryKey: key)))
            }
            #expect(!ids.contains(ManagedObjectID(entity: entity, storeToken: objects[0].objectID.storeToken, primaryKey: 999_999)))
        }
    }
}

@Suite("TemporaryObjectTable")
struct TemporaryObjectTableTests {
    @Test("objects across pages are found, replaced and removed; a forged ID finds nothing")
    func pages() throws {
        let model = try LibraryModel.make()
        let author = try #require(model.entity(named: "Author"))
        let publisher = try #require(model.entity(named: "Publisher"))
        var table = TemporaryObjectTable()
        // Keys in three pages, written out of order so the page being filled changes.
        let keys: [Int64] = Array(1...1500) + Array(5000...5010) + [1023, 1024]
        var objects: [Int64: ManagedObject] = [:]
        for k in keys where objects[k] == nil {
            let id = ManagedObjectID(entity: author, temporaryKey: k)
            let o = ManagedObject(entity: author, objectID: id)
            objects[k] = o
            table[id] = o
        }
        #expect(table.count == objects.count)
        #expect(Set(table.values.map(ObjectIdentifier.init)) == Set(objects.values.map(ObjectIdentifier.init)))
        for (k, o) in objects { #expect(table[ManagedObjectID(entity: author, temporaryKey: k)] === o) }
        #expect(table[ManagedObjectID(entity: publisher, temporaryKey: 7)] == nil)
        #expect(table[ManagedObjectID(entity: author, temporaryKey: 4000)] == nil)
        // Remove from a page that is not the one being filled, then from the current one.
        table[ManagedObjectID(entity: author, temporaryKey: 7)] = nil
        table[ManagedObjectID(entity: author, temporaryKey: 5005)] = nil
        table[ManagedObjectID(entity: author, temporaryKey: 4000)] = nil  // absent: no change
        #expect(table.count == objects.count - 2)
        #expect(table[ManagedObjectID(entity: author, temporaryKey: 7)] == nil)
        #expect(table[ManagedObjectID(entity: author, temporaryKey: 8)] === objects[8])
        for k in objects.keys { table[ManagedObjectID(entity: author, temporaryKey: k)] = nil }
        #expect(table.count == 0 && table.values.isEmpty)
    }

    @Test("holds: true only for the very object registered under that ID, in the page being filled or another")
    func holds() throws {
        let model = try LibraryModel.make()
        let author = try #require(model.entity(named: "Author"))
        let publisher = try #require(model.entity(named: "Publisher"))
        var table = TemporaryObjectTable()
        let id1 = ManagedObjectID(entity: author, temporaryKey: 3)
        let id2 = ManagedObjectID(entity: author, temporaryKey: 3000)
        let o1 = ManagedObject(entity: author, objectID: id1)
        let o2 = ManagedObject(entity: author, objectID: id2)
        let stranger = ManagedObject(entity: author, objectID: id1)
        table[id1] = o1
        table[id2] = o2  // o1's page is no longer the one being filled
        #expect(table.holds(o1, for: id1))
        #expect(table.holds(o2, for: id2))
        #expect(!table.holds(stranger, for: id1))
        #expect(!table.holds(o1, for: id2))
        #expect(!table.holds(o1, for: ManagedObjectID(entity: publisher, temporaryKey: 3)))
        #expect(!table.holds(o1, for: ManagedObjectID(entity: author, temporaryKey: 9000)))
    }
}
