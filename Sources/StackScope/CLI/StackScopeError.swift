import CoreStack
import Foundation

/// The errors stackscope's commands report, each with a one-line message a person can act on.
/// Framework errors (`CoreStackError`) pass through as they are.
public enum StackScopeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No file at the path.
    case storeNotFound(path: String)
    /// The path names a directory, not a store file.
    case notAFile(path: String)
    /// The store was not written with the demo model and no `--model` was given.
    case modelRequired(path: String)
    /// Neither the model the store carries nor one inferred from its tables can read it: each
    /// reason (the model element rejected, the columns inference could not place).
    case noReadableModel(path: String, reasons: [String])
    /// The `--model` path is not a `.xcdatamodeld`, `.xcdatamodel`, `.momd` or `.mom`.
    case unsupportedModelPath(path: String)
    /// The file to create already exists (and is not a demo store that may be replaced).
    case fileExists(path: String)
    /// `demo create` onto a path that exists, without `--force`.
    case alreadyExists(path: String)
    /// The entity named on the command line is not in the model.
    case unknownEntity(name: String, available: [String])
    /// The `--sort` key is not an attribute of the entity.
    case unknownSortKey(key: String, entity: String, available: [String])
    /// A `--sort` key path (`author.name`) that does not reach a stored attribute through to-one
    /// relationships; `reason` names the step that is wrong.
    case invalidSortKeyPath(key: String, reason: String)
    /// A predicate compares a UUID or Date attribute with a string that spells one: it could never
    /// match (the format has no UUID or date literal); `cast` is what to write instead.
    case predicateNeedsCast(key: String, type: String, value: String, cast: String)
    /// A numeric option out of range (`--limit`, `--size`).
    case invalidOption(name: String, reason: String)
    /// `migrate` (not a dry run) on a store whose file or folder cannot be written: a migration
    /// writes the new store beside the old one, then replaces it. `path` is what cannot be written.
    case cannotMigrateReadOnly(store: String, path: String)
    /// `migrate --model` names a model with no version matching the store and no entity in common
    /// with the model the store carries: migrating to it would drop every entity the store holds.
    case unrelatedModel(model: String, storeEntities: [String], modelEntities: [String])
    /// An output file (`model -o PATH`) that cannot be written; `reason` is the system's.
    case cannotWrite(path: String, reason: String)
    /// `find` on a path that does not exist (or is neither a folder nor a file).
    case notAFolder(path: String)
    /// `stackscope DIR`: no Core Data store under the folder.
    case noStoreInFolder(path: String)
    /// `stackscope DIR` without a terminal to ask on which store to open.
    case folderNeedsChoice(path: String)

    /// A one-line message saying what went wrong and, where it helps, what to do.
    public var description: String {
        switch self {
        case let .storeNotFound(path):
            return "no store at \(path): the file does not exist"
        case let .notAFile(path):
            return "\(path) is a directory, not a store file"
        case let .modelRequired(path):
            return "\(path) carries no model of its own and was not written with the demo model; pass --model PATH (a .xcdatamodeld, .xcdatamodel, .momd or .mom)"
        case let .noReadableModel(path, reasons):
            return "\(path) cannot be read without a model file: \(reasons.joined(separator: "; ")); pass --model PATH (a .xcdatamodeld, .xcdatamodel, .momd or .mom)"
        case let .unsupportedModelPath(path):
            return "\(path) is not a model: expected a .xcdatamodeld, .xcdatamodel, .momd or .mom path"
        case let .fileExists(path):
            return "\(path) already exists and is not a demo store; choose another path or remove it first"
        case let .alreadyExists(path):
            return "\(path) already exists; choose another path, or pass --force to replace it"
        case let .unknownEntity(name, available):
            return "the model has no entity named \"\(name)\" (entities: \(available.joined(separator: ", ")))"
        case let .unknownSortKey(key, entity, available):
            return "\(entity) has no attribute named \"\(key)\" to sort by (attributes: \(available.joined(separator: ", ")))"
        case let .invalidSortKeyPath(key, reason):
            return "invalid --sort key \"\(key)\": \(reason)"
        case let .predicateNeedsCast(key, type, value, cast):
            return "invalid predicate: \(key) is a \(type); write \(cast), not the string \"\(value)\" (a string never equals a \(type))"
        case let .invalidOption(name, reason):
            return "invalid \(name): \(reason)"
        case let .cannotMigrateReadOnly(store, path):
            return "cannot migrate \(store): \(path) cannot be written (read-only file, folder or file system), "
                + "and a migration writes the new store beside the old one and then replaces it. Copy the store "
                + "(with its -wal file, if any) to a writable folder and migrate the copy; --dry-run shows the plan here"
        case let .unrelatedModel(model, storeEntities, modelEntities):
            return "\(model) is not a version of the store's model: no entity in common (store: "
                + "\(storeEntities.joined(separator: ", ")); \(model): \(modelEntities.joined(separator: ", "))); "
                + "migrating to it would remove every entity of the store. Nothing was changed; check the --model path"
        case let .cannotWrite(path, reason):
            return "cannot write \(path): \(reason)"
        case let .notAFolder(path):
            return "no folder or file at \(path) to search"
        case let .noStoreInFolder(path):
            return "no Core Data store under \(path) (stackscope find \(path) lists what it looked at)"
        case let .folderNeedsChoice(path):
            return "\(path) is a folder: name one of the stores above (stackscope STORE), or run this in a terminal to pick one"
        }
    }
}

extension StackScopeError: LocalizedError {
    /// The same text as `description`.
    public var errorDescription: String? { description }
}

/// The one line stackscope prints for an error (without the `stackscope: error: ` prefix).
///
/// ```swift
/// StackScopeErrorMessage.line(for: StackScopeError.storeNotFound(path: "/tmp/x")) // "no store at /tmp/x: …"
/// ```
public enum StackScopeErrorMessage {
    /// The message for `error` on one line: newlines become spaces, and a model mismatch lists at most three differences.
    public static func line(for error: any Error) -> String {
        let text: String
        switch error {
        case let e as StackScopeError: text = e.description
        case let CoreStackError.modelMismatch(path, differences) where differences.count > 3:
            let shown = Array(differences.prefix(3)) + ["and \(differences.count - 3) more differences"]
            text = CoreStackError.modelMismatch(path: path, differences: shown).description
        case let e as CoreStackError: text = e.description
        case let e as CocoaError:
            text = e.localizedDescription
        default:
            text = String(describing: error)
        }
        // One line, whatever the underlying message holds.
        return text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
