import CoreStack
import Foundation

/// The diff view's whole state (`stackscope diff OLD NEW` on a terminal): the comparison as it
/// arrives (`StoreDiffReport`), the entities with their counts of changes, the selected entity's
/// changed objects, and the selected object's old and new values side by side
/// (``DiffObjectDetail``). A value: ``DiffView/update(_:_:)`` changes it, ``DiffView/render(_:)``
/// draws it.
///
/// ```swift
/// var state = DiffViewState(oldPath: "before.sqlite", newPath: "after.sqlite")
/// _ = DiffView.update(&state, .compared(report))
/// state.rows.first?.text   // "~ 12  title"
/// ```
public struct DiffViewState: Sendable {
    /// The three panes, in Tab order.
    public enum Pane: String, Sendable, CaseIterable, Hashable {
        /// The entities with their counts of changes, the selected entity's changed objects, and the selected object's old and new values.
        case entities, objects, detail
    }

    /// One line of the objects pane: a changed, inserted or deleted object, a join-table link, or
    /// an ordered relationship whose members moved.
    public enum Row: Sendable, Hashable {
        /// An object in both stores whose values differ.
        case changed(ObjectChange)
        /// An object only the new store has.
        case inserted(ObjectReference)
        /// An object only the old store has.
        case deleted(ObjectReference)
        /// A link of a many-to-many (join-table) relationship made or removed.
        case link(RelationshipLinkChange)
        case reordered(RelationshipOrderChange)

        /// The line as the objects pane shows it: a mark (`~` changed, `+` inserted or linked, `-`
        /// deleted or unlinked, `↕` reordered), the object's key, and what changed.
        ///
        /// ```swift
        /// DiffViewState.Row.inserted(ObjectReference(key: 12, primaryKey: 12)).text   // "+ 12"
        /// ```
        public var text: String {
            switch self {
            case let .changed(c):
                let names = c.attributes.map(\.name) + c.relationships.map(\.name)
                return "~ \(DiffViewState.text(c.key))  " + names.joined(separator: ", ")
            case let .inserted(o): return "+ \(DiffViewState.text(o.key))"
            case let .deleted(o): return "- \(DiffViewState.text(o.key))"
            case let .link(l):
                return "\(l.isLinked ? "+" : "-") \(DiffViewState.text(l.source)).\(l.relationship) \(l.isLinked ? "linked to" : "unlinked from") "
                    + "\(l.destinationEntity) \(DiffViewState.text(l.destination))"
            case let .reordered(c):
                return "↕ " + DiffCommand.orderText(c, DiffCommand.dateFormatter(), maxMoves: 3)
            }
        }
    }

    /// The store before.
    public var oldPath: String
    /// The store after.
    public var newPath: String
    /// The terminal size in cells.
    public var size = Size(width: 80, height: 24)
    /// The comparison, once it finished (nil while it runs or when it failed).
    public var report: StoreDiffReport?
    /// While the comparison runs: how far it got (the status line shows it with a spinner).
    public var progress: String? = "Opening the stores"
    /// Why the comparison failed, shown in place of the entities.
    public var error: String?
    /// How many objects of each kind each entity lists (`StoreDiffOptions/changeLimit`); counts are exact.
    public var listLimit: Int?
    /// The pane that receives keys.
    public var focus: Pane = .entities
    /// The selected entity (in ``entities``) and the list's scroll.
    public var entityScroll = ScrollState()
    /// The selected object line (in ``rows``) and the list's scroll.
    public var objectScroll = ScrollState()
    /// The selected object's two sides, once read (nil: none selected, or still being read).
    public var detail: DiffObjectDetail?
    /// Why the selected object could not be read.
    public var detailError: String?
    /// The first line of the detail shown.
    public var detailOffset = 0
    /// The status line's message.
    public var status: String?
    /// The frame of the spinner, advanced by ticks while the comparison runs.
    public var spinnerPhase = 0
    /// The `?` help, while shown.
    public var help: HelpState?
    /// Whether the mouse is captured (`M` turns it off so the terminal selects text).
    public var mouseEnabled = true
    /// Set by `q`: the program ends.
    public var quitRequested = false

    /// A view of the comparison of the two stores, still to run.
    public init(oldPath: String, newPath: String) {
        self.oldPath = oldPath
        self.newPath = newPath
    }

    /// The entities listed: those with changes first (in the report's order), then the unchanged
    /// and those not compared.
    public var entities: [EntityDiff] {
        let all = report?.entities ?? []
        return all.filter(\.hasChanges) + all.filter { !$0.hasChanges }
    }

    /// The selected entity, nil when nothing is listed.
    public var selectedEntity: EntityDiff? {
        let e = entities
        return e.indices.contains(entityScroll.selection) ? e[entityScroll.selection] : nil
    }

    /// The selected entity's lines: changed objects, then inserted, deleted, links made or removed,
    /// and ordered relationships reordered.
    public var rows: [Row] {
        guard let e = selectedEntity else { return [] }
        return e.changed.map(Row.changed) + e.inserted.map(Row.inserted) + e.deleted.map(Row.deleted) + e.links.map(Row.link)
            + e.reorders.map(Row.reordered)
    }

    /// The selected line of the objects pane, nil when there is none.
    public var selectedRow: Row? {
        let r = rows
        return r.indices.contains(objectScroll.selection) ? r[objectScroll.selection] : nil
    }

    /// A value as the diff's text report writes it: strings quoted, `nil` for null.
    ///
    /// ```swift
    /// DiffViewState.text(.string("Dune"))   // "\"Dune\""
    /// ```
    public static func text(_ value: AttributeValue) -> String {
        DiffCommand.text(value, DiffCommand.dateFormatter())
    }
}
