import Foundation
import Testing
@testable import CoreStack

@Suite("Context undo manager")
struct ContextUndoManagerTests {
    /// A stack whose root context records undo.
    static func stack(_ kind: StoreKind) throws -> TestStack {
        let stack = try TestStack(kind)
        stack.context.undoManager = ContextUndoManager()
        return stack
    }

    @Test("no undo manager by default; undo and redo without one do nothing")
    func defaultNil() throws {
        let stack = try TestStack(.inMemory)
        let ctx = stack.context
        try ctx.performAndWait {
            #expect(ctx.undoManager == nil)
            let b = try Book(context: ctx)
            b.title = "Kept"
            ctx.processPendingChanges()
            ctx.undo()
            #expect(b.title == "Kept" && b.isInserted)
        }
    }

    @Test("undo of an insert takes the object out; redo puts it back; save writes it", arguments: StoreKind.allCases)
    func insert(kind: StoreKind) throws {
        let stack = try Self.stack(kind)
        let ctx = stack.context
        try ctx.performAndWait {
            let um = try #require(ctx.undoManager)
            let b = try Book(context: ctx)
            b.title = "New"
            b.pages = 3
            ctx.processPendingChanges()
            #expect(um.canUndo && !um.canRedo)
            ctx.undo()
            #expect(!ctx.hasChanges)
            #expect(ctx.inserted.isEmpty)
            #expect(ctx.registeredObject(for: b.objectID) == nil)
            #expect(try ctx.count(for: FetchRequest<Book>(entityName: "Book")) == 0)
            #expect(!um.canUndo && um.canRedo)
            ctx.redo()
            #expect(b.isInserted && ctx.inserted == [b])
            #expect(b.title == "New" && b.pages == 3)
            try ctx.save()
        }
        let fresh = stack.newContext("fresh")
        try fresh.performAndWait {
            let titles = try fresh.fetch(FetchRequest<Book>(entityName: "Book")).map(\.title)
            #expect(titles == ["New"])
        }
    }

    @Test("undo of a delete brings back the object and what cascade deleted, with their relationships", arguments: StoreKind.allCases)
    func deleteWithCascade(kind: StoreKind) throws {
        let stack = try Self.stack(kind)
        let ctx = stack.context
        try ctx.performAndWait {
            let um = try #require(ctx.undoManager)
            let p = try Publisher(context: ctx)
            p.name = "Ace"
            let b = try Book(context: ctx)
            b.title = "Dune"
            b.publisher = p
            let c1 = try Chapter(context: ctx)
            c1.title = "One"
            let c2 = try Chapter(context: ctx)
            c2.title = "Two"
            b.chapters = [c1, c2]
            try ctx.save()
            um.removeAllActions()

            try ctx.delete(b)
            ctx.processPendingChanges()
            #expect(Set(ctx.deleted) == [b, c1, c2])
            #expect(p.books.isEmpty)  // nullified
            ctx.undo()
            #expect(ctx.deleted.isEmpty)
            #expect(!ctx.hasChanges)
            #expect(!b.isDeleted && !c1.isDeleted && !c2.isDeleted)
            #expect(b.chapters.map(\.title) == ["One", "Two"])
            #expect(c1.book === b && c2.book === b)
            #expect(b.publisher === p && p.books == [b])
            #expect(try ctx.count(for: FetchRequest<Book>(entityName: "Book")) == 1)
            #expect(try ctx.count(for: FetchRequest<Chapter>(entityName: "Chapter")) == 2)
            ctx.redo()
            #expect(Set(ctx.deleted) == [b, c1, c2])
            #expect(p.books.isEmpty)
            try ctx.save()
        }
        let fresh = stack.newContext("fresh")
        try fresh.performAndWait { () throws -> Void in
            #expect(try fresh.count(for: FetchRequest<Book>(entityName: "Book")) == 0)
            #expect(try fresh.count(for: FetchRequest<Chapter>(entityName: "Chapter")) == 0)
            #expect(try fresh.count(for: FetchRequest<Publisher>(entityName: "Publisher")) == 1)
        }
    }

    @Test("undo of a delete of an unsaved insert puts the object back as inserted", arguments: StoreKind.allCases)
    func deleteOfInsert(kind: StoreKind) throws {
        let stack = try Self.stack(kind)
        let ctx = stack.context
        try ctx.performAndWait {
            let b = try Book(context: ctx)
            b.title = "Draft"
            ctx.processPendingChanges()
            try ctx.delete(b)
            ctx.processPendingChanges()
            #expect(ctx.inserted.isEmpty)
            ctx.undo()
            #expect(b.isInserted && ctx.inserted == [b] && b.title == "Draft")
            ctx.undo()
            #expect(ctx.inserted.isEmpty && !ctx.hasChanges)
        }
    }

    @Test("attribute changes: undo restores the old value, redo the new one", arguments: StoreKind.allCases)
    func attribute(kind: StoreKind) throws {
        let stack = try Self.stack(kind)
        let ctx = stack.context
        try ctx.performAndWait {
            let b = try Book(context: ctx)
            b.title = "A"
            b.pages = 1
            try ctx.save()
            ctx.undoManager?.removeAllActions()
            b.title = "B"
            b.price = 9.5
            ctx.processPendingChanges()
            ctx.undo()
            #expect(b.title == "A" && b.price == nil)
            #expect(!b.hasChanges && !ctx.hasChanges)
            ctx.redo()
            #expect(b.title == "B" && b.price == 9.5)
            #expect(b.isUpdated && ctx.updated == [b])
        }
    }

    @Test("to-one: undo puts back the old destination and both inverses", arguments: StoreKind.allCases)
    func toOne(kind: StoreKind) throws {
        let stack = try Self.stack(kind)
        let ctx = stack.context
        try ctx.performAndWait {
            let p1 = try Publisher(context: ctx)
            p1.name = "P1"
            let p2 = try Publisher(context: ctx)
            p2.name = "P2"
            let b = try Book(context: ctx)
            b.title = "T"
            b.publisher = p1
            try ctx.save()
            ctx.undoManager?.removeAllActions()
            b.publisher = p2
            ctx.processPendingChanges()
            #expect(p1.books.isEmpty && p2.books == [b])
            ctx.undo()
            #expect(b.publisher === p1)
            #expect(p1.books == [b] && p2.books.isEmpty)
            #expect(!ctx.hasChanges)
            ctx.redo()
            #expect(b.publisher === p2 && p1.books.isEmpty && p2.books == [b])
            b.publisher = nil
            ctx.processPendingChanges()
            ctx.undo()
            #expect(b.publisher === p2 && p2.books == [b])
        }
    }

    @Test("to-many: undo puts back the destinations and their inverses", arguments: StoreKind.allCases)
    func toMany(kind: StoreKind) throws {
        let stack = try Self.stack(kind)
        let ctx = stack.context
        try ctx.performAndWait {
            let a1 = try Author(context: ctx)
            a1.name = "A1"
            let a2 = try Author(context: ctx)
            a2.name = "A2"
            let b = try Book(context: ctx)
            b.title = "T"
            b.authors = [a1]
            try ctx.save()
            ctx.undoManager?.removeAllActions()
            b.authors = [a2]
            ctx.processPendingChanges()
            #expect(a1.books.isEmpty && a2.books == [b])
            ctx.undo()
            #expect(b.authors == [a1])
            #expect(a1.books == [b] && a2.books.isEmpty)
            #expect(!ctx.hasChanges)
            ctx.redo()
            #expect(b.authors == [a2] && a1.books.isEmpty && a2.books == [b])
            try ctx.save()
        }
        let fresh = stack.newContext("fresh")
        try fresh.performAndWait {
            let b = try #require(try fresh.fetch(FetchRequest<Book>(entityName: "Book")).first)
            #expect(b.authors.map(\.name) == ["A2"])
        }
    }

    @Test("ordered to-many: undo restores the order and membership", arguments: StoreKind.allCases)
    func orderedToMany(kind: StoreKind) throws {
        let stack = try Self.stack(kind)
        let ctx = stack.context
        try ctx.performAndWait {
            let b = try Book(context: ctx)
            b.title = "T"
            let chapters = try ["1", "2", "3"].map { t in
                let c = try Chapter(context: ctx)
                c.title = t
                return c
            }
            b.chapters = chapters
            try ctx.save()
            ctx.undoManager?.removeAllActions()
            try b.moveObject(from: 2, to: 0, inKey: "chapters")
            ctx.processPendingChanges()
            #expect(b.chapters.map(\.title) == ["3", "1", "2"])
            let extra = try Chapter(context: ctx)
            extra.title = "X"
            try b.insert(extra, at: 1, inKey: "chapters")
            ctx.processPendingChanges()
            #expect(b.chapters.map(\.title) == ["3", "X", "1", "2"])
            ctx.undo()
            #expect(b.chapters.map(\.title) == ["3", "1", "2"])
            #expect(extra.managedObjectContext == nil || extra.isDeleted || ctx.registeredObject(for: extra.objectID) == nil)
            ctx.undo()
            #expect(b.chapters.map(\.title) == ["1", "2", "3"])
            #expect(!ctx.hasChanges)
            ctx.redo()
            ctx.redo()
            #expect(b.chapters.map(\.title) == ["3", "X", "1", "2"])
            #expect(extra.book === b)
            try ctx.save()
        }
        let fresh = stack.newContext("fresh")
        try fresh.performAndWait {
            let b = try #require(try fresh.fetch(FetchRequest<Book>(entityName: "Book")).first)
            #expect(b.chapters.map(\.title) == ["3", "X", "1", "2"])
        }
    }

    @Test("grouping: an explicit group is one step; by event, one step per processPendingChanges; action names")
    func grouping() throws {
        let stack = try Self.stack(.inMemory)
        let ctx = stack.context
        try ctx.performAndWait {
            let um = try #require(ctx.undoManager)
            let b = try Book(context: ctx)
            b.title = "A"
            b.pages = 1
            try ctx.save()
            um.removeAllActions()
            #expect(um.groupingLevel == 0)
            ctx.undoGroup(named: "Edit book") {
                #expect(um.groupingLevel == 1)
                b.title = "B"
                ctx.processPendingChanges()  // does not end an explicit group
                um.beginUndoGrouping()
                #expect(um.groupingLevel == 2)
                b.pages = 2
                um.endUndoGrouping()
            }
            #expect(um.groupingLevel == 0)
            #expect(um.undoActionName == "Edit book")
            // By event: two batches, two steps.
            b.title = "C"
            ctx.processPendingChanges()
            b.pages = 3
            ctx.processPendingChanges()
            um.setActionName("Pages")
            #expect(um.undoCount == 3)
            #expect(um.undoActionName == "Pages")
            ctx.undo()
            #expect(b.title == "C" && b.pages == 2)
            #expect(um.redoActionName == "Pages")
            ctx.undo()
            #expect(b.title == "B" && b.pages == 2)
            ctx.undo()
            #expect(b.title == "A" && b.pages == 1)
            #expect(!um.canUndo && um.redoCount == 3)
            // With grouping by event off, changes outside an explicit group are not recorded.
            um.removeAllActions()
            um.groupsByEvent = false
            b.title = "D"
            ctx.processPendingChanges()
            #expect(!um.canUndo)
        }
    }

    @Test("a change made after an undo clears what could be redone", arguments: StoreKind.allCases)
    func newChangeClearsRedo(kind: StoreKind) throws {
        let stack = try Self.stack(kind)
        let ctx = stack.context
        try ctx.performAndWait {
            let um = try #require(ctx.undoManager)
            let b = try Book(context: ctx)
            b.title = "A"
            ctx.processPendingChanges()
            b.title = "B"
            ctx.processPendingChanges()
            ctx.undo()
            #expect(um.canRedo && b.title == "A")
            b.title = "C"
            #expect(!um.canRedo)
            ctx.processPendingChanges()
            ctx.redo()
            #expect(b.title == "C")
            ctx.undo()
            #expect(b.title == "A")
        }
    }

    @Test("undo after a save makes the context dirty with the reverse change; saving again writes it", arguments: StoreKind.allCases)
    func undoAfterSave(kind: StoreKind) throws {
        let stack = try Self.stack(kind)
        let ctx = stack.context
        let id: ManagedObjectID = try ctx.performAndWait {
            let b = try Book(context: ctx)
            b.title = "Old"
            b.pages = 10
            try ctx.save()
            ctx.undoManager?.removeAllActions()
            b.title = "New"
            try ctx.save()
            #expect(!ctx.hasChanges)
            ctx.undo()
            #expect(ctx.hasChanges && b.isUpdated && b.title == "Old")
            #expect(b.changedValues() == ["title": .attribute("Old")])
            try ctx.save()
            return b.objectID
        }
        let fresh = stack.newContext("fresh")
        try fresh.performAndWait {
            let b = try #require(try fresh.existingObject(with: id) as? Book)
            #expect(b.title == "Old")
        }
        // Undo of a saved insert deletes the object from the store at the next save.
        try ctx.performAndWait {
            ctx.undoManager?.removeAllActions()
            let n = try Book(context: ctx)
            n.title = "Inserted"
            try ctx.save()
            ctx.undo()
            #expect(ctx.deleted == [n])
            try ctx.save()
            ctx.undo()  // nothing left: the save is not a step
        }
        try fresh.performAndWait {
            let titles = try fresh.fetch(FetchRequest<Book>(entityName: "Book")).map(\.title)
            #expect(titles == ["Old"])
        }
    }

    @Test("undo of a delete that was saved inserts the object again", arguments: StoreKind.allCases)
    func undoSavedDelete(kind: StoreKind) throws {
        let stack = try Self.stack(kind)
        let ctx = stack.context
        try ctx.performAndWait {
            let b = try Book(context: ctx)
            b.title = "Gone"
            b.pages = 7
            try ctx.save()
            ctx.undoManager?.removeAllActions()
            try ctx.delete(b)
            try ctx.save()
            ctx.undo()
            #expect(b.isInserted && b.title == "Gone")
            try ctx.save()
        }
        let fresh = stack.newContext("fresh")
        try fresh.performAndWait {
            let books = try fresh.fetch(FetchRequest<Book>(entityName: "Book"))
            #expect(books.map(\.title) == ["Gone"] && books.map(\.pages) == [7])
        }
    }

    @Test("levelsOfUndo keeps only the newest groups")
    func levels() throws {
        let stack = try Self.stack(.inMemory)
        let ctx = stack.context
        try ctx.performAndWait {
            let um = try #require(ctx.undoManager)
            um.levelsOfUndo = 2
            let b = try Book(context: ctx)
            b.title = "0"
            try ctx.save()
            um.removeAllActions()
            for i in 1...5 {
                b.title = "\(i)"
                ctx.processPendingChanges()
            }
            #expect(um.undoCount == 2)
            #expect(um.undo() && um.undo())
            #expect(b.title == "3")
            #expect(!um.undo())
            #expect(b.title == "3")
        }
    }

    @Test("rollback and reset clear the undo stack")
    func rollbackAndResetClear() throws {
        let stack = try Self.stack(.inMemory)
        let ctx = stack.context
        try ctx.performAndWait {
            let um = try #require(ctx.undoManager)
            let b = try Book(context: ctx)
            b.title = "A"
            ctx.processPendingChanges()
            #expect(um.canUndo)
            ctx.rollback()
            #expect(!um.canUndo && !um.canRedo)
            let c = try Book(context: ctx)
            c.title = "B"
            ctx.processPendingChanges()
            ctx.undo()
            #expect(um.canRedo)
            ctx.reset()
            #expect(!um.canUndo && !um.canRedo)
        }
    }

    @Test("a fetched results controller on the context follows undo and redo")
    func controllerFollowsUndo() throws {
        let stack = try BookFixture.makeStack()
        let ctx = stack.context
        ctx.undoManager = ContextUndoManager()
        let controller = BookFixture.controller(ctx)
        let recorder = RecordingDelegate()
        controller.delegate = recorder
        try ctx.performAndWait { try controller.performFetch() }
        try ctx.performAndWait {
            #expect(controller.count == 100)
            let b = try Book(context: ctx)
            b.title = "0000"
            ctx.processPendingChanges()
            #expect(controller.count == 101)
            ctx.undo()
            #expect(controller.count == 100)
            #expect(controller.fetchedObjects.allSatisfy { $0.title != "0000" })
            ctx.redo()
            #expect(controller.count == 101)
            let dune = try #require(controller.fetchedObjects.first { $0.title == "Dune" })
            try ctx.delete(dune)
            ctx.processPendingChanges()
            #expect(controller.count == 100)
            ctx.undo()
            #expect(controller.count == 101)
            #expect(controller.fetchedObjects.contains(dune))
            dune.title = "Zzz"
            ctx.processPendingChanges()
            #expect(controller.fetchedObjects.last === dune)
            ctx.undo()
            #expect(controller.fetchedObjects.last?.title == "Zuleika Dobson")
        }
        #expect(recorder.didCount >= 7)
    }
}
