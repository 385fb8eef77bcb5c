import CoreStack
import Foundation

extension BrowserData {
    /// The stored bytes of a Binary or Transformable attribute of an object, in the context in
    /// use, for the value inspector.
    ///
    /// ```swift
    /// let bytes = try data.attributeBytes(for: id, key: "image")
    /// ```
    /// - Throws: ``BrowserError/nothingTo(_:)`` when the value is nil, not bytes or a missing
    ///   external file; the context's error when the object is gone.
    func attributeBytes(for id: ManagedObjectID, key: String) throws -> Data {
        let value = try context.performAndWait { try context.existingObject(with: id).attributeValue(forKey: key) }
        guard case let .data(bytes) = value, SQLiteExternalBinaryData.missingReference(bytes) == nil else {
            throw BrowserError.nothingTo("inspect: \(key) holds no bytes here")
        }
        return bytes
    }
}
