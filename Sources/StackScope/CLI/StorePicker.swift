import Foundation

/// `stackscope DIR` without a terminal: the stores `find` lists under the folder, numbered, for
/// the error that asks to name one (on a terminal the browser's picker, ``StorePickerProgram``,
/// lists them instead).
///
/// ```swift
/// let search = try StoreFinder().search(["Stores"])
/// print(StorePicker.menu(search), terminator: "")   // " 1  Stores/App.sqlite  84 KB  …"
/// ```
public enum StorePicker {
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
}
