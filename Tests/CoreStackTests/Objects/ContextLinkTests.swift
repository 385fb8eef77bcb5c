import Foundation
import Testing
@testable import CoreStack

@Suite("Objects reach their context through its link")
struct ContextLinkTests {
    @Test("an object that outlives its context sees no context, and its fault reports it instead of crashing")
    func outlivesContext() throws {
        let stack = try TestStack(.sqlite)
        try stack.context.performAndWait {
            let b = try Book(context: stack.context)
            b.title = "Dune"
            try stack.context.save()
        }
        var survivor: Book?
        weak var gone: ManagedObjectContext?
        do {
            let ctx = stack.newContext()
            gone = ctx
            survivor = try ctx.performAndWait { try ctx.fetch(FetchRequest<Book>(entityName: "Book")).first }
            #expect(survivor?.managedObjectContext === ctx)
        }
        #expect(gone == nil)
        let book = try #require(survivor)
        #expect(book.managedObjectContext == nil)
        #expect(book.isFault)
        #expect(throws: CoreStackError.self) { try book.fireFault() }
    }
}
