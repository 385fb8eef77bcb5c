import Foundation
import Testing

@testable import CoreStack

/// ``StoreDiff`` matching by a key of several attributes: a compound uniqueness constraint, or
/// `--key Entity=a,b`, across two different stores written by CoreStack.
@Suite("store diff: compound keys")
struct StoreDiffCompoundKeyTests {
    /// Editions unique by (title, year); reviews (no key of their own) point at an edition;
    /// printings unique by nothing, matched by a key given.
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionName: "Editions") {
            EntityDescription("Edition", uniquenessConstraints: [["title", "year"]]) {
                AttributeDescription("title", .string, isOptional: false)
                AttributeDescription("year", .integer32, isOptional: false)
                AttributeDescription("price", .double)
                RelationshipDescription("reviews", destination: "Review", inverse: "edition", toMany: true)
            }
            EntityDescription("Review") {
                AttributeDescription("reviewer", .string)
                AttributeDescription("stars", .integer16)
                RelationshipDescription("edition", destination: "Edition", inverse: "reviews")
            }
        }
    }

    /// Editions (title, year, price) in the order given, and one review per (reviewer, stars, edition index).
    static func write(_ url: URL, editions: [(String, Int, Double)], reviews: [(String, Int, Int)]) throws {
        try StoreDiffTests.write(url, model: try model()) { c in
            var made: [ManagedObject] = []
            for (title, year, price) in editions {
                let e = try c.insertObject(forEntityName: "Edition")
                try e.setValue(title, forKey: "title")
                try e.setValue(year, forKey: "year")
                try e.setValue(price, forKey: "price")
                made.append(e)
            }
            for (reviewer, stars, edition) in reviews {
                let r = try c.insertObject(forEntityName: "Review")
                try r.setValue(reviewer, forKey: "reviewer")
                try r.setValue(stars, forKey: "stars")
                try r.setValue(made[edition], forKey: "edition")
            }
        }
    }

    @Test("objects are matched by a compound uniqueness constraint and by a compound key given; they and the to-ones pointing at them are named by their columns' values")
    func compoundKeys() throws {
        let folder = try Fixtures.temporaryFolder()
        let a = folder.appendingPathComponent("a.sqlite"), b = folder.appendingPathComponent("b.sqlite")
        try Self.write(a, editions: [("Dune", 1965, 5.95), ("Dune", 1984, 9.95), ("Emma", 1815, 1)],
                       reviews: [("ann", 5, 0), ("bob", 3, 2)])
        // Another store, other order (other Z_PKs): the 1984 Dune's price changed, a 2021 Dune
        // inserted, Emma gone, bob's review moved to the 1965 Dune.
        try Self.write(b, editions: [("Dune", 2021, 18), ("Dune", 1984, 12.5), ("Dune", 1965, 5.95)],
                       reviews: [("bob", 3, 2), ("ann", 5, 2)])
        let model = try Self.model()
        let old = try SQLiteStore(url: a, model: model, readOnly: true)
        let new = try SQLiteStore(url: b, model: model, readOnly: true)
        defer { old.close(); new.close() }
        for chunk in [1, 2000] {
            let report = try StoreDiff(old: old, new: new, options: StoreDiffOptions(keys: ["Review": "reviewer, stars"], chunkSize: chunk)).run()
            let edition = try #require(report.entities.first { $0.name == "Edition" })
            #expect(edition.match == .attribute(name: "title,year", source: "uniqueness constraint"))
            #expect((edition.insertedCount, edition.deletedCount, edition.changedCount, edition.unchangedCount) == (1, 1, 1, 1))
            #expect(edition.changed.map(\.key) == ["'Dune', 1984"])
            #expect(edition.changed.first?.attributes == [AttributeChange(name: "price", old: 9.95, new: 12.5)])
            #expect(edition.inserted.map(\.key) == ["'Dune', 2021"])
            #expect(edition.deleted.map(\.key) == ["'Emma', 1815"])
            let review = try #require(report.entities.first { $0.name == "Review" })
            #expect(review.match == .attribute(name: "reviewer,stars", source: "given"))
            #expect((review.changedCount, review.unchangedCount) == (1, 1))
            #expect(review.changed.first?.key == "'bob', 3")
            #expect(review.changed.first?.relationships == [
                RelationshipChange(name: "edition", destinationEntity: "Edition", old: "'Emma', 1815", new: "'Dune', 1965")
            ])
        }
        // The objects those keys name are found in each store.
        let diff = StoreDiff(old: old, new: new)
        let dune84Old = try #require(try diff.primaryKey(of: "Edition", matching: "'Dune', 1984", in: .old))
        let dune84New = try #require(try diff.primaryKey(of: "Edition", matching: "'Dune', 1984", in: .new))
        #expect(dune84Old == Int64(try RawSQLite.scalar("SELECT Z_PK FROM ZEDITION WHERE ZYEAR = 1984", in: a)))
        #expect(dune84New == Int64(try RawSQLite.scalar("SELECT Z_PK FROM ZEDITION WHERE ZYEAR = 1984", in: b)))
        #expect(try diff.primaryKey(of: "Edition", matching: "'Emma', 1815", in: .new) == nil)
        // A key given naming an attribute the entity lacks, or an empty part, is an error naming it.
        #expect(throws: CoreStackError.unknownKey(entity: "Review", key: "reviewer,mood")) {
            try StoreDiff(old: old, new: new, options: StoreDiffOptions(keys: ["Review": "reviewer,mood"])).run()
        }
        #expect(throws: CoreStackError.unknownKey(entity: "Review", key: "reviewer,")) {
            try StoreDiff(old: old, new: new, options: StoreDiffOptions(keys: ["Review": "reviewer,"])).run()
        }
    }
}
