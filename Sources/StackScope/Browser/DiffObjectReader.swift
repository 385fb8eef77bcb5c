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

    /// The two sides of the object a line of the objects pane names; for a link, the destination
    /// object's two sides follow under a heading line. Objects a line names by key (a link's ends
    /// across two different stores) are found in each store by that key.
    func detail(of row: DiffViewState.Row, in e: EntityDiff) throws -> DiffObjectDetail {
        let dates = DiffCommand.dateFormatter()
        func ref(_ entity: String, _ key: AttributeValue) -> String { DiffCommand.reference(entity, key, dates) }
        let key: AttributeValue
        var oldPK: Int64?, newPK: Int64?
        var changedNames: Set<String> = []
        var changes: [String] = []
        var linked: RelationshipLinkChange?
        switch row {
        case let .changed(c):
            (key, oldPK, newPK) = (c.key, c.oldPrimaryKey, c.newPrimaryKey)
            changedNames = Set(c.attributes.map(\.name) + c.relationships.map(\.name))
            changes = c.relationships.map { "\($0.name): \(ref($0.destinationEntity, $0.old)) → \(ref($0.destinationEntity, $0.new))" }
        case let .inserted(o): (key, newPK) = (o.key, o.primaryKey)
        case let .deleted(o): (key, oldPK) = (o.key, o.primaryKey)
        case let .link(l):
            key = l.source
            linked = l
            oldPK = try stores.diff.primaryKey(of: e.name, matching: l.source, in: .old)
            newPK = try stores.diff.primaryKey(of: e.name, matching: l.source, in: .new)
        case let .reordered(c): (key, oldPK, newPK) = (c.source, c.oldPrimaryKey, c.newPrimaryKey)
        }
        changes += e.links.filter { $0.source == key }.map {
            "\($0.isLinked ? "+" : "-") \($0.relationship): \(ref($0.destinationEntity, $0.destination))"
        }
        for c in e.reorders where c.source == key {
            changes += c.moves.map { "↕ \(c.relationship): \(ref(c.destinationEntity, $0.destination)) \($0.oldIndex) → \($0.newIndex)" }
        }
        var isChange = false
        if case .changed = row { isChange = true }
        var (lines, found) = try sides(e.name, oldPK, newPK, changedNames: changedNames, compareAll: isChange, changes: changes)
        if let l = linked {
            // The link's other end, by its key in each store.
            let dOld = try stores.diff.primaryKey(of: l.destinationEntity, matching: l.destination, in: .old)
            let dNew = try stores.diff.primaryKey(of: l.destinationEntity, matching: l.destination, in: .new)
            let heading = "\(l.isLinked ? "+" : "-") \(l.relationship): \(ref(l.destinationEntity, l.destination))"
            lines.append(DiffObjectDetail.Line(name: "", old: nil, new: nil, changed: false, isHeading: true))
            lines.append(DiffObjectDetail.Line(
                name: heading, old: Self.side(dOld, true, "old"), new: Self.side(dNew, true, "new"), changed: false, isHeading: true))
            lines += try sides(l.destinationEntity, dOld, dNew, changedNames: [], compareAll: true, changes: []).lines
        }
        return DiffObjectDetail(
            title: "\(e.name) \(DiffViewState.text(key))", oldTitle: Self.side(oldPK, found.old, "old"),
            newTitle: Self.side(newPK, found.new, "new"), lines: lines, changes: changes)
    }

    /// How a side's heading names the object: `Z_PK 12`, or that the store has none.
    private static func side(_ pk: Int64?, _ found: Bool, _ store: String) -> String {
        guard let pk else { return "not in the \(store) store" }
        return found ? "Z_PK \(pk)" : "Z_PK \(pk) not found"
    }

    /// The lines of one object of `entity`, both sides: its attributes, then its relationships, the
    /// changed ones marked (those in `changedNames` or `changes`, and with `compareAll` any whose
    /// text differs where the values compare across the two stores).
    private func sides(
        _ entity: String, _ oldPK: Int64?, _ newPK: Int64?, changedNames: Set<String>, compareAll: Bool, changes: [String]
    ) throws -> (lines: [DiffObjectDetail.Line], found: (old: Bool, new: Bool)) {
        let old = try oldPK.flatMap { try values(stores.old, entity: entity, pk: $0) }
        let new = try newPK.flatMap { try values(stores.new, entity: entity, pk: $0) }
        var names: [String] = []
        for side in [new, old] {
            for (name, _) in side?.attributes ?? [] where !names.contains(name) { names.append(name) }
        }
        var relationshipNames: [String] = []
        for side in [new, old] {
            for (name, _) in side?.relationships ?? [] where !relationshipNames.contains(name) { relationshipNames.append(name) }
        }
        func lookup(_ list: [(String, String)]?, _ name: String) -> String? { list?.first { $0.0 == name }?.1 }
        var lines = names.map { name in
            let (o, n) = (lookup(old?.attributes, name), lookup(new?.attributes, name))
            return DiffObjectDetail.Line(name: name, old: o, new: n, changed: changedNames.contains(name) || compareAll && o != nil && n != nil && o != n)
        }
        lines += relationshipNames.map { name in
            let (o, n) = (lookup(old?.relationships, name), lookup(new?.relationships, name))
            // Counts of to-many objects compare across any two stores; destinations' primary keys
            // only within one store.
            let differs = compareAll && o != nil && n != nil && o != n && (matchedByPrimaryKey || o?.hasSuffix("object") == true || o?.hasSuffix("objects") == true)
            return DiffObjectDetail.Line(
                name: name, old: o, new: n,
                changed: differs || changedNames.contains(name)
                    || changes.contains { $0.hasPrefix("+ \(name):") || $0.hasPrefix("- \(name):") || $0.hasPrefix("↕ \(name):") })
        }
        return (lines, (old != nil, new != nil))
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
