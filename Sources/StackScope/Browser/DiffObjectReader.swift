import CoreStack
import Foundation

/// Reads one object of a store diff from both stores for the diff view's detail pane
/// (``DiffObjectDetail``): every attribute and relationship on each side, the changes the diff
/// found marked, and the relationship changes listed.
///
/// ```swift
/// let reader = DiffObjectReader(stores: stores, matchedByPrimaryKey: report.matchedByPrimaryKey)
/// let detail = try reader.detail(of: .changed(change), in: bookDiff)
/// detail.lines.filter(\.changed).map(\.name)   // ["title"]
/// ```
struct DiffObjectReader {
    var stores: DiffStores
    var matchedByPrimaryKey: Bool

    /// The two sides of the object a line of the objects pane names.
    func detail(of row: DiffViewState.Row, in e: EntityDiff) throws -> DiffObjectDetail {
        let dates = DiffCommand.dateFormatter()
        func ref(_ entity: String, _ key: AttributeValue) -> String { DiffCommand.reference(entity, key, dates) }
        let key: AttributeValue
        var oldPK: Int64?, newPK: Int64?
        var changedNames: Set<String> = []
        var changes: [String] = []
        switch row {
        case let .changed(c):
            (key, oldPK, newPK) = (c.key, c.oldPrimaryKey, c.newPrimaryKey)
            changedNames = Set(c.attributes.map(\.name) + c.relationships.map(\.name))
            changes = c.relationships.map { "\($0.name): \(ref($0.destinationEntity, $0.old)) → \(ref($0.destinationEntity, $0.new))" }
        case let .inserted(o): (key, newPK) = (o.key, o.primaryKey)
        case let .deleted(o): (key, oldPK) = (o.key, o.primaryKey)
        case let .link(l):
            key = l.source
            // By primary key the link's owner is found on both sides; by attribute only its key is known.
            if matchedByPrimaryKey, case let .integer(pk) = l.source { (oldPK, newPK) = (pk, pk) }
        }
        changes += e.links.filter { $0.source == key }.map {
            "\($0.isLinked ? "+" : "-") \($0.relationship): \(ref($0.destinationEntity, $0.destination))"
        }
        let old = try oldPK.flatMap { try values(stores.old, entity: e.name, pk: $0) }
        let new = try newPK.flatMap { try values(stores.new, entity: e.name, pk: $0) }
        var names: [String] = []
        for side in [new, old] {
            for (name, _) in side?.attributes ?? [] where !names.contains(name) { names.append(name) }
        }
        var relationshipNames: [String] = []
        for side in [new, old] {
            for (name, _) in side?.relationships ?? [] where !relationshipNames.contains(name) { relationshipNames.append(name) }
        }
        func lookup(_ list: [(String, String)]?, _ name: String) -> String? { list?.first { $0.0 == name }?.1 }
        let isChange: Bool
        if case .changed = row { isChange = true } else { isChange = false }
        var lines = names.map { name in
            let (o, n) = (lookup(old?.attributes, name), lookup(new?.attributes, name))
            return DiffObjectDetail.Line(name: name, old: o, new: n, changed: changedNames.contains(name) || isChange && o != nil && n != nil && o != n)
        }
        lines += relationshipNames.map { name in
            let (o, n) = (lookup(old?.relationships, name), lookup(new?.relationships, name))
            // Counts of to-many objects compare across any two stores; destinations' primary keys
            // only within one store.
            let differs = isChange && o != nil && n != nil && o != n && (matchedByPrimaryKey || o?.hasSuffix("object") == true || o?.hasSuffix("objects") == true)
            return DiffObjectDetail.Line(
                name: name, old: o, new: n,
                changed: differs || changedNames.contains(name) || changes.contains { $0.hasPrefix("+ \(name):") || $0.hasPrefix("- \(name):") })
        }
        func side(_ pk: Int64?, _ found: Bool, _ store: String) -> String {
            guard let pk else { return "not in the \(store) store" }
            return found ? "Z_PK \(pk)" : "Z_PK \(pk) not found"
        }
        return DiffObjectDetail(
            title: "\(e.name) \(DiffViewState.text(key))", oldTitle: side(oldPK, old != nil, "old"), newTitle: side(newPK, new != nil, "new"),
            lines: lines, changes: changes)
    }

    /// The attributes and relationships of the object of `entity` with primary key `pk`, as text
    /// (to-one: the destination's entity, key and name; to-many: how many); nil when the store has none.
    private func values(_ session: StoreSession, entity name: String, pk: Int64) throws
        -> (attributes: [(String, String)], relationships: [(String, String)])?
    {
        let renamed = stores.new.model.entity(named: name)?.renamingIdentifier
        guard let entity = session.model.entity(named: name) ?? renamed.flatMap({ session.model.entity(named: $0) }) else { return nil }
        let storeID = session.coordinator.persistentStore?.identifier ?? session.metadata.storeUUID
        guard let uri = URL(string: "x-coredata://\(storeID)/\(entity.name)/p\(pk)"),
            let id = session.coordinator.managedObjectID(forURIRepresentation: uri)
        else { return nil }
        let context = session.context
        return try context.performAndWait {
            let object: ManagedObject
            do {
                object = try context.existingObject(with: id)
            } catch {
                return nil
            }
            var attributes: [(String, String)] = []
            for a in object.entity.allAttributes where !a.isTransient {
                attributes.append((a.name, ValueFormatter.cell(try object.attributeValue(forKey: a.name))))
            }
            var relationships: [(String, String)] = []
            for r in object.entity.allRelationships {
                if r.isToMany {
                    let n = try object.objectIDs(forRelationshipNamed: r.name).count
                    relationships.append((r.name, "\(n) \(r.destinationEntityName) object\(n == 1 ? "" : "s")"))
                } else if let target = try object.object(forKey: r.name) {
                    let pk = target.objectID.primaryKey.map { " \($0)" } ?? ""
                    let shown = ValueFormatter.displayName(of: target)
                    let label = "\(target.entity.name)\(pk)"
                    relationships.append((r.name, shown == label || shown.hasPrefix(target.entity.name + " p") ? label : "\(label) \(shown)"))
                } else {
                    relationships.append((r.name, "nil"))
                }
            }
            return (attributes, relationships)
        }
    }
}
