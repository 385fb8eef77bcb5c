import CoreStack
import Foundation

/// The browser's side of the store: the fetched results controller behind the objects pane, the
/// entity monitors behind the counts, and the reads that fill the state's row window and detail.
/// Lives on the main queue with the main context; hands the app `Sendable` snapshots only.
///
/// ```swift
/// let data = BrowserData(session: session) { action in program.dispatch(action) }
/// let opened = try data.openTable(.entity("Book"), sort: [], sectioned: false, filter: nil, keepSelection: nil)
/// let rows = data.rows(0..<20)
/// ```
final class BrowserData {
    let session: BrowserSession
    let send: (Action) -> Void
    private(set) var controller: FetchedResultsController<ManagedObject>?
    private(set) var source: TableSource?
    private(set) var sectioned = false
    private var columns: [AttributeDescription] = []
    private var monitors: [EntityMonitor<ManagedObject>] = []
    private var monitorDelegates: [CountTracker] = []
    private let tableDelegate = TableDelegate()
    /// For each section, the display row of its header (sectioned tables).
    private var sectionStarts: [Int] = []
    /// Whether the table is an ordered to-many relationship with no sort: its rows then follow
    /// the relationship's order (as Core Data's ordered set gives it), not the store's.
    private var followsRelationshipOrder = false
    /// When `followsRelationshipOrder`: the controller row shown at each display row, and the
    /// display row of each controller row (empty otherwise: display rows are controller rows).
    private var orderedRows: [Int] = []
    private var displayRowOfControllerRow: [Int] = []
    /// For a relationship's table: the owner's destinations its predicate lists (the rows it can
    /// show), and the observer of the context in use that notices the owner's relationship
    /// changing: new or removed members fetch the table again, a new order re-sorts its rows.
    private var relationshipMembers: Set<ManagedObjectID> = []
    private var ownerObservation: ObservationToken?
    var counts: [String: Int] = [:]
    /// The selected object, followed across changes.
    var selectedID: ManagedObjectID?
    /// While set (a refresh), the controller's reports are not passed on.
    fileprivate var suppressChanges = false

    /// The context the table and detail read through: the main context, or the scratch context in use.
    var context: ManagedObjectContext

    init(session: BrowserSession, send: @escaping (Action) -> Void) {
        self.session = session
        self.send = send
        context = session.mainContext
        tableDelegate.owner = self
    }

    // MARK: Entities

    /// The entity tree (parents before sub-entities) and every entity's count; starts the monitors
    /// that keep the counts current.
    func loadEntities() throws -> ([EntityNode], [String: Int]) {
        let context = session.mainContext
        return try context.performAndWait {
            var nodes: [EntityNode] = []
            func add(_ e: EntityDescription, depth: Int) {
                nodes.append(EntityNode(name: e.name, depth: depth, isAbstract: e.isAbstract, hasChildren: !e.subentities.isEmpty))
                for sub in e.subentities.sorted(by: { $0.name < $1.name }) { add(sub, depth: depth + 1) }
            }
            for e in session.model.entities.filter({ $0.superentity == nil }).sorted(by: { $0.name < $1.name }) { add(e, depth: 0) }
            nodes += otherTableNodes()
            counts = try session.counts()
            monitors.removeAll()
            monitorDelegates.removeAll()
            for e in session.model.entities {
                let monitor = try EntityMonitor<ManagedObject>(context: session.mainContext, entityName: e.name, frequency: .onChange)
                let tracker = CountTracker(entity: e.name, owner: self)
                monitor.delegate = tracker
                monitors.append(monitor)
                monitorDelegates.append(tracker)
            }
            return (nodes, counts)
        }
    }

    /// Counts every entity again and tells the app those that changed. After merging saves made
    /// elsewhere: the monitors see only objects the main context had registered, so the objects
    /// of a cascade or a batch it never read would leave the counts behind.
    func recount() {
        guard let fresh = try? session.mainContext.performAndWait({ try session.counts() }) else { return }
        let changed = fresh.filter { counts[$0.key] != $0.value }
        counts = fresh
        if !changed.isEmpty { send(.countsChanged(changed, at: Date())) }
    }

    fileprivate func countDelta(_ entity: String, _ delta: Int) {
        counts[entity, default: 0] = max(0, counts[entity, default: 0] + delta)
        send(.countsChanged([entity: counts[entity, default: 0]], at: Date()))
    }

    // MARK: The table

    /// How many objects the table's controller materialises at a time (the rows a window reads).
    static let tableBatchSize = 64

    /// A table fetch begun on the main queue: its SQL query (the IDs and sort keys of the rows)
    /// runs off the main queue with ``PreparedFetch/run()`` and can be cancelled (Esc), then
    /// ``finishTable(_:result:)`` applies it in one short step. The old table stays until then.
    struct TableFetch: @unchecked Sendable {
        // Built and applied on the main queue; only `fetch` (Sendable) is used off it.
        let controller: FetchedResultsController<ManagedObject>
        let fetch: PreparedFetch
        let source: TableSource
        let sort: [SortKey]
        let sectionKey: String?
        let filter: String?
        let keepSelection: ManagedObjectID?
        let columns: [AttributeDescription]
        /// Rows in the relationship's order (an ordered to-many, no sort).
        let followsRelationshipOrder: Bool
        /// A relationship's table: the owner's destinations when the fetch was built.
        let relationshipMembers: Set<ManagedObjectID>
    }

    /// Builds a table's controller and prepares its fetch (nothing is read yet; the table shown
    /// does not change). A malformed filter or an unknown column throws here.
    func beginTable(
        _ source: TableSource, sort: [SortKey], sectioned: Bool, filter: String?, keepSelection: ManagedObjectID?
    ) throws -> TableFetch {
        try context.performAndWait {
            let entity = try session.model.requireEntity(source.entityName)
            var request = FetchRequest<ManagedObject>(entityName: entity.name)
            var predicates: [CoreStack.Predicate] = []
            var followsRelationshipOrder = false
            var members: Set<ManagedObjectID> = []
            if case let .relationship(owner, key, _, _) = source {
                let ids = try relationshipMemberIDs(owner: owner, key: key)
                members = Set(ids)
                predicates.append(.comparison(Comparison(.evaluatedObject, .in, .list(ids.map { .object($0) }))))
                // No sort chosen: the store's order means nothing here, the relationship's does.
                let ordered = try context.existingObject(with: owner).entity.relationship(named: key)?.isOrdered ?? false
                followsRelationshipOrder = sort.isEmpty && ordered
            }
            if let filter, !filter.isEmpty {
                let typed = try CoreStack.Predicate(format: filter)
                try PredicateHint.check(typed, entity: entity)
                predicates.append(typed)
            }
            request.predicate = predicates.isEmpty ? nil : predicates.count == 1 ? predicates[0] : .and(predicates)
            for key in sort where entity.attribute(named: key.column) == nil {
                throw CoreStackError.unknownKey(entity: entity.name, key: key.column)
            }
            request.sortDescriptors = sort.map { SortDescriptor($0.column, ascending: $0.ascending) }
            request.fetchBatchSize = Self.tableBatchSize
            let sectionKey = sectioned ? sort.first?.column : nil
            let controller = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: sectionKey)
            let fetch = try controller.prepareFetch()
            return TableFetch(
                controller: controller, fetch: fetch, source: source, sort: sort, sectionKey: sectionKey, filter: filter,
                keepSelection: keepSelection, columns: entity.allAttributes.filter { !$0.isTransient },
                followsRelationshipOrder: followsRelationshipOrder, relationshipMembers: members)
        }
    }

    /// Applies a table fetch whose query has run: the new controller replaces the old one.
    /// Throws `CancellationError` when it was cancelled (the old table stays).
    func finishTable(_ t: TableFetch, result: PreparedFetchResult) throws -> TableOpened {
        try context.performAndWait {
            t.controller.delegate = tableDelegate
            try t.controller.apply(result)
            self.controller = t.controller
            self.source = t.source
            self.sectioned = t.sectionKey != nil
            self.followsRelationshipOrder = t.followsRelationshipOrder && t.sectionKey == nil
            relationshipMembers = t.relationshipMembers
            observeRelationshipOwner()
            columns = t.columns
            rebuildSectionStarts()
            selectedID = t.keepSelection
            let columnInfo = columns.map {
                ColumnInfo(
                    name: $0.name, typeName: ValueFormatter.typeName($0.type), alignRight: ValueFormatter.isNumeric($0.type),
                    width: DisplayWidth.of($0.name) + 2, isRaw: $0.isRaw)
            }
            return TableOpened(
                source: t.source, columns: columnInfo, sort: t.sectionKey == nil && t.sort.isEmpty ? [] : t.sort, sectioned: self.sectioned,
                filter: t.filter, rowCount: rowCount, objectCount: t.controller.count,
                selectedIndex: t.keepSelection.flatMap { displayIndex(of: $0) })
        }
    }

    /// Fetches a table's objects into a new controller, all on the calling (main) queue (the old
    /// one is kept if this fails).
    func openTable(
        _ source: TableSource, sort: [SortKey], sectioned: Bool, filter: String?, keepSelection: ManagedObjectID?
    ) throws -> TableOpened {
        let t = try beginTable(source, sort: sort, sectioned: sectioned, filter: filter, keepSelection: keepSelection)
        return try finishTable(t, result: try t.fetch.run())
    }

    /// The objects of `owner`'s relationship `key` in the context in use (in order when ordered).
    func relationshipMemberIDs(owner: ManagedObjectID, key: String) throws -> [ManagedObjectID] {
        let object = try context.existingObject(with: owner)
        guard object.entity.relationship(named: key) != nil else {
            throw CoreStackError.unknownKey(entity: object.entity.name, key: key)
        }
        return try object.objectIDs(forRelationshipNamed: key)
    }

    /// For a relationship's table, watches the owner in the context in use. The table's
    /// controller watches the destination objects only, and a change to the relationship may
    /// change only the owner (a reorder of an ordered to-many always does).
    private func observeRelationshipOwner() {
        ownerObservation = nil
        guard case let .relationship(owner, key, _, _)? = source else { return }
        ownerObservation = context.addObjectsDidChangeObserver { [weak self] change in
            guard change.invalidatedAll
                || [change.updated, change.refreshed, change.deleted, change.inserted].contains(where: { set in
                    set.contains { $0.objectID == owner }
                })
            else { return }
            self?.relationshipOwnerChanged(owner: owner, key: key)
        }
    }

    /// The owner of the relationship shown changed: objects it gained or lost fetch the table
    /// again (its predicate lists the members), through the app so sort, filter and selection
    /// stay; a new order of an ordered to-many re-sorts the rows, marking those that moved.
    private func relationshipOwnerChanged(owner: ManagedObjectID, key: String) {
        guard let source else { return }
        // A deleted or vanished owner has no members left.
        let ids = (try? relationshipMemberIDs(owner: owner, key: key)) ?? []
        if Set(ids) != relationshipMembers {
            relationshipMembers = Set(ids)
            send(.relationshipChanged(source, keepSelection: selectedID))
            return
        }
        guard followsRelationshipOrder, !suppressChanges, let controller else { return }
        let before = orderedRows
        rebuildRelationshipOrder()
        guard orderedRows != before else { return }
        let fetched = controller.fetchedObjectIDs
        var marks: [ManagedObjectID: RowMark] = [:]
        for (row, c) in orderedRows.enumerated() where !before.indices.contains(row) || before[row] != c {
            if fetched.indices.contains(c) { marks[fetched[c]] = .moved }
        }
        sendTableChange(marks)
    }

    var rowCount: Int {
        guard let controller else { return 0 }
        return sectioned ? controller.count + controller.sectionCount : controller.count
    }

    /// After the controller's content changed: the display rows of section headers and, for an
    /// ordered relationship's table, the relationship's order of the rows.
    private func rebuildSectionStarts() {
        rebuildRelationshipOrder()
        sectionStarts = []
        guard sectioned, let controller else { return }
        var row = 0
        for s in controller.sections {
            sectionStarts.append(row)
            row += s.numberOfObjects + 1
        }
    }

    /// Orders the rows of an ordered relationship's table as the owner's relationship does (in
    /// the context in use, unsaved changes included); rows it no longer holds go last, in the
    /// controller's order. A deleted owner leaves the controller's order.
    private func rebuildRelationshipOrder() {
        orderedRows = []
        displayRowOfControllerRow = []
        guard followsRelationshipOrder, let controller, case let .relationship(owner, key, _, _)? = source else { return }
        context.performAndWait {
            let ids = controller.fetchedObjectIDs
            guard let order = try? context.existingObject(with: owner).objectIDs(forRelationshipNamed: key) else { return }
            var position: [ManagedObjectID: Int] = [:]
            position.reserveCapacity(order.count)
            for (i, id) in order.enumerated() where position[id] == nil { position[id] = i }
            let rows = ids.indices.sorted { a, b in
                let (pa, pb) = (position[ids[a]] ?? Int.max, position[ids[b]] ?? Int.max)
                return pa != pb ? pa < pb : a < b
            }
            var displayRow = [Int](repeating: 0, count: ids.count)
            for (d, c) in rows.enumerated() { displayRow[c] = d }
            orderedRows = rows
            displayRowOfControllerRow = displayRow
        }
    }

    /// The controller's index path of a display row (nil for a section header).
    func indexPath(ofDisplayRow i: Int) -> (section: Int, row: Int?)? {
        guard let controller else { return nil }
        if !sectioned {
            guard i < controller.count else { return nil }
            return (0, orderedRows.indices.contains(i) ? orderedRows[i] : i)
        }
        var lo = 0, hi = sectionStarts.count - 1
        guard hi >= 0 else { return nil }
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if sectionStarts[mid] <= i { lo = mid } else { hi = mid - 1 }
        }
        let offset = i - sectionStarts[lo]
        return (lo, offset == 0 ? nil : offset - 1)
    }

    func displayIndex(of path: IndexPath) -> Int {
        if sectioned { return path.section < sectionStarts.count ? sectionStarts[path.section] + 1 + path.row : path.row }
        return displayRowOfControllerRow.indices.contains(path.row) ? displayRowOfControllerRow[path.row] : path.row
    }

    func displayIndex(of id: ManagedObjectID) -> Int? {
        guard let controller, let path = controller.indexPath(forObjectID: id) else { return nil }
        return displayIndex(of: path)
    }

    /// Formatted rows for a range of display rows.
    func rows(_ range: Range<Int>) -> [TableRow] {
        context.performAndWait {
            guard let controller else { return [] }
            let sections = sectioned ? controller.sections : []
            var out: [TableRow] = []
            out.reserveCapacity(range.count)
            for i in range {
                guard let (section, row) = indexPath(ofDisplayRow: i) else { break }
                guard let row else {
                    let info = sections[section]
                    out.append(.section(name: info.name, count: info.numberOfObjects))
                    continue
                }
                guard let object = controller[IndexPath(row: row, section: section)] else { break }
                out.append(.object(id: object.objectID, cells: cells(of: object)))
            }
            return out
        }
    }

    /// For the objects among `rows` that the context in use changed and has not saved, the
    /// columns whose values differ from the last saved ones (inserted objects: every column).
    func changedColumns(_ rows: [TableRow]) -> [ManagedObjectID: Set<Int>] {
        context.performAndWait {
            guard context.hasChanges else { return [:] }
            var out: [ManagedObjectID: Set<Int>] = [:]
            for row in rows {
                guard let id = row.objectID, let o = context.registeredObject(for: id), o.hasChanges else { continue }
                if o.isInserted {
                    out[id] = Set(columns.indices)
                    continue
                }
                let keys = o.changedValues().keys
                let cols = Set(columns.indices.filter { keys.contains(columns[$0].name) })
                if !cols.isEmpty { out[id] = cols }
            }
            return out
        }
    }

    func cells(of object: ManagedObject) -> [String] {
        columns.map { a in
            guard object.entity.attribute(named: a.name) != nil else { return "" }  // a sibling entity's attribute
            return (try? object.attributeValue(forKey: a.name)).map(ValueFormatter.cell) ?? "?"
        }
    }

    /// How far a search got in one step.
    enum SearchStep {
        case found(Int)
        case notFound
        /// Not found yet: go on from `next` with `scanned` rows looked at.
        case more(next: Int, scanned: Int)
    }

    /// Looks at up to `budget` rows from `start` (forward or back, wrapping around once over the
    /// `scanned` rows already looked at) for one whose cells contain `term`.
    func searchStep(_ term: String, from start: Int, forward: Bool, scanned: Int, budget: Int) -> SearchStep {
        let n = rowCount
        guard n > 0 else { return .notFound }
        let needle = term.lowercased()
        let chunk = max(1, min(256, budget))
        var scanned = scanned
        var i = ((start % n) + n) % n
        var looked = 0
        while scanned < n {
            if looked >= budget { return .more(next: i, scanned: scanned) }
            let len = min(chunk, n - scanned)
            let indices: [Int] = (0..<len).map { k in ((forward ? i + k : i - k) % n + n) % n }
            let lo = indices.min() ?? 0, hi = (indices.max() ?? 0) + 1
            let rows = rows(lo..<hi)
            for idx in indices {
                guard idx - lo < rows.count, case let .object(_, cells) = rows[idx - lo] else { continue }
                if cells.contains(where: { $0.lowercased().contains(needle) }) { return .found(idx) }
            }
            scanned += len
            looked += len
            i = forward ? i + len : i - len
        }
        return .notFound
    }

    /// The first display row at or after `start` (before, going back) whose cells contain `term`,
    /// wrapping around once; in one go (the program searches in steps instead).
    func search(_ term: String, from start: Int, forward: Bool) -> Int? {
        if case let .found(i) = searchStep(term, from: start, forward: forward, scanned: 0, budget: Int.max) { return i }
        return nil
    }

    // MARK: Detail

    func detail(for id: ManagedObjectID) throws -> DetailSnapshot {
        try context.performAndWait {
            let object = try context.existingObject(with: id)
            let changed = Set(object.changedValues().keys)
            var props: [DetailProperty] = []
            for a in object.entity.allAttributes {
                let value = try object.attributeValue(forKey: a.name)
                props.append(DetailProperty(
                    name: a.name,
                    kind: .attribute(
                        type: ValueFormatter.typeName(a.type) + (a.isOptional ? ", optional" : "")
                            + (a.rawColumn.map { ", raw column \($0): nothing in the model explains it" } ?? "")),
                    value: ValueFormatter.detail(value), changed: changed.contains(a.name), isRaw: a.isRaw))
            }
            for r in object.entity.allRelationships {
                if r.isToMany {
                    let n = try object.objectIDs(forRelationshipNamed: r.name).count
                    props.append(DetailProperty(
                        name: r.name, kind: .toMany(destination: r.destinationEntityName, count: n, ordered: r.isOrdered),
                        value: "\(n)", changed: changed.contains(r.name)))
                } else {
                    let target = try object.object(forKey: r.name)
                    props.append(DetailProperty(
                        name: r.name, kind: .toOne(destination: r.destinationEntityName, target: target?.objectID),
                        value: target.map(ValueFormatter.displayName) ?? "nil", changed: changed.contains(r.name)))
                }
            }
            return DetailSnapshot(
                objectID: id, entityName: object.entity.name, title: ValueFormatter.displayName(of: object),
                uri: id.uriRepresentation().absoluteString, properties: props)
        }
    }

    // MARK: Changes

    /// The controller reported a batch of changes (or refetched: no marks): tell the app the new
    /// totals, the marks and where the selected object went. Nothing is passed on while a refresh
    /// is under way.
    fileprivate func tableDidChange(_ marks: [ManagedObjectID: RowMark]) {
        guard !suppressChanges else { return }
        sendTableChange(marks)
    }

    /// The context in use saved or dropped its changes without changing a value the controller
    /// watches: the rows are read again so their unsaved-change marks go.
    func changesSettled() {
        sendTableChange([:])
    }

    private func sendTableChange(_ marks: [ManagedObjectID: RowMark]) {
        rebuildSectionStarts()
        let selected = selectedID.flatMap { displayIndex(of: $0) }
        send(.tableChanged(TableChange(
            rowCount: rowCount, objectCount: controller?.count ?? 0, marks: marks, selectedIndex: selected, date: Date(), source: source)))
    }

    // MARK: Export

    /// Writes every row of the current table (filter and sort applied) as CSV or JSON, each value
    /// whole (``ValueFormatter/exported(_:)``: dates in UTC to the millisecond, binary in base64).
    func export(format: String, to path: String) throws -> Int {
        let url = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
        let (header, lines): ([String], [[AttributeValue]]) = try context.performAndWait {
            guard let controller else { throw BrowserError.noTable }
            var objects = controller.fetchedObjects
            if orderedRows.count == objects.count { objects = orderedRows.map { objects[$0] } }
            let header = ["objectID"] + columns.map(\.name)
            let lines = objects.map { o in
                [AttributeValue.string(o.objectID.uriRepresentation().absoluteString)]
                    + columns.map { a in o.entity.attribute(named: a.name) == nil ? .null : ((try? o.attributeValue(forKey: a.name)) ?? .null) }
            }
            return (header, lines)
        }
        var out = ""
        if format == "csv" {
            func quote(_ s: String) -> String {
                s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
            }
            out = header.map(quote).joined(separator: ",") + "\r\n"
            for l in lines { out += l.map { quote(ValueFormatter.exported($0)) }.joined(separator: ",") + "\r\n" }
        } else {
            let json = JSONValue.array(lines.map { l in .object(zip(header, l).map { ($0, Self.json($1)) }) })
            out = json.rendered() + "\n"
        }
        do {
            try out.write(to: url, atomically: true, encoding: .utf8)
        } catch {
            throw BrowserError.cannotWrite(path: url.path, reason: error.localizedDescription)
        }
        return lines.count
    }

    static func json(_ v: AttributeValue) -> JSONValue {
        switch v {
        case .null: .null
        case let .integer(i): .integer(i)
        case let .double(d): d.isFinite ? .double(d) : .string(String(d))
        case let .bool(b): .bool(b)
        case let .decimal(d): .number(NSDecimalNumber(decimal: d).description(withLocale: Locale(identifier: "en_US_POSIX")))
        default: .string(ValueFormatter.exported(v))
        }
    }

    // MARK: Refresh

    /// Re-reads the store: drops the cached rows, refetches, recounts; returns what changed per entity.
    func refresh() throws -> [String: (Int, Int)] {
        let before = counts
        session.coordinator.invalidateRowCache()
        // A scratch context on a coordinator of its own has a row cache of its own.
        let own = context.persistentStoreCoordinator
        if own !== session.coordinator { own.invalidateRowCache() }
        if let stack = session.stack {
            let root = stack.privateQueueContext
            root.performAndWait { root.refreshAllObjects() }
        }
        // A scratch child reads through the main context: that is re-read first.
        let main = session.mainContext
        if context !== main, context.parent === main { main.performAndWait { main.refreshAllObjects() } }
        // Refreshing every object makes the controller report each as updated: mark only the
        // rows the re-read brought in instead.
        let shownBefore = Set(controller?.fetchedObjects.map(\.objectID) ?? [])
        suppressChanges = true
        defer { suppressChanges = false }
        try context.performAndWait {
            context.refreshAllObjects()
            counts = try session.counts()
            if let controller { try controller.performFetch() }
        }
        if let controller {
            var marks: [ManagedObjectID: RowMark] = [:]
            for o in controller.fetchedObjects where !shownBefore.contains(o.objectID) { marks[o.objectID] = .inserted }
            sendTableChange(marks)
        } else {
            rebuildSectionStarts()
        }
        var diff: [String: (Int, Int)] = [:]
        for (name, n) in counts where before[name] != n { diff[name] = (before[name] ?? 0, n) }
        return diff
    }
}

/// Adjusts one entity's count as its monitor reports inserts and deletes.
private final class CountTracker: EntityMonitorDelegate {
    typealias Object = ManagedObject
    let entity: String
    weak var owner: BrowserData?
    init(entity: String, owner: BrowserData) {
        self.entity = entity
        self.owner = owner
    }
    func entityMonitor(_ monitor: EntityMonitor<ManagedObject>, didInsert objects: Set<ManagedObject>) {
        owner?.countDelta(entity, objects.count)
    }
    func entityMonitor(_ monitor: EntityMonitor<ManagedObject>, didDelete objects: Set<ManagedObject>) {
        owner?.countDelta(entity, -objects.count)
    }
}

/// Collects a controller's changes between will- and did-change into marks.
private final class TableDelegate: FetchedResultsControllerDelegate {
    typealias Object = ManagedObject
    weak var owner: BrowserData?
    var marks: [ManagedObjectID: RowMark] = [:]
    func controllerWillChangeContent(_ controller: FetchedResultsController<ManagedObject>) { marks = [:] }
    func controller(_ controller: FetchedResultsController<ManagedObject>, didChange change: FetchedResultsChange<ManagedObject>) {
        switch change {
        case let .insert(o, _): marks[o.objectID] = .inserted
        case let .update(o, _, _): marks[o.objectID] = .updated
        case let .move(o, _, _): marks[o.objectID] = .moved
        case .delete: break
        }
    }
    func controllerDidChangeContent(_ controller: FetchedResultsController<ManagedObject>) {
        guard controller === owner?.controller else { return }
        owner?.tableDidChange(marks)
    }
    func controllerDidPerformFetch(_ controller: FetchedResultsController<ManagedObject>) {
        guard controller === owner?.controller else { return }
        owner?.tableDidChange([:])
    }
}
