import Foundation

/// The keys an object is filed under: its section's key and its sort values (folded as the sort
/// descriptors ask).
struct RowKey: Equatable {
    /// The raw section value (`.string(name)` for a section-name closure; `.null` without sections).
    var section: AttributeValue
    var sort: [AttributeValue]
}

/// One section as the controller stores it: its rows' object IDs and sort values side by side,
/// and, when the controller retains its objects (no batch size), the objects too.
struct SectionStorage<T: ManagedObject> {
    /// The raw section value, which identifies the section.
    let key: AttributeValue
    /// The value sections are ordered by (the key as the first sort descriptor compares it).
    let order: AttributeValue
    let name: String
    let indexTitle: String
    /// The rows' object IDs, in the controller's order.
    var ids: [ManagedObjectID] = []
    /// The rows' sort values.
    var sortKeys: SortKeyColumns
    /// The rows' objects when the controller retains them; empty otherwise.
    var objects: [T] = []

    init(key: AttributeValue, order: AttributeValue, name: String, indexTitle: String, width: Int) {
        self.key = key
        self.order = order
        self.name = name
        self.indexTitle = indexTitle
        self.sortKeys = SortKeyColumns(width: width)
    }

    var count: Int { ids.count }
}

/// Which keys can be read straight from a fault's row (single attributes), so that reading them
/// leaves the object a fault.
struct PlainKeyPlan {
    let sortKeys: [String]
    let sectionKey: String?

    init(sortDescriptors: [SortDescriptor], sectionKeyPath: String?) {
        sortKeys = sortDescriptors.map(\.key)
        sectionKey = sectionKeyPath
    }

    /// The attribute slots of the sort keys and the section key for an entity, or nil when one
    /// of them is not a plain attribute.
    func slots(for entity: EntityDescription) -> (sort: [Int], section: Int?)? {
        var sort: [Int] = []
        for k in sortKeys {
            guard let slot = entity.attributeSlots[k] else { return nil }
            sort.append(slot)
        }
        var section: Int?
        if let sectionKey {
            guard let slot = entity.attributeSlots[sectionKey] else { return nil }
            section = slot
        }
        return (sort, section)
    }
}

extension FetchedResultsController {
    var descriptors: [SortDescriptor] { fetchRequest.sortDescriptors }

    /// Whether sections come from a key path or a closure (otherwise there is one unnamed section).
    var hasSections: Bool { sectionNameProvider != nil || sectionNameKeyPath != nil }

    // MARK: Reading keys

    /// The keys of objects, reading those of faults from their rows without materialising them
    /// when the keys are plain attributes.
    func readKeys(_ objects: [T]) throws -> [RowKey] {
        var out = [RowKey?](repeating: nil, count: objects.count)
        var faultIndexes: [Int] = []
        if let plan = plainKeys, sectionNameProvider == nil {
            for (i, o) in objects.enumerated() where o.isFault && plan.slots(for: o.entity) != nil { faultIndexes.append(i) }
        }
        if !faultIndexes.isEmpty, let plan = plainKeys {
            let context = managedObjectContext
            let states = try context.snapshots(for: faultIndexes.map { objects[$0].objectID })
            for i in faultIndexes {
                let o = objects[i]
                guard let slots = plan.slots(for: o.entity),
                    let state = states[o.objectID] ?? states[context.persistentStoreCoordinator.canonicalID(o.objectID)]
                else { continue }
                let values = state.row.values
                func value(_ slot: Int) -> AttributeValue { slot < values.count ? values[slot] : .null }
                let sort = zip(descriptors, slots.sort).map { d, slot in d.sortValue(value(slot)) }
                out[i] = RowKey(section: slots.section.map(value) ?? .null, sort: sort)
                keyReadCount += 1
            }
        }
        return try objects.enumerated().map { i, o in try out[i] ?? readKey(o) }
    }

    /// With `fetchBatchSize`, plain-attribute keys and nothing unsaved in the way: the IDs and
    /// key columns of the results, read by one SQL query (no object registered, no row cached).
    func batchedFetchWithKeys(entity: EntityDescription) throws -> FetchedRows<T>? {
        guard sectionNameProvider == nil, let plan = plainKeys, let slots = plan.slots(for: entity) else { return nil }
        let columns = slots.sort + (slots.section.map { [$0] } ?? [])
        guard let (ids, values) = try managedObjectContext.batchedFetch(fetchRequest, entity: entity, valuesAt: columns) else {
            return nil
        }
        return try fetchedRows(ids: ids, values: values, hasSection: slots.section != nil)
    }

    /// Rows from a store's ID and key columns: sort values folded as the descriptors ask, and the
    /// keys of objects the context holds materialised read from those objects, as elsewhere.
    func fetchedRows(ids: [ManagedObjectID], values: [[AttributeValue]], hasSection: Bool) throws -> FetchedRows<T> {
        var sort = Array(values.prefix(descriptors.count))
        while sort.count < descriptors.count { sort.append(Array(repeating: .null, count: ids.count)) }
        for (i, d) in descriptors.enumerated() where d.comparison != .default {
            // Equal neighbours (a sorted column) fold once and share the folded string.
            var last: (AttributeValue, AttributeValue)?
            sort[i] = sort[i].map { v in
                if let (raw, folded) = last, raw == v { return folded }
                let folded = d.sortValue(v)
                last = (v, folded)
                return folded
            }
        }
        var sections = hasSection && values.count > descriptors.count ? values[descriptors.count] : nil
        keyReadCount += ids.count
        // The context's materialised objects (usually few: the rows on screen), by ID.
        var materialised: [ManagedObjectID: T] = [:]
        if managedObjectContext.registered.count > 0 {
            for case let o as T in managedObjectContext.registered.values where !o.isFault && isCandidate(o) { materialised[o.objectID] = o }
        }
        if !materialised.isEmpty {
            for (r, id) in ids.enumerated() {
                guard let o = materialised[id] else { continue }
                let key = try readKey(o)
                for i in sort.indices where i < key.sort.count { sort[i][r] = key.sort[i] }
                sections?[r] = key.section
            }
        }
        return FetchedRows(ids: ids, sections: sections, sort: SortKeyColumns(columns: sort), objects: nil)
    }

    /// Rows from objects (a plain fetch's) and their keys.
    func fetchedRows(objects: [T], keys: [RowKey]) -> FetchedRows<T> {
        var sort = SortKeyColumns(width: descriptors.count)
        sort.reserveCapacity(keys.count)
        for k in keys { sort.append(k.sort) }
        return FetchedRows(
            ids: objects.map(\.objectID), sections: hasSections ? keys.map(\.section) : nil, sort: sort, objects: objects)
    }

    /// The keys of one object, as it is now (firing its fault if needed).
    func readKey(_ o: T) throws -> RowKey {
        keyReadCount += 1
        let sort = try ManagedObjectContext.sortValues(of: o, by: descriptors)
        let section: AttributeValue
        if let provider = sectionNameProvider {
            try o.fireFault()
            section = .string(provider(o))
        } else if let path = sectionNameKeyPath {
            switch try ObjectSubject(object: o).value(forKeyPath: path.split(separator: ".").map(String.init)) {
            case let .scalar(v): section = v
            case let .object(id): section = id.map { .url($0.uriRepresentation()) } ?? .null
            case .collection: section = .null
            }
        } else {
            section = .null
        }
        return RowKey(section: section, sort: sort)
    }

    // MARK: Building

    /// Replaces the sections with these rows (in fetch order).
    func rebuild(_ rows: FetchedRows<T>) {
        let width = descriptors.count
        var built: [SectionStorage<T>] = []
        // Row indexes of each section, in fetch order.
        var members: [[Int]] = []
        if let sections = rows.sections {
            var byKey: [AttributeValue: Int] = [:]
            for (r, k) in sections.enumerated() {
                if let i = byKey[k] {
                    members[i].append(r)
                } else {
                    byKey[k] = built.count
                    built.append(makeSection(key: k))
                    members.append([r])
                }
            }
        } else if !rows.ids.isEmpty {
            built.append(makeSection(key: .null))
            members.append([])
        }
        for s in built.indices {
            if rows.sections == nil {
                built[s].ids = rows.ids
                built[s].sortKeys = rows.sort
                if retainsObjects, let objects = rows.objects { built[s].objects = objects }
            } else {
                let m = members[s]
                built[s].ids = m.map { rows.ids[$0] }
                var sort = rows.sort
                sort.select(m)
                built[s].sortKeys = sort
                if retainsObjects, let objects = rows.objects { built[s].objects = m.map { objects[$0] } }
            }
            // The store's order should already be ours; make sure, so binary searches hold.
            let keys = built[s].sortKeys
            guard width > 0, !isSorted(keys, count: built[s].count) else { continue }
            let order = built[s].ids.indices.sorted { a, b in
                switch keys.compare(row: a, row: b, by: descriptors) {
                case .orderedAscending: true
                case .orderedDescending: false
                case .orderedSame: a < b
                }
            }
            built[s].ids = order.map { built[s].ids[$0] }
            built[s].sortKeys.select(order)
            if !built[s].objects.isEmpty { built[s].objects = order.map { built[s].objects[$0] } }
        }
        built.sort { compareSections($0.key, $0.order, $1.key, $1.order) == .orderedAscending }
        sectionStore = built
        rowKeys = [:]
        temporaryRows = [:]
        if retainsObjects {
            rowKeys.reserveCapacity(rows.ids.count)
            for s in built {
                for r in s.ids.indices { rowKeys[s.ids[r]] = RowKey(section: s.key, sort: s.sortKeys[r]) }
            }
        }
        if let objects = rows.objects {
            for o in objects where o.objectID.isTemporaryID { temporaryRows[o.objectID] = o }
        }
        flattened = nil
    }

    private func isSorted(_ keys: SortKeyColumns, count: Int) -> Bool {
        guard count > 1 else { return true }
        for i in 1..<count where keys.compare(row: i - 1, row: i, by: descriptors) == .orderedDescending {
            return false
        }
        return true
    }

    func makeSection(key: AttributeValue) -> SectionStorage<T> {
        let name: String
        switch key {
        case .null: name = ""
        case let .string(s): name = s
        default: name = key.description
        }
        let title = delegate?.controller(self, sectionIndexTitleForSectionName: name) ?? name.first.map { String($0).uppercased() } ?? ""
        let order = descriptors.first?.sortValue(key) ?? key
        return SectionStorage(key: key, order: order, name: name, indexTitle: title, width: descriptors.count)
    }

    /// Orders two sections by key, the way the first sort descriptor compares (ties broken so that
    /// distinct keys never compare equal).
    func compareSections(_ aKey: AttributeValue, _ aOrder: AttributeValue, _ bKey: AttributeValue, _ bOrder: AttributeValue) -> ComparisonResult {
        if aKey == bKey { return .orderedSame }
        var r = aOrder.compare(to: bOrder) ?? .orderedSame
        if r == .orderedSame { r = aKey.compare(to: bKey) ?? .orderedSame }
        if r == .orderedSame {
            let a = aKey.kindDescription + aKey.description, b = bKey.kindDescription + bKey.description
            r = a == b ? .orderedSame : (a.utf8.lexicographicallyPrecedes(b.utf8) ? .orderedAscending : .orderedDescending)
        }
        if descriptors.first?.ascending == false {
            r = r == .orderedAscending ? .orderedDescending : (r == .orderedDescending ? .orderedAscending : r)
        }
        return r
    }

    // MARK: Searching

    /// The index of the first section not ordered before `key`, and whether it is `key`'s section.
    func sectionSearch(_ key: AttributeValue) -> (index: Int, found: Bool) {
        let order = descriptors.first?.sortValue(key) ?? key
        var lo = 0, hi = sectionStore.count
        while lo < hi {
            let mid = (lo + hi) / 2
            let s = sectionStore[mid]
            if compareSections(s.key, s.order, key, order) == .orderedAscending { lo = mid + 1 } else { hi = mid }
        }
        if lo < sectionStore.count, sectionStore[lo].key == key { return (lo, true) }
        // Defensive: keys the comparison cannot tell apart.
        if let i = sectionStore.firstIndex(where: { $0.key == key }) { return (i, true) }
        return (lo, false)
    }

    /// The first row of a section whose sort values are not before `sort`.
    func lowerBound(_ sort: [AttributeValue], in s: Int) -> Int {
        let keys = sectionStore[s].sortKeys
        var lo = 0, hi = sectionStore[s].count
        while lo < hi {
            let mid = (lo + hi) / 2
            if keys.compare(row: mid, to: sort, by: descriptors) == .orderedAscending { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The first row of a section whose sort values are after `sort`.
    func upperBound(_ sort: [AttributeValue], in s: Int) -> Int {
        let keys = sectionStore[s].sortKeys
        var lo = 0, hi = sectionStore[s].count
        while lo < hi {
            let mid = (lo + hi) / 2
            if keys.compare(row: mid, to: sort, by: descriptors) == .orderedDescending { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }

    /// Where the row of `id`, filed under `key`, is: a binary search, then a scan of the rows with
    /// equal keys.
    func locate(_ id: ManagedObjectID, key: RowKey) -> (Int, Int)? {
        let (s, found) = sectionSearch(key.section)
        guard found else { return nil }
        let ids = sectionStore[s].ids
        let keys = sectionStore[s].sortKeys
        var r = lowerBound(key.sort, in: s)
        while r < ids.count, keys.compare(row: r, to: key.sort, by: descriptors) == .orderedSame {
            if ids[r] == id { return (s, r) }
            r += 1
        }
        // Defensive: the section is not in our order (cannot happen unless keys changed behind us).
        return ids.firstIndex(of: id).map { (s, $0) }
    }

    /// The keys the rows of these IDs are filed under now (IDs not in the results are left out).
    /// Retaining controllers look them up; others scan their IDs once.
    func filedKeys(for ids: [ManagedObjectID]) -> [ManagedObjectID: RowKey] {
        var out: [ManagedObjectID: RowKey] = [:]
        guard !ids.isEmpty else { return out }
        if retainsObjects {
            for id in ids { if let k = rowKeys[id] { out[id] = k } }
            return out
        }
        let wanted = Set(ids)
        let few = wanted.count <= 4 ? Array(wanted) : nil
        for section in sectionStore {
            let rows = section.ids
            for r in rows.indices {
                let hit = few.map { $0.contains(rows[r]) } ?? wanted.contains(rows[r])
                guard hit else { continue }
                out[rows[r]] = RowKey(section: section.key, sort: section.sortKeys[r])
                if out.count == wanted.count { return out }
            }
        }
        return out
    }

    /// Files an object under `key`, creating its section if needed; returns whether it did.
    @discardableResult
    func file(_ o: T, key: RowKey) -> Bool {
        let (s, found) = sectionSearch(key.section)
        if !found {
            sectionStore.insert(makeSection(key: key.section), at: s)
        }
        let r = upperBound(key.sort, in: s)
        let id = o.objectID
        sectionStore[s].ids.insert(id, at: r)
        sectionStore[s].sortKeys.insert(key.sort, at: r)
        if retainsObjects {
            sectionStore[s].objects.insert(o, at: r)
            rowKeys[id] = key
        }
        if id.isTemporaryID { temporaryRows[id] = o }
        return !found
    }

    /// Files arriving objects in order, as ``file(_:key:)`` one after the other would, and returns
    /// the keys of the sections it created. Into a section that takes more than a few, they are
    /// merged in one pass (sorted among themselves, stably, then merged with the section's rows):
    /// inserting them one at a time moved every row after each one, O(arrivals × rows), and 10,000
    /// objects inserted into a 100,000-row controller took 370 ms.
    func file(_ arrivals: [(T, RowKey)]) -> Set<AttributeValue> {
        var created = Set<AttributeValue>()
        var bySection: [AttributeValue: [Int]] = [:]
        var order: [AttributeValue] = []
        for (i, a) in arrivals.enumerated() {
            if bySection[a.1.section] == nil { order.append(a.1.section) }
            bySection[a.1.section, default: []].append(i)
        }
        for key in order {
            let indexes = bySection[key] ?? []
            if indexes.count <= 8 {
                for i in indexes where file(arrivals[i].0, key: arrivals[i].1) { created.insert(key) }
                continue
            }
            let (s, found) = sectionSearch(key)
            if !found {
                sectionStore.insert(makeSection(key: key), at: s)
                created.insert(key)
            }
            merge(indexes.map { arrivals[$0] }, into: s)
        }
        return created
    }

    /// Merges arrivals into section `s` in one pass; rows of equal sort values keep the section's
    /// rows first, then the arrivals in their order (where ``upperBound(_:in:)`` would put them).
    private func merge(_ arrivals: [(T, RowKey)], into s: Int) {
        let descriptors = self.descriptors
        let sorted = arrivals.indices.sorted { a, b in
            let r = SortDescriptor.compare(arrivals[a].1.sort, arrivals[b].1.sort, by: descriptors)
            return r == .orderedAscending || (r == .orderedSame && a < b)
        }
        // Each arrival's place among the section's rows as they are now (non-decreasing).
        let positions = sorted.map { upperBound(arrivals[$0].1.sort, in: s) }
        sectionStore[s].ids.insert(sorted.map { arrivals[$0].0.objectID }, atPositions: positions)
        sectionStore[s].sortKeys.insert(sorted.map { arrivals[$0].1.sort }, atPositions: positions)
        if retainsObjects {
            insertObjects(sorted.map { arrivals[$0].0 }, atPositions: positions, into: s)
            for (o, key) in arrivals { rowKeys[o.objectID] = key }
        }
        for (o, _) in arrivals where o.objectID.isTemporaryID { temporaryRows[o.objectID] = o }
    }

    /// The objects' side of ``merge(_:into:)``. `[T]` is generic here (the controller is not
    /// specialised for its object type), so the swaps of `Array.insert(_:atPositions:)` would each
    /// go through the type's value witnesses (~150 ns a row, 15 ms over 100,000 rows). A few
    /// objects go in one at a time instead (each insertion moves the rows after it with one
    /// `memmove`); many rebuild the array in one pass.
    private func insertObjects(_ objects: [T], atPositions positions: [Int], into s: Int) {
        let k = min(objects.count, positions.count)
        if k <= 256 {
            for j in 0..<k { sectionStore[s].objects.insert(objects[j], at: min(positions[j] + j, sectionStore[s].objects.count)) }
            return
        }
        let old = sectionStore[s].objects
        var merged: [T] = []
        merged.reserveCapacity(old.count + k)
        var from = 0
        for j in 0..<k {
            let p = min(max(positions[j], from), old.count)
            merged.append(contentsOf: old[from..<p])
            merged.append(objects[j])
            from = p
        }
        merged.append(contentsOf: old[from...])
        sectionStore[s].objects = merged
    }

    /// Takes rows out of a section (rows given in any order).
    func remove(rows: [Int], from s: Int) {
        let sorted = rows.sorted(by: >)
        for r in sorted {
            let id = sectionStore[s].ids[r]
            rowKeys[id] = nil
            temporaryRows[id] = nil
        }
        if sorted.count > 8 {
            let drop = Set(sorted)
            let keep = sectionStore[s].ids.indices.filter { !drop.contains($0) }
            sectionStore[s].ids = keep.map { sectionStore[s].ids[$0] }
            sectionStore[s].sortKeys.select(keep)
            if retainsObjects { sectionStore[s].objects = keep.map { sectionStore[s].objects[$0] } }
        } else {
            for r in sorted {
                sectionStore[s].ids.remove(at: r)
                sectionStore[s].sortKeys.remove(at: r)
                if retainsObjects { sectionStore[s].objects.remove(at: r) }
            }
        }
    }

    /// Rows filed under temporary IDs whose objects have since been saved (or given permanent IDs)
    /// are filed under their new IDs.
    func adoptPermanentIDs() {
        guard !temporaryRows.isEmpty else { return }
        for (old, o) in temporaryRows where o.objectID != old {
            let new = o.objectID
            temporaryRows[old] = nil
            if new.isTemporaryID { temporaryRows[new] = o }
            let key = rowKeys[old] ?? filedKeys(for: [old])[old]
            guard let key, let (s, r) = locate(old, key: key) else { continue }
            sectionStore[s].ids[r] = new
            if retainsObjects {
                rowKeys[old] = nil
                rowKeys[new] = key
            }
        }
    }

    // MARK: Materialising

    /// The object of a row: the context's registered object, or a fault registered with the
    /// rest of its batch (`fetchBatchSize` rows of the results, counted across sections) sharing
    /// one fault batch.
    func object(section s: Int, row r: Int) throws -> T {
        let section = sectionStore[s]
        if retainsObjects { return section.objects[r] }
        if let o = managedObjectContext.registeredObject(for: section.ids[r]) as? T { return o }
        let g = globalOffset(ofSection: s) + r
        return try objects(inGlobalRange: g..<(g + 1))[0]
    }

    /// Every object of a section, registering faults for the rows not registered yet (in batches
    /// of `fetchBatchSize`); `known` objects are used as they are.
    func objects(ofSection s: Int, known: [ManagedObjectID: T] = [:]) -> [T] {
        let section = sectionStore[s]
        if retainsObjects { return section.objects }
        if !known.isEmpty {
            let all = section.ids.compactMap { known[$0] }
            if all.count == section.count { return all }
        }
        let start = globalOffset(ofSection: s)
        if let all = try? objects(inGlobalRange: start..<(start + section.count)) { return all }
        return section.ids.compactMap { known[$0] ?? (try? managedObjectContext.object(with: $0)) as? T }
    }

    /// The row index, across sections, of a section's first row.
    func globalOffset(ofSection s: Int) -> Int {
        sectionStore[..<s].reduce(0) { $0 + $1.count }
    }

    /// The objects of rows `range` (counted across sections): the registered ones, and faults for
    /// the others registered a whole batch at a time (the batches of `fetchBatchSize` rows that
    /// `range` touches), each batch's faults sharing one fault batch.
    func objects(inGlobalRange range: Range<Int>) throws -> [T] {
        guard !range.isEmpty else { return [] }
        let size = max(fetchRequest.fetchBatchSize, 1)
        let start = (range.lowerBound / size) * size
        let end = min(count, ((range.upperBound + size - 1) / size) * size)
        var ids: [ManagedObjectID] = []
        ids.reserveCapacity(end - start)
        var offset = 0
        for section in sectionStore {
            let lo = max(start, offset), hi = min(end, offset + section.count)
            if lo < hi { ids.append(contentsOf: section.ids[(lo - offset)..<(hi - offset)]) }
            offset += section.count
            if offset >= end { break }
        }
        var out: [T] = []
        out.reserveCapacity(ids.count)
        var i = 0
        while i < ids.count {
            out.append(contentsOf: try managedObjectContext.registeredFaults(for: Array(ids[i..<min(ids.count, i + size)]), as: T.self))
            i += size
        }
        return Array(out[(range.lowerBound - start)..<(range.upperBound - start)])
    }

    /// A section's public description with its objects.
    func info(ofSection s: Int, known: [ManagedObjectID: T] = [:]) -> FetchedResultsSectionInfo<T> {
        let section = sectionStore[s]
        return FetchedResultsSectionInfo(name: section.name, indexTitle: section.indexTitle, objects: objects(ofSection: s, known: known))
    }
}
