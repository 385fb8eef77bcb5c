import Foundation

/// The keys an object is filed under: its section's key and its sort values (folded as the sort
/// descriptors ask).
struct RowKey: Equatable {
    /// The raw section value (`.string(name)` for a section-name closure; `.null` without sections).
    var section: AttributeValue
    var sort: [AttributeValue]
}

/// One section as the controller stores it: objects and their sort values side by side.
struct SectionStorage<T: ManagedObject> {
    /// The raw section value, which identifies the section.
    let key: AttributeValue
    /// The value sections are ordered by (the key as the first sort descriptor compares it).
    let order: AttributeValue
    let name: String
    let indexTitle: String
    var objects: [T] = []
    var sortKeys: [[AttributeValue]] = []

    var info: FetchedResultsSectionInfo<T> {
        FetchedResultsSectionInfo(name: name, indexTitle: indexTitle, objects: objects)
    }
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

    /// With `fetchBatchSize`, plain-attribute keys and nothing unsaved in the way: the objects
    /// as faults and their keys, read by one SQL query of IDs and key columns (no row cached).
    func batchedFetchWithKeys(entity: EntityDescription) throws -> (objects: [T], keys: [RowKey])? {
        guard sectionNameProvider == nil, let plan = plainKeys, let slots = plan.slots(for: entity) else { return nil }
        let columns = slots.sort + (slots.section.map { [$0] } ?? [])
        guard let (objects, values) = try managedObjectContext.batchedFetch(fetchRequest, entity: entity, valuesAt: columns) else {
            return nil
        }
        var keys: [RowKey] = []
        keys.reserveCapacity(objects.count)
        for (o, v) in zip(objects, values) {
            // A materialised object is filed under its values in the context, as elsewhere.
            if !o.isFault {
                keys.append(try readKey(o))
                continue
            }
            keyReadCount += 1
            let sort = zip(descriptors, v).map { d, value in d.sortValue(value) }
            keys.append(RowKey(section: slots.section == nil ? .null : v[v.count - 1], sort: sort))
        }
        return (objects, keys)
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

    /// Replaces the sections with these objects (in fetch order) and their keys.
    func rebuild(objects: [T], keys: [RowKey]) {
        var byKey: [AttributeValue: Int] = [:]
        var built: [SectionStorage<T>] = []
        for (o, k) in zip(objects, keys) {
            let s: Int
            if let i = byKey[k.section] {
                s = i
            } else {
                s = built.count
                byKey[k.section] = s
                built.append(makeSection(key: k.section))
            }
            built[s].objects.append(o)
            built[s].sortKeys.append(k.sort)
        }
        built.sort { compareSections($0.key, $0.order, $1.key, $1.order) == .orderedAscending }
        // The store's order should already be ours; make sure, so binary searches hold.
        for s in built.indices where !isSorted(built[s].sortKeys) {
            let order = built[s].sortKeys.indices.sorted { a, b in
                switch SortDescriptor.compare(built[s].sortKeys[a], built[s].sortKeys[b], by: descriptors) {
                case .orderedAscending: true
                case .orderedDescending: false
                case .orderedSame: a < b
                }
            }
            built[s].objects = order.map { built[s].objects[$0] }
            built[s].sortKeys = order.map { built[s].sortKeys[$0] }
        }
        sectionStore = built
        rowKeys = [:]
        rowKeys.reserveCapacity(objects.count)
        for (o, k) in zip(objects, keys) { rowKeys[ObjectIdentifier(o)] = k }
        flattened = nil
    }

    private func isSorted(_ keys: [[AttributeValue]]) -> Bool {
        guard keys.count > 1 else { return true }
        for i in 1..<keys.count where SortDescriptor.compare(keys[i - 1], keys[i], by: descriptors) == .orderedDescending {
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
        return SectionStorage(key: key, order: order, name: name, indexTitle: title)
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
        var lo = 0, hi = keys.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if SortDescriptor.compare(keys[mid], sort, by: descriptors) == .orderedAscending { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The first row of a section whose sort values are after `sort`.
    func upperBound(_ sort: [AttributeValue], in s: Int) -> Int {
        let keys = sectionStore[s].sortKeys
        var lo = 0, hi = keys.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if SortDescriptor.compare(keys[mid], sort, by: descriptors) == .orderedDescending { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }

    /// Where an object filed under `key` is: a binary search, then a scan of the objects with equal keys.
    func locate(_ o: T, key: RowKey) -> (Int, Int)? {
        let (s, found) = sectionSearch(key.section)
        guard found else { return nil }
        let objects = sectionStore[s].objects
        var r = lowerBound(key.sort, in: s)
        while r < objects.count, SortDescriptor.compare(sectionStore[s].sortKeys[r], key.sort, by: descriptors) == .orderedSame {
            if objects[r] === o { return (s, r) }
            r += 1
        }
        // Defensive: the section is not in our order (cannot happen unless keys changed behind us).
        return objects.firstIndex { $0 === o }.map { (s, $0) }
    }

    /// Files an object under `key`, creating its section if needed; returns whether it did.
    @discardableResult
    func file(_ o: T, key: RowKey) -> Bool {
        let (s, found) = sectionSearch(key.section)
        if !found {
            sectionStore.insert(makeSection(key: key.section), at: s)
        }
        let r = upperBound(key.sort, in: s)
        sectionStore[s].objects.insert(o, at: r)
        sectionStore[s].sortKeys.insert(key.sort, at: r)
        rowKeys[ObjectIdentifier(o)] = key
        return !found
    }
}
