import Foundation

/// One object of a store diff, both sides: every attribute and relationship with its value in the
/// old store and in the new one, the changed ones marked, and the relationship changes the diff
/// found (to-ones re-pointed, join-table links made or removed, members of ordered relationships
/// moved). For a link, the destination object follows under a heading line. The diff view's detail pane.
///
/// ```swift
/// let detail = DiffObjectDetail(title: "Book 12", oldTitle: "Z_PK 12", newTitle: "Z_PK 12", lines: [
///     .init(name: "title", old: "\"Dune\"", new: "\"Dune Messiah\"", changed: true),
/// ], changes: ["author: Author 3 → Author 7"])
/// ```
public struct DiffObjectDetail: Sendable, Hashable {
    /// One property, both sides.
    public struct Line: Sendable, Hashable {
        /// The property's name.
        public var name: String
        /// Its value in the old store; nil when the object (or the property) is not there.
        public var old: String?
        /// Its value in the new store; nil when the object (or the property) is not there.
        public var new: String?
        /// Whether the values differ.
        public var changed: Bool
        /// A heading over the lines that follow (another object's: a link's destination), its
        /// sides that object's place in each store.
        public var isHeading: Bool

        /// A line from its parts.
        ///
        /// ```swift
        /// DiffObjectDetail.Line(name: "pages", old: "412", new: "420", changed: true)
        /// DiffObjectDetail.Line(name: "→ authors: Author \"Le Guin\"", old: "Z_PK 2", new: "Z_PK 5", changed: false, isHeading: true)
        /// ```
        public init(name: String, old: String?, new: String?, changed: Bool, isHeading: Bool = false) {
            self.name = name
            self.old = old
            self.new = new
            self.changed = changed
            self.isHeading = isHeading
        }
    }

    /// The object's entity and key (the pane's heading).
    public var title: String
    /// The heading of the old side (`Z_PK 12`, or `not in the old store`).
    public var oldTitle: String
    /// The heading of the new side.
    public var newTitle: String
    /// Attributes, then relationships, in the model's order.
    public var lines: [Line]
    /// The relationship changes, one line each (`author: Author 3 → Author 7`, `+ genres: Genre 4`,
    /// `↕ chapters: Chapter 9 2 → 0`).
    public var changes: [String]

    /// A detail from its parts.
    public init(title: String, oldTitle: String, newTitle: String, lines: [Line], changes: [String]) {
        self.title = title
        self.oldTitle = oldTitle
        self.newTitle = newTitle
        self.lines = lines
        self.changes = changes
    }
}
