import Foundation
import Testing
@testable import CoreStack

@Suite("IDPromotionMap")
struct IDPromotionMapTests {
    /// Checks `map` against the rule it implements: the first pair of each promoted temporary
    /// ID (temporary, not equal to its permanent), nil for everything else.
    private func expectRule(_ map: IDPromotionMap, _ temporary: [ManagedObjectID], _ permanent: [ManagedObjectID], probes: [ManagedObjectID]) {
        var expected: [ManagedObjectID: ManagedObjectID] = [:]
        for (t, p) in zip(temporary, permanent) where t.isTemporary && t != p && expected[t] == nil { expected[t] = p }
        #expect(map.isEmpty == expected.isEmpty)
        for id in temporary + permanent + probes { #expect(map[id] == expected[id]) }
    }

    @Test("close keys (the dense index), keys spread thinly, and two IDs sharing a key all follow the same rule")
    func layouts() throws {
        let model = try LibraryModel.make()
        let author = try #require(model.entity(named: "Author"))
        let publisher = try #require(model.entity(named: "Publisher"))
        let token = StoreIdentifiers.token(for: "PROMOTION-TEST")
        func t(_ e: EntityDescription, _ k: Int64) -> ManagedObjectID { ManagedObjectID(entity: e, temporaryKey: k) }
        func p(_ e: EntityDescription, _ k: Int64) -> ManagedObjectID { ManagedObjectID(entity: e, storeToken: token, primaryKey: k) }
        let probes = [t(author, 0), t(author, 99), t(publisher, 10), t(author, 1_000_000), t(author, -5), p(author, 1), p(publisher, 2)]
        // Close keys, two entities interleaved, a permanent ID and an ID listed twice among them.
        let close = (10..<40).map { k in k.isMultiple(of: 3) ? t(publisher, Int64(k)) : t(author, Int64(k)) } + [p(author, 7), t(author, 11)]
        let closeOut = close.indices.map { i in close[i].isTemporary ? p(close[i].entity, Int64(100 + i)) : close[i] }
        expectRule(IDPromotionMap(temporary: close, permanent: closeOut), close, closeOut, probes: probes)
        // Keys far apart (the hash map).
        let spread: [ManagedObjectID] = [t(author, 1), t(author, 5_000_000), t(publisher, Int64.max - 1), t(author, 3)]
        let spreadOut = spread.indices.map { p(spread[$0].entity, Int64(200 + $0)) }
        expectRule(IDPromotionMap(temporary: spread, permanent: spreadOut), spread, spreadOut, probes: probes)
        // Two different IDs with one key (not made by the counter, but allowed): both are found.
        let shared = [t(author, 12), t(publisher, 12), t(author, 13)]
        let sharedOut = shared.indices.map { p(shared[$0].entity, Int64(300 + $0)) }
        expectRule(IDPromotionMap(temporary: shared, permanent: sharedOut), shared, sharedOut, probes: probes)
        // Nothing promoted.
        let none = [p(author, 1), p(author, 2)]
        expectRule(IDPromotionMap(temporary: none, permanent: none), none, none, probes: probes)
        expectRule(IDPromotionMap(temporary: [], permanent: []), [], [], probes: probes)
    }

    @Test("rewritten: promoted members replaced in place, order kept; nil when none is promoted")
    func rewritten() throws {
        let model = try LibraryModel.make()
        let author = try #require(model.entity(named: "Author"))
        let token = StoreIdentifiers.token(for: "PROMOTION-TEST")
        let t = (1...4).map { ManagedObjectID(entity: author, temporaryKey: Int64(50 + $0)) }
        let p = (1...4).map { ManagedObjectID(entity: author, storeToken: token, primaryKey: Int64($0)) }
        let map = IDPromotionMap(temporary: Array(t[0..<2]), permanent: Array(p[0..<2]))
        let other = ManagedObjectID(entity: author, storeToken: token, primaryKey: 99)
        #expect(map.rewritten([other, t[1], t[2], t[0]])?.elements == [other, p[1], t[2], p[0]])
        #expect(map.rewritten([t[0]])?.elements == [p[0]])
        #expect(map.rewritten([other, t[3]]) == nil)
        #expect(map.rewritten([]) == nil)
    }

    @Test("rewritten: a set of temporary members comes out unique in order; one already holding a member's permanent ID drops the duplicate")
    func rewrittenUniqueness() throws {
        let model = try LibraryModel.make()
        let author = try #require(model.entity(named: "Author"))
        let token = StoreIdentifiers.token(for: "PROMOTION-TEST")
        let t = (1...6).map { ManagedObjectID(entity: author, temporaryKey: Int64(700 + $0)) }
        let p = (1...6).map { ManagedObjectID(entity: author, storeToken: token, primaryKey: Int64(500 + $0)) }
        let map = IDPromotionMap(temporary: Array(t[0..<4]), permanent: Array(p[0..<4]))
        // All temporary (the set a new object holds): built without a uniqueness check, and unique.
        let rewritten = try #require(map.rewritten([t[5], t[3], t[4], t[2], t[1], t[0]]))
        #expect(Array(rewritten) == [t[5], p[3], t[4], p[2], p[1], p[0]])
        #expect(Set(rewritten).count == 6)
        #expect(rewritten.firstIndex(of: p[0]) == 5)
        // A member promoted earlier (obtainPermanentIDs) and linked again by its permanent ID.
        let mixed = try #require(map.rewritten([t[0], p[0], t[1]]))
        #expect(Array(mixed) == [p[0], p[1]])
        #expect(mixed.firstIndex(of: p[1]) == 1)
    }
}
