import Foundation

/// How Core Data stores the value of a Binary Data attribute with *Allows External Storage*
/// (``AttributeDescription/allowsExternalBinaryDataStorage``), and how CoreStack reads and writes it.
///
/// The column of such an attribute starts with a marker byte (as Core Data's
/// `_PFExternalReferenceData` writes and reads it):
/// - `0x01` followed by the bytes themselves (a value kept inline);
/// - `0x02` followed by the UUID (text, NUL-terminated) of a file in
///   `.<StoreName>_SUPPORT/_EXTERNAL_DATA/` beside the store, which holds the bytes (Core Data moves
///   large values there).
///
/// Reading turns both back into the bytes. The external file is read when the row is fetched, not
/// later: a snapshot is plain values shared by the row cache and every context, and a lazy value
/// would need a new kind of value on the read and save paths; only rows of entities with such
/// attributes pay for it. A reference whose file is missing (a store copied without its support
/// folder) is kept as it is, the `0x02` + UUID bytes: ``missingReference(_:)`` recognises it, the
/// browser and `dump` show "missing external data", and saving the object writes it back unchanged.
/// Bytes with neither marker (written by CoreStack before it knew the format) are read as they are.
///
/// Saving writes every value inline, `0x01` + bytes, which Core Data reads back (CoreStack writes
/// no external files, so it never has one to delete or leave behind). So do a lightweight
/// migration's default for a new attribute and its copy of an attribute that gains the flag
/// (`SQLiteMigration`); a persistent-history tombstone copies the column as it was and is decoded
/// as the column is when the history is read (`HistoryReader`).
///
/// ```swift
/// let photo = AttributeDescription("image", .binaryData, allowsExternalBinaryDataStorage: true)
/// // ZIMAGE = X'02' || '6B1C…' || X'00' → the bytes of .Photos_SUPPORT/_EXTERNAL_DATA/6B1C…
/// ```
public enum SQLiteExternalBinaryData {
    /// The marker of a value stored in a file of the support folder.
    static let externalMarker: UInt8 = 0x02
    /// The marker of a value stored in the column.
    static let inlineMarker: UInt8 = 0x01

    /// The folder of a store's external values: `.<StoreName>_SUPPORT/_EXTERNAL_DATA` beside it
    /// (`Photos.sqlite` → `.Photos_SUPPORT/_EXTERNAL_DATA`).
    ///
    /// ```swift
    /// SQLiteExternalBinaryData.folder(forStoreAt: URL(fileURLWithPath: "/data/Photos.sqlite"))
    /// // /data/.Photos_SUPPORT/_EXTERNAL_DATA
    /// ```
    public static func folder(forStoreAt url: URL) -> URL {
        supportFolder(forStoreAt: url).appendingPathComponent("_EXTERNAL_DATA", isDirectory: true)
    }

    /// A store's support folder, `.<StoreName>_SUPPORT` beside it (`Photos.sqlite` →
    /// `.Photos_SUPPORT`), which holds `_EXTERNAL_DATA` and goes with the store when it is
    /// destroyed or moved aside (``StoreLocation/destroyStore(at:)``, ``StoreLocation/quarantineStore(at:date:)``).
    ///
    /// ```swift
    /// SQLiteExternalBinaryData.supportFolder(forStoreAt: URL(fileURLWithPath: "/data/Photos.sqlite"))
    /// // /data/.Photos_SUPPORT
    /// ```
    static func supportFolder(forStoreAt url: URL) -> URL {
        let name = url.deletingPathExtension().lastPathComponent
        return url.deletingLastPathComponent().appendingPathComponent(".\(name)_SUPPORT", isDirectory: true)
    }

    /// The UUID of an external value whose file was not found when the row was read (the column's
    /// `0x02` + UUID (+ NUL) bytes, kept as the attribute's value), or nil for any other value.
    ///
    /// ```swift
    /// if case let .data(d) = value, let uuid = SQLiteExternalBinaryData.missingReference(d) {
    ///     print("missing external data \(uuid)")
    /// }
    /// ```
    public static func missingReference(_ data: Data) -> String? {
        guard data.first == externalMarker else { return nil }
        let text = String(decoding: data.dropFirst(), as: UTF8.self).trimmingCharacters(in: CharacterSet(charactersIn: "\0"))
        guard UUID(uuidString: text) != nil else { return nil }
        return text
    }

    /// The value of a column of an attribute with the flag, read back: the bytes inline or in the
    /// support folder `folder`; a missing file keeps the reference (see ``missingReference(_:)``).
    static func decode(_ value: AttributeValue, folder: URL?) -> AttributeValue {
        guard case let .data(d) = value, let marker = d.first else { return value }
        switch marker {
        case inlineMarker:
            return .data(Data(d.dropFirst()))
        case externalMarker:
            guard let uuid = missingReference(d), let folder else { return value }
            // The UUID is checked above: it cannot name a path outside the folder.
            guard let bytes = try? Data(contentsOf: folder.appendingPathComponent(uuid), options: .mappedIfSafe) else {
                return value
            }
            return .data(bytes)
        default:
            return value
        }
    }

    /// The value to store for an attribute with the flag: `0x01` + bytes, or a missing reference
    /// as it was read.
    static func encode(_ value: AttributeValue) -> AttributeValue {
        guard case let .data(d) = value else { return value }
        if missingReference(d) != nil { return value }
        var out = Data(capacity: d.count + 1)
        out.append(inlineMarker)
        out.append(d)
        return .data(out)
    }

    /// Decodes the flagged slots of one row's values (the slots of
    /// `EntityDescription.externalBinarySlots`; called only for entities that have some).
    static func decode(_ values: inout [AttributeValue], slots: [Int], folder: URL?) {
        for slot in slots where slot < values.count {
            values[slot] = decode(values[slot], folder: folder)
        }
    }
}

extension SQLiteStore {
    /// The folder of this store's external binary data: beside the file the store opened, its
    /// symbolic links resolved (as its -wal and -shm are, and as ``StoreLocation/destroyStore(at:)``
    /// and ``StoreLocation/quarantineStore(at:date:)`` find it); nil for a store without a file.
    var externalDataFolder: URL? {
        url.map { _ in SQLiteExternalBinaryData.folder(forStoreAt: URL(fileURLWithPath: path)) }
    }
}
