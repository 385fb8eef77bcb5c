import Foundation
import Testing
@testable import CoreStack

@Suite("Re-entrant performAndWait across parent and child")
struct ReentrancyTests {
    @Test("a child saved from inside its private parent's block does not deadlock")
    func childInsideParentBlock() throws {
        let stack = try TestStack(.inMemory)
        let root = stack.context
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: root, name: "child")
        let titles: [String] = try root.performAndWait {
            try child.performAndWait {
                let b = try Book(context: child)
                b.title = "Nested"
                try child.save()
            }
            try root.save()
            return try root.fetch(FetchRequest<Book>(entityName: "Book")).map(\.title)
        }
        #expect(titles == ["Nested"])
    }

    @Test("three levels: a grandchild saved inside its parent's block inside the root's block")
    func threeLevels() throws {
        let stack = try TestStack(.sqlite)
        let root = stack.context
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: root, name: "child")
        let grandchild = ManagedObjectContext(concurrencyType: .privateQueue, parent: child, name: "grandchild")
        let count: Int = try root.performAndWait {
            try child.performAndWait {
                try grandchild.performAndWait {
                    let b = try Book(context: grandchild)
                    b.title = "Deep"
                    try grandchild.save()
                }
                try child.save()
            }
            try root.save()
            let reader = stack.newContext()
            return try reader.performAndWait {
                try reader.count(for: FetchRequest<Book>(entityName: "Book"))
            }
        }
        #expect(count == 1)
    }
}
