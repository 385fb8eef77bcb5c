import Foundation
import Testing

@testable import CoreStack

/// The hashes sets and dictionaries use for IDs and objects (`_rawHashValue(seed:)`, through a
/// `HashMixer`): equal values hash equal; the hash covers exactly what `==` compares.
@Suite struct SaveHashingTests {
    @Test("equal IDs hash equal, whatever the seed; IDs differing in key, entity, store or kind are unequal and kept apart")
    func idHashes() throws {
        let model = try LibraryModel.make()
        let book = try #require(model.entity(named: "Book"))
        let author = try #require(model.entity(named: "Author"))
        let a = ManagedObjectID(entity: book, storeIdentifier: "HASH-STORE-A", primaryKey: 7)
        let same = ManagedObjectID(entity: book, storeIdentifier: "HASH-STORE-A", primaryKey: 7)
        let others = [
            ManagedObjectID(entity: book, storeIdentifier: "HASH-STORE-A", primaryKey: 8),  // key
            ManagedObjectID(entity: author, storeIdentifier: "HASH-STORE-A", primaryKey: 7),  // entity
            ManagedObjectID(entity: book, storeIdentifier: "HASH-STORE-B", primaryKey: 7),  // store
            ManagedObjectID(entity: book, temporaryKey: 7),  // kind
        ]
        #expect(a == same)
        for seed in [0, 1, -1, 0x1234_5678, Int.max] {
            #expect(a._rawHashValue(seed: seed) == same._rawHashValue(seed: seed))
        }
        #expect(a.hashValue == same.hashValue)
        for o in others { #expect(o != a) }
        let set = Set([a, same] + others + others)
        #expect(set.count == 5)
        #expect(set.contains(same))
        var byID: [ManagedObjectID: Int] = [:]
        for (i, id) in ([a] + others).enumerated() { byID[id] = i }
        #expect(byID[same] == 0)
        #expect(others.enumerated().allSatisfy { byID[$1] == $0 + 1 })
        // Many IDs of runs of keys over two entities: all kept apart.
        let many = (1...5000).flatMap { k in [ManagedObjectID(entity: book, storeIdentifier: "HASH-STORE-A", primaryKey: Int64(k)), ManagedObjectID(entity: author, temporaryKey: Int64(k))] }
        #expect(Set(many).count == 10_000)
    }

    @Test("objects hash by identity: the same instance hashes equal, distinct instances are kept apart")
    func objectHashes() throws {
        let stack = try TestStack(.inMemory)
        try stack.context.performAndWait {
            let books = try (0..<100).map { _ in try Book(context: stack.context) }
            for seed in [0, 42] { #expect(books[0]._rawHashValue(seed: seed) == books[0]._rawHashValue(seed: seed)) }
            let set = Set(books + books)
            #expect(set.count == 100)
            #expect(books.allSatisfy { set.contains($0) })
            let fetched = try stack.context.fetch(FetchRequest<Book>(entityName: "Book"))
            #expect(Set(fetched) == set)
        }
    }

    @Test("an order key held inline, then more: each column's first key, every column checked")
    func pendingOrderKeys() {
        var keys = PendingOrderKeys(column: "Z_FOK_A", key: 1024)
        #expect(keys.key(for: "Z_FOK_A") == 1024)
        #expect(keys.key(for: "Z_FOK_B") == nil)
        #expect(keys.allColumns { $0 == "Z_FOK_A" })
        keys.append(column: "Z_FOK_B", key: 2048)
        keys.append(column: "Z_FOK_A", key: 9)
        #expect(keys.key(for: "Z_FOK_A") == 1024)
        #expect(keys.key(for: "Z_FOK_B") == 2048)
        #expect(!keys.allColumns { $0 == "Z_FOK_A" })
        #expect(keys.allColumns { $0.hasPrefix("Z_FOK_") })
    }
}
