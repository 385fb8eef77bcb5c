import Foundation

/// `stackscope DIR`: the stores `find` lists under a folder, numbered, and the answer to "which
/// one?" before the browser starts (a prompt on the terminal, not a screen of the browser).
///
/// ```swift
/// let search = try StoreFinder().search(["Stores"])
/// print(StorePicker.menu(search), terminator: "")   // " 1  Stores/App.sqlite  84 KB  …"
/// StorePicker.choice("2", count: 3)                 // .open(1)
/// StorePicker.choice("", count: 3)                  // .open(0): Enter takes the first
/// StorePicker.choice("q", count: 3)                 // .quit
/// ```
public enum StorePicker {
    /// What an answer asks for.
    public enum Choice: Sendable, Equatable {
        /// Open the store at this index of the search's stores.
        case open(Int)
        /// Open nothing.
        case quit
        /// Not an answer: the message says what to type.
        case invalid(String)
    }

    /// The stores numbered from 1, one a line (path, size, model source, objects, a -wal beside),
    /// then the folders skipped, if any; ends with a newline.
    ///
    /// ```swift
    /// StorePicker.menu(search)  // " 1  ./App.sqlite  84 KB  stored  1200 objects\n"
    /// ```
    public static func menu(_ search: StoreSearch) -> String {
        let width = String(search.stores.count).count
        var lines = search.stores.enumerated().map { i, s in
            var parts = [s.path, FindCommand.size(s.size), s.model.rawValue]
            if let n = s.objectCount { parts.append("\(n) \(n == 1 ? "object" : "objects")") }
            if s.hasWAL { parts.append("-wal \(FindCommand.size(s.walSize))") }
            if let problem = s.problem { parts.append(problem) }
            let number = String(i + 1)
            return String(repeating: " ", count: width - number.count + 1) + number + "  " + parts.joined(separator: "  ")
        }
        if !search.skippedFolders.isEmpty {
            lines.append("(\(search.skippedFolders.count) \(search.skippedFolders.count == 1 ? "folder" : "folders") could not be read)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The prompt after the menu.
    ///
    /// ```swift
    /// StorePicker.prompt(count: 3)  // "Open which store? 1–3, Enter for 1, q quits: "
    /// ```
    public static func prompt(count: Int) -> String {
        count == 1 ? "Open it? Enter opens, q quits: " : "Open which store? 1–\(count), Enter for 1, q quits: "
    }

    /// Reads an answer: a number from 1 to `count`, nothing (the first), or `q` (or end of input).
    ///
    /// ```swift
    /// StorePicker.choice("7", count: 3)  // .invalid("type a number from 1 to 3, Enter for 1, or q")
    /// ```
    public static func choice(_ answer: String?, count: Int) -> Choice {
        guard let answer else { return .quit }
        let text = answer.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.isEmpty { return count > 0 ? .open(0) : .quit }
        if ["q", "quit", "exit"].contains(text.lowercased()) { return .quit }
        guard let n = Int(text), n >= 1, n <= count else {
            return .invalid(count == 1 ? "press Enter to open it, or q" : "type a number from 1 to \(count), Enter for 1, or q")
        }
        return .open(n - 1)
    }
}
