import Foundation
@testable import CoreStack

/// A store that forwards every call to another one: tests subclass it to count or change one
/// kind of call (the rows a fault batch reads, a fetch that answers with stale rows).
class ForwardingStore: PersistentStore, @unchecked Sendable {
    let inner: any PersistentStore
    init(_ inner: any PersistentStore) { self.inner = inner }
    var model: ManagedObjectModel { inner.model }
    var identifier: String { inner.identifier }
    var url: URL? { nil }
    var isReadOnly: Bool { false }
    var metadata: StoreMetadata { inner.metadata }
    func fetch(_ r: StoreFetchRequest) throws -> [StoreRow] { try inner.fetch(r) }
    func count(_ r: StoreFetchRequest) throws -> Int { try inner.count(r) }
    func rows(for ids: [ManagedObjectID]) throws -> [StoreRow] { try inner.rows(for: ids) }
    func relatedObjectIDs(for ids: [ManagedObjectID], relationshipSlot slot: Int) throws -> [ManagedObjectID: [ManagedObjectID]] {
        try inner.relatedObjectIDs(for: ids, relationshipSlot: slot)
    }
    func newPrimaryKeys(for e: EntityDescription, count: Int) throws -> [Int64] { try inner.newPrimaryKeys(for: e, count: count) }
    func save(_ r: StoreSaveRequest) throws -> [ManagedObjectID: Int64] { try inner.save(r) }
    func fetchObjectIDColumns(
        _ r: StoreFetchRequest, valuesAt slots: [Int], cancellation: FetchCancellation?
    ) throws -> (ids: [ManagedObjectID], columns: [[AttributeValue]]) {
        try inner.fetchObjectIDColumns(r, valuesAt: slots, cancellation: cancellation)
    }
}
