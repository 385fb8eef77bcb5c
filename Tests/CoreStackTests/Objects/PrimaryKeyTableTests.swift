import Foundation
import Testing
@testable import CoreStack

@Suite("PrimaryKeyTable: values by primary key, in pages")
struct PrimaryKeyTableTests {
    @Test("random sets, updates, look-ups and removals agree with a Dictionary", arguments: [1, 2, 3])
    func agreesWithDictionary(seed: Int) throws {
        let model = try LibraryModel.make()
        let entities = try ["Book", "Author", "Publisher"].map { try #require(model.entity(named: $0)) }
        var rng = SplitMix64(seed: UInt64(seed))
        let table = PrimaryKeyTable<Int>()
        var oracle: [ManagedObjectID: Int] = [:]
        for step in 0..<30_000 {
            let entity = entities[Int(rng.next() % 3)]
            // Keys over a few pages, two stores, and temporary IDs with the same numbers.
            let key = Int64(rng.next() % 5_000) + 1
            let id: ManagedObjectID
            switch rng.next() % 5 {
            case 0: id = ManagedObjectID(entity: entity, temporaryKey: key)
            case 1: id = ManagedObjectID(entity: entity, storeToken: 2, primaryKey: key)
            default: id = ManagedObjectID(entity: entity, storeToken: 1, primaryKey: key)
            }
            switch rng.next() % 6 {
            case 0:
                #expect(table.updateValue(step, forKey: id) == oracle.updateValue(step, forKey: id))
            case 1:
                table.setValue(step, forKey: id)
                oracle[id] = step
            case 2:
                var made = false
                let got = table.value(forKey: id, orInsert: { made = true; return step })
                #expect(made == (oracle[id] == nil))
                if oracle[id] == nil { oracle[id] = step }
                #expect(got == oracle[id])
            case 3:
                #expect(table.removeValue(forKey: id) == oracle.removeValue(forKey: id))
            default:
                #expect(table[id] == oracle[id])
            }
            #expect(table.count == oracle.count)
        }
        for (id, v) in oracle { #expect(table[id] == v) }
        #expect(table.values.sorted() == oracle.values.sorted())
    }

    @Test("a page that empties is freed, its values released, and the table still finds the rest")
    func pagesEmpty() throws {
        let model = try LibraryModel.make()
        let book = try #require(model.entity(named: "Book"))
        final class Box {}
        let table = PrimaryKeyTable<Box>()
        weak var first: Box?
        do {
            let b = Box()
            first = b
            table[ManagedObjectID(entity: book, storeToken: 1, primaryKey: 5)] = b
        }
        table[ManagedObjectID(entity: book, storeToken: 1, primaryKey: 5_000)] = Box()
        #expect(first != nil)
        // Removing the only value of the page last used frees it (and forgets it as the hot page).
        table[ManagedObjectID(entity: book, storeToken: 1, primaryKey: 5_000)] = nil
        #expect(table[ManagedObjectID(entity: book, storeToken: 1, primaryKey: 5_000)] == nil)
        #expect(table[ManagedObjectID(entity: book, storeToken: 1, primaryKey: 5)] === first)
        table[ManagedObjectID(entity: book, storeToken: 1, primaryKey: 5)] = nil
        #expect(first == nil)
        #expect(table.count == 0)
        table[ManagedObjectID(entity: book, storeToken: 1, primaryKey: 5)] = Box()
        table.removeAll()
        #expect(table.count == 0)
        #expect(table[ManagedObjectID(entity: book, storeToken: 1, primaryKey: 5)] == nil)
    }

    @Test("value(forKey:orInsert:) whose make empties the page, or inserts the key itself: no stale page, no double count")
    func reentrantMake() throws {
        // Run under AddressSanitizer in CI: the page `make` frees was once still being written.
        let model = try LibraryModel.make()
        let book = try #require(model.entity(named: "Book"))
        final class Box {
            let name: String
            init(_ name: String) { self.name = name }
        }
        let table = PrimaryKeyTable<Box>()
        func id(_ key: Int64) -> ManagedObjectID { ManagedObjectID(entity: book, storeToken: 1, primaryKey: key) }
        table[id(5)] = Box("five")
        // Same page as 5 (the hot page): make removes the page's only value, so the table frees it.
        let six = table.value(forKey: id(6)) {
            table[id(5)] = nil
            return Box("six")
        }
        #expect(six.name == "six")
        #expect(table[id(6)]?.name == "six")
        #expect(table[id(5)] == nil)
        #expect(table.count == 1)
        // make stores the very key it is asked for: that value stays, counted once.
        let seven = table.value(forKey: id(7)) {
            table[id(7)] = Box("inner")
            return Box("outer")
        }
        #expect(seven.name == "inner")
        #expect(table[id(7)]?.name == "inner")
        #expect(table.count == 2)
        #expect(table.values.map(\.name).sorted() == ["inner", "six"])
    }

    @Test("removeAll(whereSlot:) that empties every page frees them all and forgets the hot page; the table starts over")
    func pageDroppedDuringRemoveAll() throws {
        let model = try LibraryModel.make()
        let author = try #require(model.entity(named: "Author"))
        let table = PrimaryKeyTable<Int>()
        for k in 1...3_000 { table[ManagedObjectID(entity: author, storeToken: 1, primaryKey: Int64(k))] = k }
        // Emptying every page frees them all (and forgets the hot one); the table then starts over.
        #expect(table.removeAll(whereSlot: { slot in slot.map { $0 % 2 == 0 || $0 % 2 == 1 } ?? false }) == 3_000)
        #expect(table.count == 0)
        table[ManagedObjectID(entity: author, storeToken: 1, primaryKey: 2_999)] = 1
        #expect(table[ManagedObjectID(entity: author, storeToken: 1, primaryKey: 2_999)] == 1)
        #expect(table[ManagedObjectID(entity: author, storeToken: 1, primaryKey: 3_000)] == nil)
    }
}
