import CoreStack
import Foundation

extension ValueCommand {
    /// How many bytes `--raw` and `--as hex` read at a time.
    static let chunkSize = 1 << 20

    /// Prints one value as `mode` asks (or its stored bytes with `raw`) through `write`, reading
    /// it a range at a time from the store's file (SQLite's blob I/O) or its external data file:
    /// `--raw` and `--as hex` stream a 100 MB value in 1 MiB chunks, `--as tree` and `--as json`
    /// decode at most `ValueInspector/defaultDecodedSize` bytes of it. A value kept in an
    /// external data file ends the tree with its path.
    ///
    /// ```swift
    /// try ValueCommand.write(storePath: "Photos.sqlite", modelPath: nil, entity: "Photo", id: "3",
    ///                        attribute: "image", mode: .hex, raw: false) { FileHandle.standardOutput.write($0) }
    /// ```
    /// - Throws: what ``bytes(session:entity:id:attribute:)`` throws; `--attribute` naming a
    ///   missing external data file with its path.
    public static func write(
        storePath: String, modelPath: String?, entity: String, id: String, attribute: String, mode: ValueOutputMode, raw: Bool,
        files: any StoreFileAccess = StoreFiles.standard, to write: (Data) throws -> Void
    ) throws {
        let session = try StoreSession.open(storePath: storePath, modelPath: modelPath, files: files)
        defer { session.close() }
        let (bytes, location) = try storedBytes(session: session, entity: entity, id: id, attribute: attribute)
        if raw {
            try bytes.forEachChunk(size: chunkSize, write)
            return
        }
        switch mode {
        case .hex:
            // Smaller chunks: each becomes about four times its size in text.
            var at = 0
            try bytes.forEachChunk(size: chunkSize / 16) { chunk in
                try write(Data(InspectedValueText.hexDump(chunk, base: at).map { $0 + "\n" }.joined().utf8))
                at += chunk.count
            }
        case .tree, .json, .image:  // .image: the command draws pictures itself (ValueCommand.picture); here its tree
            let inspection = bytes.count <= ValueInspector.defaultDecodedSize
                ? ValueInspector.inspect(try bytes.bytes(in: 0..<bytes.count)) : try ValueInspector.inspect(reading: bytes)
            var text = mode == .json
                ? InspectedValueText.json(inspection).rendered() + "\n"
                : InspectedValueText.tree(inspection).joined(separator: "\n") + "\n"
            if mode != .json, case let .externalFile(url)? = location { text += "stored in \(url.path)\n" }
            try write(Data(text.utf8))
        case .text:
            guard bytes.count <= ValueInspector.defaultDecodedSize else {
                throw StackScopeError.invalidOption(
                    name: "--as text", reason: "the value is \(bytes.count) bytes, more than the \(ValueInspector.defaultDecodedSize) shown as text; use --raw")
            }
            try write(Data(try render(try bytes.bytes(in: 0..<bytes.count), as: .text).utf8))
        }
    }

    /// The value's bytes to read a range at a time, and where they are: the saved value through
    /// the store's ``SQLiteStore/storedValue(of:attribute:)``, or the value read whole for a store
    /// that is not an SQLite file.
    static func storedBytes(
        session: StoreSession, entity entityName: String, id: String, attribute: String
    ) throws -> (any ValueBytes, SQLiteStoredValue.Location?) {
        let (entity, objectID) = try target(session: session, entity: entityName, id: id, attribute: attribute)
        guard let store = session.coordinator.persistentStore as? SQLiteStore else {
            return (try bytes(session: session, entity: entityName, id: id, attribute: attribute), nil)
        }
        let value: SQLiteStoredValue?
        do {
            value = try store.storedValue(of: objectID, attribute: attribute)
        } catch CoreStackError.objectNotFound {
            throw StackScopeError.invalidOption(name: "--id", reason: "no \(entity.name) \(id) in the store")
        } catch let error as ValueReadError {
            throw StackScopeError.invalidOption(name: "--attribute", reason: error.description)
        }
        guard let value else {
            throw StackScopeError.invalidOption(name: "--attribute", reason: "\(entity.name).\(attribute) of \(id) is nil")
        }
        return (value.bytes, value.location)
    }
}
