import Foundation
import Testing

@testable import CoreStack

/// A root save walks its inserted objects as few times as it can: validation gathers the inserts
/// to promote, the promotion moves each object to its permanent ID, rewrites the references it
/// holds and makes its row change in one visit, and the did-save takes the IDs the promotion
/// noted. These tests check that what each fused pass does is what the separate passes did.
@Suite("save walks: validation, promotion and row changes in fewer passes")
struct SaveWalkTests {
    /// Inserts `count` books, each with three of `count / 4 + 1` authors and `chapters` ordered
    /// chapters, all titled; returns the books, the authors and the chapters, in insert order.
    static func insertLibrary(
        _ context: ManagedObjectContext, books count: Int, chapters: Int = 4
    ) throws -> (books: [Book], authors: [Author], chapters: [Chapter]) {
        let authors = try (0..<(count / 4 + 1)).map { k in
            let a = try Author(context: context)
            a.name = "Author \(k)"
            return a
        }
        var allChapters: [Chapter] = []
        let books = try (0..<count).map { i in
            let b = try Book(context: context)
            b.title = "Book \(i)"
            b.pages = i
            let cs = try (0..<chapters).map { j in
                let c = try Chapter(context: context)
                c.title = "Chapter \(j) of \(i)"
                return c
            }
            allChapters += cs
            b.chapters = cs
            b.authors = Set((0..<3).map { authors[(i + $0 * 7) % authors.count] })
            return b
        }
        return (books, authors, allChapters)
    }

    @Test("a validation failure in a save of many new objects throws the first failure, writes nothing and leaves every ID temporary", arguments: StoreKind.allCases)
    func validationFailureLeavesEverythingTemporary(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ctx = stack.context
        try ctx.performAndWait {
            let (books, authors, chapters) = try Self.insertLibrary(ctx, books: 300)
            // Two bad objects, the first inserted reported: a chapter without a title (required),
            // then a book with negative pages (minimum 0).
            let bad = chapters[chapters.count / 2]
            try bad.setValue(nil, forKey: "title")
            try books.last!.setValue(-1, forKey: "pages")
            let all: [ManagedObject] = authors + books + chapters
            let before = all.map(\.objectID)
            #expect(throws: CoreStackError.validation(
                entity: "Chapter", property: "title", objectID: bad.objectID.description, reason: "a value is required")) {
                try ctx.save()
            }
            // Nothing promoted, every reference still the temporary one, nothing written.
            #expect(all.allSatisfy { $0.objectID.isTemporaryID })
            #expect(all.map(\.objectID) == before)
            #expect(books.allSatisfy { $0.chapters.allSatisfy(\.objectID.isTemporaryID) })
            #expect(chapters.allSatisfy { $0.book?.objectID.isTemporaryID == true })
            let reader = stack.newContext("reader")
            #expect(try reader.performAndWait { try reader.count(for: FetchRequest<Book>(entityName: "Book")) } == 0)
            #expect(ctx.inserted.count == all.count)
            // Fixed, it saves: every object and every reference permanent, the store holding them.
            try bad.setValue("Found", forKey: "title")
            try books.last!.setValue(1, forKey: "pages")
            try ctx.save()
            #expect(all.allSatisfy { !$0.objectID.isTemporaryID })
            #expect(books.allSatisfy { $0.chapters.allSatisfy { !$0.objectID.isTemporaryID } })
        }
        let other = stack.newContext()
        try other.performAndWait {
            let fetched = try other.fetch(FetchRequest<Book>(entityName: "Book"))
            #expect(fetched.count == 300)
            // Book 1, and book 299 fixed to 1 page.
            #expect(fetched.filter { $0.pages == 1 }.map(\.title).sorted() == ["Book 1", "Book 299"])
            #expect(fetched.allSatisfy { $0.chapters.count == 4 && $0.authors.count == 3 })
            let book = try #require(fetched.first { $0.title == "Book 7" })
            #expect(book.chapters.map(\.title) == (0..<4).map { "Chapter \($0) of 7" })
        }
    }

    @Test("a save of many new objects: the did-save's inserted IDs are the objects' permanent IDs, every reference rewritten, the rows written", arguments: StoreKind.allCases)
    func savedIDsAndReferences(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ctx = stack.context
        var bookIDs: [ManagedObjectID] = []
        try ctx.performAndWait {
            var saved: Set<ManagedObjectID> = []
            let token = ctx.addDidSaveObserver { saved = $0.objectIDs.inserted }
            defer { ctx.removeObserver(token) }
            let (books, authors, chapters) = try Self.insertLibrary(ctx, books: 200, chapters: 3)
            let all: [ManagedObject] = authors + books + chapters
            try ctx.save()
            #expect(saved == Set(all.map(\.objectID)))
            #expect(saved.count == all.count)
            #expect(saved.allSatisfy { !$0.isTemporaryID })
            for o in all {
                #expect(ctx.registeredObject(for: o.objectID) === o)
                #expect(!o.hasChanges)
            }
            for b in books {
                #expect(b.chapters.allSatisfy { !$0.objectID.isTemporaryID && $0.book === b })
                #expect(b.authors.allSatisfy { !$0.objectID.isTemporaryID && $0.books.contains(b) })
                #expect(try b.objectIDs(forRelationshipNamed: "chapters").allSatisfy { !$0.isTemporaryID })
            }
            bookIDs = books.map(\.objectID)
        }
        let other = stack.newContext()
        try other.performAndWait {
            for (i, id) in bookIDs.enumerated() where i % 17 == 0 {
                let b = try #require(try other.existingObject(with: id) as? Book)
                #expect(b.title == "Book \(i)")
                #expect(b.chapters.map(\.title) == (0..<3).map { "Chapter \($0) of \(i)" })
                #expect(b.authors.count == 3)
            }
        }
    }

    @Test("a save whose inserts are partly promoted already (obtainPermanentIDs) rewrites the others' references and reports every ID", arguments: StoreKind.allCases)
    func partlyPromotedInserts(kind: StoreKind) throws {
        let stack = try TestStack(kind)
        let ctx = stack.context
        try ctx.performAndWait {
            var saved: Set<ManagedObjectID> = []
            let token = ctx.addDidSaveObserver { saved = $0.objectIDs.inserted }
            defer { ctx.removeObserver(token) }
            let (books, authors, chapters) = try Self.insertLibrary(ctx, books: 40, chapters: 2)
            try ctx.obtainPermanentIDs(for: Array(books.prefix(10)) + Array(chapters.suffix(5)))
            let all: [ManagedObject] = authors + books + chapters
            try ctx.save()
            #expect(saved == Set(all.map(\.objectID)))
            #expect(all.allSatisfy { !$0.objectID.isTemporaryID && !$0.hasChanges })
            #expect(chapters.allSatisfy { $0.book.map { !$0.objectID.isTemporaryID } == true })
        }
        let other = stack.newContext()
        try other.performAndWait {
            let fetched = try other.fetch(FetchRequest<Chapter>(entityName: "Chapter"))
            #expect(fetched.count == 80)
            #expect(fetched.allSatisfy { $0.book != nil })
        }
    }

    /// A model whose relationships have each kind of rule a save checks (and some that cannot fail).
    static func rulesModel() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionName: "Rules", versionIdentifiers: ["1"]) {
            EntityDescription("Crew") {
                AttributeDescription("name", .string)
                RelationshipDescription("ship", destination: "Ship", inverse: "crew", isOptional: false)
                RelationshipDescription("friends", destination: "Crew", inverse: "friendOf", toMany: true)
                RelationshipDescription("friendOf", destination: "Crew", inverse: "friends", toMany: true)
                RelationshipDescription("note", destination: "Ship", isOptional: false, isTransient: true)
            }
            EntityDescription("Ship") {
                AttributeDescription("name", .string, isOptional: false)
                RelationshipDescription("crew", destination: "Crew", inverse: "ship", toMany: true, minCount: 2, maxCount: 3)
                RelationshipDescription(
                    "escorts", destination: "Ship", inverse: "escorted", toMany: true, isOptional: false, minCount: 1)
                RelationshipDescription("escorted", destination: "Ship", inverse: "escorts", toMany: true)
            }
        }
    }

    @Test("relationship rules: a required to-one, a to-many's minimum and maximum, a required to-many; optional and transient ones never fail")
    func relationshipRules() throws {
        let model = try Self.rulesModel()
        #expect(model.entity(named: "Crew")?.validatedRelationshipSlots == [0])
        #expect(model.entity(named: "Ship")?.validatedRelationshipSlots == [0, 1])
        let stack = try TestStack(model: model)
        let ctx = stack.context
        try ctx.performAndWait {
            let ship = try ctx.insertObject(forEntityName: "Ship")
            try ship.setValue("Rocinante", forKey: "name")
            let escort = try ctx.insertObject(forEntityName: "Ship")
            try escort.setValue("Tachi", forKey: "name")
            try escort.add(ship, toKey: "escorts")
            let holden = try ctx.insertObject(forEntityName: "Crew")
            func failure() -> String {
                do {
                    try ctx.save()
                    return "saved"
                } catch let CoreStackError.validation(entity, property, objectID, reason) {
                    let who = objectID == ship.objectID.description ? "ship" : objectID == escort.objectID.description ? "escort" : "crew"
                    return "\(entity).\(property ?? "") of \(who): \(reason)"
                } catch {
                    return "\(error)"
                }
            }
            // Inserted order: the ship first; its crew is empty, which its minimum allows (an
            // empty optional to-many passes), but it escorts nobody (required).
            #expect(failure() == "Ship.escorts of ship: a destination is required")
            try ship.add(escort, toKey: "escorts")
            // The crew member has no ship (a required to-one); its transient required note is
            // never checked, nor its empty optional to-manys.
            #expect(failure() == "Crew.ship of crew: a destination is required")
            try holden.setObject(ship, forKey: "ship")
            #expect(failure() == "Ship.crew of ship: 1 destinations, at least 2 required")
            var crew = [holden]
            for name in ["Naomi", "Amos", "Alex"] {
                let c = try ctx.insertObject(forEntityName: "Crew")
                try c.setValue(name, forKey: "name")
                try c.setObject(ship, forKey: "ship")
                crew.append(c)
            }
            #expect(failure() == "Ship.crew of ship: 4 destinations, at most 3 allowed")
            try crew[3].setObject(escort, forKey: "ship")
            // The escort now has one crew member: below its minimum.
            #expect(failure() == "Ship.crew of escort: 1 destinations, at least 2 required")
            try crew[2].setObject(escort, forKey: "ship")
            #expect(ctx.inserted.allSatisfy { $0.objectID.isTemporaryID })
            #expect(failure() == "saved")
            #expect(ctx.registeredObjects.allSatisfy { !$0.objectID.isTemporaryID })
        }
    }
}
