import Foundation
import GRDB

extension SQLiteStore {
    /// The saved value of a Binary, Transformable or String attribute of an object, to read a
    /// range at a time (nil when it is nil): the column through SQLite's incremental blob I/O,
    /// or the file in the store's `_EXTERNAL_DATA` folder of an *Allows External Storage* value
    /// kept there (its `0x01` marker skipped when it is kept inline). Nothing is loaded whole,
    /// so a 100 MB value costs what is read of it. What the file holds: unsaved changes of a
    /// context are not seen.
    ///
    /// ```swift
    /// let value = try store.storedValue(of: photoID, attribute: "image")
    /// value?.location     // .externalFile(…/.Photos_SUPPORT/_EXTERNAL_DATA/6B1C…)
    /// try value?.bytes.forEachChunk { FileHandle.standardOutput.write($0) }
    /// ```
    /// - Throws: ``CoreStackError/unknownKey(entity:key:)`` for an attribute the entity does not
    ///   store, ``CoreStackError/objectNotFound(_:)`` for a row not in the file (or a temporary
    ///   ID), ``ValueReadError`` for an external file that is missing or cannot be read, or a
    ///   value that is neither text nor bytes.
    public func storedValue(of objectID: ManagedObjectID, attribute key: String) throws -> SQLiteStoredValue? {
        let entity = objectID.entity
        let mapping = try schema.mapping(for: entity)
        guard let slot = entity.attributeSlots[key], slot < mapping.attributeColumns.count,
              let sqlColumn = mapping.attributeColumns[slot]
        else { throw CoreStackError.unknownKey(entity: entity.name, key: key) }
        guard let pk = objectID.primaryKey else { throw CoreStackError.objectNotFound("\(objectID): not saved yet") }
        let column = SQLiteSchema.fileColumnName(sqlColumn)
        let table = mapping.fileTable
        let found: (rowID: Int64, type: String)? = try readStatement { db in
            // typeof() reads the record header only, not the value.
            guard let row = try Row.fetchOne(
                db, sql: "SELECT rowid, typeof(\(sqlColumn)) FROM \(SQLiteSchemaInference.quoted(table)) WHERE Z_PK = ?", arguments: [pk])
            else { return nil }
            return (row[0], row[1])
        }
        guard let found else { throw CoreStackError.objectNotFound("\(entity.name) \(pk) is not in \(path)") }
        switch found.type {
        case "null": return nil
        case "blob", "text": break
        default:
            throw ValueReadError(what: "\(entity.name).\(key) of \(pk)", path: path, reason: "the column holds a \(found.type), not bytes")
        }
        let whole = try SQLiteBlob(store: self, table: table, column: column, rowID: found.rowID)
        let location = SQLiteStoredValue.Location.column(table: table, column: column, rowID: found.rowID)
        guard entity.hasExternalBinaryData, entity.externalBinarySlots.contains(slot), found.type == "blob" else {
            return SQLiteStoredValue(location: location, bytes: whole)
        }
        // Core Data's marker: 0x01 + the bytes, or 0x02 + the UUID of a file (+ NUL).
        let head = try whole.prefix(upTo: 64)
        switch head.first {
        case SQLiteExternalBinaryData.inlineMarker:
            return SQLiteStoredValue(
                location: location, bytes: try SQLiteBlob(store: self, table: table, column: column, rowID: found.rowID, skip: 1))
        case SQLiteExternalBinaryData.externalMarker:
            guard let uuid = SQLiteExternalBinaryData.missingReference(head), let folder = externalDataFolder else { break }
            // The UUID is checked: it cannot name a path outside the folder.
            let url = folder.appendingPathComponent(uuid)
            do {
                return SQLiteStoredValue(location: .externalFile(url), bytes: try ValueFile(url: url))
            } catch var error as ValueReadError {
                error.what = "external data of \(entity.name).\(key) of \(pk)"
                throw error
            }
        default: break
        }
        return SQLiteStoredValue(location: location, bytes: whole)
    }
}
