// TEMPORARY: stands in for the framework APIs of branch undo-merge until it is merged. Delete on merge.
import CoreStack
import Foundation

public final class ContextUndoManager: @unchecked Sendable {
    public init() {}
    public var canUndo: Bool { false }
    public var canRedo: Bool { false }
    public var undoActionName: String { "" }
    public var redoActionName: String { "" }
    public func beginUndoGrouping() {}
    public func endUndoGrouping() {}
    public func setActionName(_ name: String) {}
    public func removeAllActions() {}
    @discardableResult public func undo() -> Bool { false }
    @discardableResult public func redo() -> Bool { false }
}

extension ManagedObjectContext {
    public var undoManager: ContextUndoManager? { get { nil } set {} }
    public var lastSaveMergeResolutions: [MergeResolution] { [] }
}

public struct MergeResolution: Sendable {
    public var conflict: ConflictShim
    public var policy: MergePolicy
    public var winners: [String: AttributeValue]
}
public struct ConflictShim: Sendable {
    public var sourceObjectID: ManagedObjectID
    public var cachedSnapshot: [String: AttributeValue]
    public var persistedSnapshot: [String: AttributeValue]?
    public var objectSnapshot: [String: AttributeValue]
}

extension MergePolicy {
    public var name: String {
        switch self {
        case .error: "error"
        case .mergeByPropertyObjectTrump: "objectTrump"
        case .mergeByPropertyStoreTrump: "storeTrump"
        case .overwrite: "overwrite"
        case .rollback: "rollback"
        }
    }
    public init?(name: String) {
        switch name.lowercased() {
        case "error": self = .error
        case "objecttrump": self = .mergeByPropertyObjectTrump
        case "storetrump": self = .mergeByPropertyStoreTrump
        case "overwrite": self = .overwrite
        case "rollback": self = .rollback
        default: return nil
        }
    }
}
