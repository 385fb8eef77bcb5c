import CoreStack
import Foundation

// The tables under "Other tables": neither the model's nor Core Data's own, read as plain rows
// through SQLitePlainTable (CoreStack), never through the context.
extension BrowserData {
    /// The store's SQLite store, nil for another kind of store.
    var sqliteStore: SQLiteStore? { session.coordinator.persistentStore as? SQLiteStore }

    /// The tables of the store that neither the model nor Core Data explains, sorted.
    func otherTableNames() -> [String] {
        (try? sqliteStore?.schemaReport().unexplainedTables) ?? []
    }

    /// The entities pane's rows for them: the "Other tables" heading and a row per table (none
    /// when there are none).
    func otherTableNodes() -> [EntityNode] {
        let names = otherTableNames()
        guard !names.isEmpty else { return [] }
        return [EntityNode(name: "Other tables", depth: 0, isAbstract: false, hasChildren: true, kind: .otherTablesHeading)]
            + names.map { EntityNode(name: $0, depth: 1, isAbstract: false, hasChildren: false, kind: .otherTable) }
    }

    /// The row count of each of them (a table that cannot be counted is left out).
    func otherTableCounts() -> [String: Int] {
        guard let store = sqliteStore else { return [:] }
        var out: [String: Int] = [:]
        for name in otherTableNames() {
            if let n = try? store.plainTable(named: name).count() { out[name] = n }
        }
        return out
    }

    /// The plain table view of `name` with its first `height` rows (and a page more) read.
    func openPlainTable(_ name: String, height: Int) throws -> PlainTableViewState {
        guard let store = sqliteStore else { throw BrowserError.nothingTo("read \(name): the store is not an SQLite file") }
        let table = try store.plainTable(named: name)
        var view = PlainTableViewState(table: name, columns: table.columns, hasRowID: table.hasRowID, rowCount: try table.count())
        let loaded = plainRows(name, query: view.query, range: 0..<min(view.rowCount, 2 * max(1, height)), generation: view.generation)
        for (k, row) in loaded.rows.enumerated() { view.window[k] = row }
        view.error = loaded.error
        return view
    }

    /// The rows `range` of `query` in table `name`, formatted, with the query's count.
    func plainRows(_ name: String, query: SQLitePlainTableQuery, range: Range<Int>, generation: Int) -> PlainRowsLoaded {
        do {
            guard let store = sqliteStore else { throw BrowserError.nothingTo("read \(name): the store is not an SQLite file") }
            let table = try store.plainTable(named: name)
            let rows = try table.rows(query, offset: range.lowerBound, limit: range.count)
            return PlainRowsLoaded(
                table: name, generation: generation, range: range, rowCount: try table.count(query),
                rows: rows.map { PlainTableRow(rowID: $0.rowID, cells: $0.values.map(Self.cell)) })
        } catch {
            return PlainRowsLoaded(table: name, generation: generation, range: range, rowCount: 0, rows: [], error: StackScopeErrorMessage.line(for: error))
        }
    }

    /// One cell: text on one line, a blob as what it holds (from its first bytes when it is large).
    static func cell(_ value: SQLitePlainValue) -> String {
        switch value {
        case let .text(s, _): return ValueFormatter.cell(.string(s)) + (value.text.hasSuffix("…") ? "…" : "")
        case let .blob(prefix, count):
            if prefix.count >= count { return ValueFormatter.cell(.data(prefix)) }
            let head = prefix.prefix(8).map { String(format: "%02X", $0) }.joined(separator: " ")
            return "\(count) bytes · " + (ValueInspector.sniff(prefix) ?? head + " …")
        default: return value.text
        }
    }

    /// The bytes of one cell, to read a range at a time (nil for NULL): SQLite's blob I/O by
    /// `rowid`, or plain `SELECT`s of a range in a table without one.
    func plainCellBytes(_ cell: PlainCell) throws -> (any ValueBytes)? {
        guard let store = sqliteStore else { throw BrowserError.nothingTo("read \(cell.table): the store is not an SQLite file") }
        let table = try store.plainTable(named: cell.table)
        switch cell.row {
        case let .rowID(rowID): return try table.storedValue(column: cell.column, rowID: rowID)?.bytes
        case let .position(query, offset): return try table.cellBytes(column: cell.column, at: offset, in: query)
        }
    }

    /// The value inspector on one cell (nil for NULL); a cell of a table without `rowid` says
    /// it is read with `SELECT` (a range at a time, as the hex dump scrolls).
    func plainCellInspector(_ cell: PlainCell) throws -> ValueInspectorState? {
        guard let bytes = try plainCellBytes(cell) else { return nil }
        var inspector = try ValueInspectorState(title: cell.title, bytes: bytes)
        inspector.plainCell = cell
        if case .position = cell.row { inspector.summary += " · read with SELECT (the table has no rowid for blob I/O)" }
        return inspector
    }

    /// Writes one cell's bytes to `url`, a chunk at a time; returns how many.
    func writePlainCell(_ cell: PlainCell, to url: URL) throws -> Int {
        guard let bytes = try plainCellBytes(cell) else { throw BrowserError.nothingTo("save \(cell.title): it is NULL") }
        return try Self.write(bytes, to: url)
    }

    /// The bytes of an attribute to read a range at a time, and the path of its external data
    /// file if it has one: the saved value (through SQLite's blob I/O, or its file) when the
    /// context in use has not changed it; else the value in the context.
    func valueBytes(for id: ManagedObjectID, key: String) throws -> (bytes: any ValueBytes, location: String?) {
        let changed = context.performAndWait { context.registeredObject(for: id)?.changedValues()[key] != nil }
        guard !changed, !id.isTemporaryID, let store = sqliteStore else { return (try attributeBytes(for: id, key: key), nil) }
        guard let value = try store.storedValue(of: id, attribute: key) else {
            throw BrowserError.nothingTo("inspect: \(key) holds no bytes here")
        }
        if case let .externalFile(url) = value.location { return (value.bytes, url.path) }
        return (value.bytes, nil)
    }

    /// The value inspector on an attribute (see ``valueBytes(for:key:)``).
    func inspectedValue(for id: ManagedObjectID, key: String, title: String) throws -> ValueInspectorState {
        let (bytes, location) = try valueBytes(for: id, key: key)
        return try ValueInspectorState(title: title, bytes: bytes, location: location, source: (id, key))
    }
}

extension BrowserData {
    /// Writes the stored bytes of an attribute to `url` (what `:save-value FILE` does) and returns
    /// how many: the saved value streamed a chunk at a time when the context has not changed it
    /// (a 100 MB value is never in memory whole), else the value in the context.
    ///
    /// - Throws: ``BrowserError/cannotWrite(path:reason:)`` naming the file, or what reading throws.
    func writeValue(of id: ManagedObjectID, key: String, to url: URL) throws -> Int {
        try Self.write(try valueBytes(for: id, key: key).bytes, to: url)
    }

    /// Writes `bytes` to `url` a chunk at a time (a 100 MB value is never in memory whole).
    ///
    /// - Throws: ``BrowserError/cannotWrite(path:reason:)`` naming the file, or what reading throws.
    static func write(_ bytes: any ValueBytes, to url: URL) throws -> Int {
        do {
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                throw BrowserError.cannotWrite(path: url.path, reason: "it cannot be created")
            }
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            try bytes.forEachChunk { try handle.write(contentsOf: $0) }
        } catch let error as BrowserError {
            throw error
        } catch {
            throw BrowserError.cannotWrite(path: url.path, reason: (error as NSError).localizedDescription)
        }
        return bytes.count
    }
}
