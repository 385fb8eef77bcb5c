import CoreStack
import Foundation

/// `stackscope history STORE [--after TOKEN] [--author A] [--json]`: the store's persistent
/// history (Core Data's `ATRANSACTION` / `ACHANGE` tables, written by Apple's Core Data or by a
/// CoreStack store that tracks history), read-only.
///
/// ```swift
/// let text = try HistoryCommand.run(storePath: "Notes.sqlite", modelPath: nil, after: "12", author: nil, json: false)
/// ```
public enum HistoryCommand {
    /// What the command found: the store's UUID, whether it has history, and the transactions.
    ///
    /// ```swift
    /// let listing = try HistoryCommand.listing(storePath: path, modelPath: nil, after: nil, author: "app")
    /// print(listing.transactions.count)
    /// ```
    public struct Listing: Sendable, Hashable {
        /// The store's UUID from its metadata.
        public var storeUUID: String
        /// Whether the store has persistent history tables.
        public var hasHistory: Bool
        /// The transactions that match the request (none when the store has no history).
        public var transactions: [PersistentHistoryTransaction]
    }

    /// Reads the transactions after `after` (a token `UUID:number` or a bare transaction number),
    /// by `author` when given, through a read-only session.
    public static func listing(
        storePath: String, modelPath: String?, after: String?, author: String?, files: any StoreFileAccess = StoreFiles.standard
    ) throws -> Listing {
        let session = try StoreSession.open(storePath: storePath, modelPath: modelPath, files: files)
        // Closed on every way out (SQLite then removes the -wal and -shm), not left to the process exit.
        defer { session.close() }
        guard let store = session.coordinator.persistentStore as? SQLiteStore else {
            throw StackScopeError.invalidOption(name: "store", reason: "history needs an SQLite store")
        }
        var token: PersistentHistoryToken?
        if let after {
            guard let t = PersistentHistoryToken(parsing: after, store: store.identifier) else {
                throw StackScopeError.invalidOption(
                    name: "--after", reason: "\"\(after)\" is not a history token (STORE-UUID:NUMBER, or a transaction number)")
            }
            token = t
        }
        var request = PersistentHistoryChangeRequest.fetchHistory(after: token)
        request.author = author
        let has = try store.hasPersistentHistory()
        return Listing(storeUUID: store.identifier, hasHistory: has, transactions: has ? try store.execute(request).transactions : [])
    }

    /// The command's output, JSON or text, ending with a newline.
    public static func run(
        storePath: String, modelPath: String?, after: String?, author: String?, json: Bool,
        files: any StoreFileAccess = StoreFiles.standard
    ) throws -> String {
        let listing = try listing(storePath: storePath, modelPath: modelPath, after: after, author: author, files: files)
        return (json ? renderJSON(listing) : renderText(listing)) + "\n"
    }

    static func date(_ d: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: d)
    }

    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    static func text(_ v: AttributeValue) -> String {
        switch v {
        case .null: "nil"
        case let .string(s): "\"\(s)\""
        case let .integer(i): String(i)
        case let .double(d): String(d)
        case let .bool(b): b ? "true" : "false"
        case let .date(d): date(d)
        case let .data(d): "<\(d.count) bytes>"
        case let .uuid(u): u.uuidString
        case let .decimal(d): "\(d)"
        case let .url(u): u.absoluteString
        }
    }

    /// The listing as text: one block per transaction, a table of its changes.
    ///
    /// ```swift
    /// print(HistoryCommand.renderText(listing))
    /// ```
    public static func renderText(_ listing: Listing) -> String {
        guard listing.hasHistory else { return "The store keeps no persistent history (no ATRANSACTION table)." }
        if listing.transactions.isEmpty { return "No transactions." }
        var lines: [String] = []
        for t in listing.transactions {
            lines.append(
                "Transaction \(t.transactionNumber)  \(date(t.timestamp))  token \(t.token)")
            lines.append(
                "  author \(t.author ?? "-")  context \(t.contextName ?? "-")  process \(t.processID ?? "-")  bundle \(t.bundleID ?? "-")  \(t.changes.count) change\(t.changes.count == 1 ? "" : "s")")
            let rows = t.changes.map { c -> [String] in
                var detail = ""
                if let p = c.updatedProperties { detail = p.joined(separator: ", ") } else if let raw = c.updatedColumns { detail = "columns " + hex(raw) }
                if let tomb = c.tombstone, !tomb.isEmpty {
                    detail = "tombstone " + tomb.keys.sorted().map { "\($0)=\(text(tomb[$0] ?? .null))" }.joined(separator: " ")
                }
                return ["  " + c.changeType.description, c.entityName, "p\(c.primaryKey)", detail]
            }
            if !rows.isEmpty {
                lines += TextTable.render(header: ["  Change", "Entity", "Key", "Properties"], rows: rows)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The listing as JSON (`storeUUID`, `hasHistory`, `transactions` with their `changes`).
    ///
    /// ```swift
    /// let json = HistoryCommand.renderJSON(listing)
    /// ```
    public static func renderJSON(_ listing: Listing) -> String {
        func opt(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
        return JSONValue.object([
            ("storeUUID", .string(listing.storeUUID)),
            ("hasHistory", .bool(listing.hasHistory)),
            (
                "transactions",
                .array(
                    listing.transactions.map { t in
                        .object([
                            ("number", .integer(t.transactionNumber)),
                            ("token", .string(t.token.description)),
                            ("timestamp", .double(t.timestamp.timeIntervalSinceReferenceDate)),
                            ("date", .string(date(t.timestamp))),
                            ("author", opt(t.author)),
                            ("contextName", opt(t.contextName)),
                            ("bundleID", opt(t.bundleID)),
                            ("processID", opt(t.processID)),
                            (
                                "changes",
                                .array(
                                    t.changes.map { c in
                                        .object([
                                            ("id", .integer(c.changeID)),
                                            ("type", .string(c.changeType.description)),
                                            ("entity", .string(c.entityName)),
                                            ("entityNumber", .integer(Int64(c.entityNumber))),
                                            ("primaryKey", .integer(c.primaryKey)),
                                            ("objectID", .string(c.changedObjectURI)),
                                            ("updatedColumns", c.updatedColumns.map { .string(hex($0)) } ?? .null),
                                            ("updatedProperties", c.updatedProperties.map { .array($0.map { .string($0) }) } ?? .null),
                                            (
                                                "tombstone",
                                                c.tombstone.map { tomb in
                                                    .object(tomb.keys.sorted().map { ($0, .string(text(tomb[$0] ?? .null))) })
                                                } ?? .null
                                            ),
                                        ])
                                    })
                            ),
                        ])
                    })
            ),
        ]).rendered()
    }
}
