import CoreStack
import Foundation

/// One context the browser can read and edit through: the main-queue context, or a scratch
/// context opened for editing (a child of the main context, an independent sibling on the same
/// coordinator, or a root context on its own coordinator on the same file).
///
/// ```swift
/// ContextInfo(name: "scratch-1", kind: .child, pending: PendingChanges(updated: 1), mergePolicy: "storeTrump (root)")
/// ```
public struct ContextInfo: Sendable, Hashable {
    /// How a context relates to the store and the main context.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The stack's main-queue context (read-only in the browser: edits open a scratch context).
        case main
        /// A child of the main-queue context: its save pushes into it, with no conflict check.
        case child
        /// A root context on the main context's coordinator: it saves straight to the store.
        case sibling
        /// A root context on a coordinator of its own on the same file.
        case coordinator

        /// What saving does, in a few words, for the picker and the status bar.
        public var saveTarget: String {
            switch self {
            case .main: "saves to the store"
            case .child: "saves into main, then to disk"
            case .sibling: "saves to the store (same coordinator)"
            case .coordinator: "saves to the store (own coordinator)"
            }
        }
    }
    /// The context's name (`main`, or a scratch context's name such as `scratch-1`).
    public var name: String
    /// How the context relates to the store and the main context.
    public var kind: Kind
    /// The context's unsaved changes.
    public var pending: PendingChanges
    /// The merge policy in force where this context's save meets the store (for a child: the root's).
    public var mergePolicy: String
    /// Whether the context's undo manager can undo.
    public var canUndo: Bool
    /// Whether the context's undo manager can redo.
    public var canRedo: Bool
    /// Creates a context description; no pending changes and no undo or redo by default.
    public init(name: String, kind: Kind, pending: PendingChanges = PendingChanges(), mergePolicy: String, canUndo: Bool = false, canRedo: Bool = false) {
        self.name = name
        self.kind = kind
        self.pending = pending
        self.mergePolicy = mergePolicy
        self.canUndo = canUndo
        self.canRedo = canRedo
    }
}

/// Picking an object in the table to link into a relationship (the table shows the destination
/// entity; Enter links the selected object, Esc gives up).
public struct PickState: Sendable, Hashable {
    /// The object whose relationship is being linked.
    public var owner: ManagedObjectID
    /// The owner's title, shown while picking.
    public var ownerTitle: String
    /// The relationship name.
    public var key: String
    /// The relationship's destination entity, which the table shows.
    public var destination: String
    /// Creates a pick.
    public init(owner: ManagedObjectID, ownerTitle: String, key: String, destination: String) {
        self.owner = owner
        self.ownerTitle = ownerTitle
        self.key = key
        self.destination = destination
    }
}

/// One attribute to type a value for.
public struct EditorField: Sendable, Hashable {
    /// The attribute name.
    public var key: String
    /// The attribute's type and rules, shown above the input (`Integer 32, 1…10000`).
    public var typeDescription: String
    /// The value as text, as first shown in the editor.
    public var text: String
    /// A file path is typed instead of the value (binary data).
    public var isFilePath: Bool
    /// Text that may hold line breaks (strings): C-o inserts one.
    public var isMultiLine: Bool
    /// Creates a field; not a file path and single-line by default.
    public init(key: String, typeDescription: String, text: String, isFilePath: Bool = false, isMultiLine: Bool = false) {
        self.key = key
        self.typeDescription = typeDescription
        self.text = text
        self.isFilePath = isFilePath
        self.isMultiLine = isMultiLine
    }
}

/// The attribute editor: one field at a time (inserting an object asks for each required
/// attribute in turn). A refused value stays in the editor with the reason.
public struct EditorState: Sendable, Hashable {
    /// The object being edited.
    public var objectID: ManagedObjectID
    /// The object's title, shown in the editor.
    public var objectTitle: String
    /// The field being edited.
    public var field: EditorField
    /// The line editor holding the typed text, started from `field.text`.
    public var line: LineEditor
    /// Fields still to ask for after this one.
    public var next: [EditorField]
    /// Why the last value was refused, shown in the editor.
    public var error: String?
    /// Waiting for the program to apply the value.
    public var applying = false
    /// The object was just inserted and the editor asks for its required values: Esc leaves
    /// it inserted without them (the save refuses it until they are set; `u` undoes the insert).
    public var insertion = false
    /// Creates an editor for `field`, with `next` to follow; `insertion` when it asks for a new
    /// object's required values.
    public init(objectID: ManagedObjectID, objectTitle: String, field: EditorField, next: [EditorField] = [], insertion: Bool = false) {
        self.objectID = objectID
        self.objectTitle = objectTitle
        self.field = field
        self.line = LineEditor(text: field.text)
        self.next = next
        self.insertion = insertion
    }
}

/// Work on the contexts asked for by ``App/update(_:_:)``: edits, saves, undo, merge policies,
/// the reset demo. The program runs them on the context in use (``AppState/currentContext``).
public enum EditCommand: Sendable, Hashable {
    /// Open the editor for an attribute (or toggle a boolean), in a scratch context.
    case beginEdit(ManagedObjectID, key: String)
    /// Set `key` of the object from the editor's text (with `isFilePath`, the bytes of the file the text names).
    case setValue(ManagedObjectID, key: String, text: String, isFilePath: Bool)
    /// Set `key` of the object to nil.
    case setNil(ManagedObjectID, key: String)
    /// Insert an object of `entity`; from a relationship's table, linked into `key` of `owner`
    /// (last, when ordered) in the same undoable step.
    case insert(entity: String, owner: ManagedObjectID? = nil, key: String? = nil)
    /// Move `object` by `by` places in `owner`'s ordered relationship `key`.
    case move(owner: ManagedObjectID, key: String, object: ManagedObjectID, by: Int)
    /// Show what deleting the object would do (cascades, nullified links, deny rules) before asking.
    case previewDelete(ManagedObjectID)
    /// Delete the object (after the preview was confirmed).
    case delete(ManagedObjectID)
    /// Start picking an object to link into `key` of `owner`.
    case beginLink(ManagedObjectID, key: String)
    /// Link `target` into `key` of `owner`.
    case link(owner: ManagedObjectID, key: String, target: ManagedObjectID)
    /// Unlink `target` from the to-many `key` of `owner`, or clear the to-one `key`.
    case unlink(owner: ManagedObjectID, key: String, target: ManagedObjectID?)
    /// Show the context's pending changes (inserted, updated property by property, deleted) before saving.
    case previewSave
    /// Save the context in use (after the preview was confirmed).
    case save
    /// Show the changes a discard would drop.
    case previewDiscard
    /// Drop the context's changes.
    case discard
    /// Undo the context's last user action.
    case undo
    /// Redo the last undone action.
    case redo
    /// Switch to the context of that name.
    case switchContext(String)
    /// Open a new scratch context of a kind (child, sibling or own coordinator) and switch to it.
    case newContext(ContextInfo.Kind)
    /// Set the merge policy where the context's saves meet the store (`error`, `objecttrump`, `storetrump`, `overwrite`, `rollback`).
    case mergePolicy(String)
    /// Resolve a conflict: refresh the objects from the store, keeping or dropping the context's changes.
    case refreshObjects([ManagedObjectID], keepChanges: Bool)
    /// Say what a reset would lose (objects, unsaved scratch contexts) before asking.
    case previewReset
    /// Reset the store and start every pane again on new contexts.
    case reset
    /// Damage the demo store's header on disk and restart its manager on it (demo store only).
    case corrupt
    /// Fill the demo store with the demo library again.
    case reseed
    /// Show the store's persistent history (the last transactions, newest last).
    case history
    /// Show the model view of the model the store was opened with.
    case showModel
    /// Show a column's figures (`ColumnStatistics`) over the table's objects and filter.
    case stats(entity: String, property: String, filter: String?)
}
