import CoreStack
import Foundation

/// `stackscope find [DIR …] [--json]`: the Core Data and SwiftData stores under folders, as a table
/// or JSON, with a closing line of what was searched and skipped.
///
/// ```swift
/// let search = try StoreFinder().search(["/tmp/projects"])
/// print(FindCommand.renderText(search), terminator: "")
/// // Path                      Size  Modified          Framework  Model   Entities  Objects  History  WAL
/// // ----------------------  ------  ----------------  ---------  ------  --------  -------  -------  ---
/// // /tmp/projects/A.sqlite   84 KB  2026-11-26 14:04          1  stored         8      300  no         —
/// //
/// // 1 store; 3 folders searched, 12 files examined.
/// ```
public enum FindCommand {
    /// The stores as a table (or a line saying there are none), then a summary line, and one line
    /// per store problem and per skipped folder or file; ends with a newline.
    ///
    /// ```swift
    /// print(FindCommand.renderText(try StoreFinder().search(["."]), timeZone: .current), terminator: "")
    /// ```
    public static func renderText(_ search: StoreSearch, timeZone: TimeZone = .current) -> String {
        var lines: [String] = []
        if search.stores.isEmpty {
            lines.append("No Core Data store found.")
        } else {
            let rows = search.stores.map { s in
                [
                    s.path, size(s.size), date(s.modified, timeZone: timeZone),
                    s.frameworkVersion.map(String.init) ?? "—", s.model.rawValue,
                    s.entityCount.map(String.init) ?? "—", s.objectCount.map(String.init) ?? "—",
                    s.hasHistory.map { $0 ? "yes" : "no" } ?? "—", s.hasWAL ? size(s.walSize) : "—",
                ]
            }
            lines += TextTable.render(
                header: ["Path", "Size", "Modified", "Framework", "Model", "Entities", "Objects", "History", "WAL"],
                rows: rows, rightAligned: [1, 3, 5, 6, 8])
        }
        lines.append("")
        lines.append(summary(search))
        for s in search.stores {
            if let problem = s.problem { lines.append("\(s.path): \(problem)") }
        }
        for skipped in search.skippedFolders { lines.append("skipped folder \(skipped.path): \(skipped.reason)") }
        for skipped in search.skippedFiles { lines.append("skipped file \(skipped.path): \(skipped.reason)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The search as JSON: `stores` (each with `path`, `size`, `modified` in ISO 8601, `storeUUID`,
    /// `frameworkVersion`, `model`, `entities`, `objects`, `history`, `wal`, `walSize`, `problem`),
    /// the counts, and the skipped folders and files with their reasons.
    ///
    /// ```swift
    /// let json = FindCommand.renderJSON(try StoreFinder().search(["."]))  // {"stores": [...], "foldersSearched": 3, ...}
    /// ```
    public static func renderJSON(_ search: StoreSearch) -> String {
        func optional<T>(_ value: T?, _ wrap: (T) -> JSONValue) -> JSONValue { value.map(wrap) ?? .null }
        func skipped(_ list: [StoreSearch.Skipped]) -> JSONValue {
            .array(list.map { .object([("path", .string($0.path)), ("reason", .string($0.reason))]) })
        }
        let formatter = ISO8601DateFormatter()
        let stores: [JSONValue] = search.stores.map { s in
            .object([
                ("path", .string(s.path)),
                ("size", .integer(s.size)),
                ("modified", .string(formatter.string(from: s.modified))),
                ("storeUUID", optional(s.storeUUID) { .string($0) }),
                ("frameworkVersion", optional(s.frameworkVersion) { .integer(Int64($0)) }),
                ("model", .string(s.model.rawValue)),
                ("entities", optional(s.entityCount) { .integer(Int64($0)) }),
                ("objects", optional(s.objectCount) { .integer(Int64($0)) }),
                ("history", optional(s.hasHistory) { .bool($0) }),
                ("wal", .bool(s.hasWAL)),
                ("walSize", .integer(s.walSize)),
                ("problem", optional(s.problem) { .string($0) }),
            ])
        }
        return JSONValue.object([
            ("stores", .array(stores)),
            ("foldersSearched", .integer(Int64(search.foldersSearched))),
            ("filesExamined", .integer(Int64(search.filesExamined))),
            ("linksNotFollowed", .integer(Int64(search.linksNotFollowed))),
            ("skippedFolders", skipped(search.skippedFolders)),
            ("skippedFiles", skipped(search.skippedFiles)),
        ]).rendered() + "\n"
    }

    /// `2 stores; 14 folders searched, 230 files examined; 1 folder skipped (unreadable).`
    static func summary(_ search: StoreSearch) -> String {
        func count(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }
        var parts = [
            count(search.stores.count, "store", "stores") + "; "
                + count(search.foldersSearched, "folder", "folders") + " searched, "
                + count(search.filesExamined, "file", "files") + " examined"
        ]
        if !search.skippedFolders.isEmpty {
            parts.append(count(search.skippedFolders.count, "folder", "folders") + " skipped (unreadable)")
        }
        if !search.skippedFiles.isEmpty {
            parts.append(count(search.skippedFiles.count, "file", "files") + " skipped (unreadable)")
        }
        if search.linksNotFollowed > 0 {
            parts.append(count(search.linksNotFollowed, "link", "links") + " to a folder already searched not followed")
        }
        return parts.joined(separator: "; ") + "."
    }

    /// A size in bytes as people read it: `512 B`, `84 KB`, `1.2 MB`, `3.4 GB` (1 KB = 1024 bytes).
    static func size(_ bytes: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        if unit == 0 { return "\(bytes) B" }
        return value < 10 ? String(format: "%.1f %@", value, units[unit]) : "\(Int(value.rounded())) \(units[unit])"
    }

    private static func date(_ date: Date, timeZone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }
}
