import Foundation
import Testing

@testable import CoreStack

/// The coordinator's rows asked for by an ID a save has since made permanent.
@Suite struct SnapshotsByPromotedIDTests {
    @Test("snapshots(for:) answers under the ID asked for, a temporary one that a save promoted included, whether the row was cached or read from the store")
    func promotedTemporaryID() throws {
        let stack = try TestStack(.sqlite)
        let (temporary, permanent) = try stack.context.performAndWait {
            let b = try Book(context: stack.context)
            b.title = "Dune"
            let temporary = b.objectID
            try stack.context.save()
            return (temporary, b.objectID)
        }
        #expect(temporary.isTemporaryID && !permanent.isTemporaryID)
        let cached = try stack.coordinator.snapshots(for: [temporary])
        #expect(cached[temporary] != nil)
        stack.coordinator.invalidateRowCache()
        let read = try stack.coordinator.snapshots(for: [temporary])
        #expect(read[temporary] != nil)
        #expect(read[temporary]?.values == cached[temporary]?.values)
    }
}
