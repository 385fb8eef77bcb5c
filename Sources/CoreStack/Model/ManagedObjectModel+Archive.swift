import Foundation

extension ManagedObjectModel {
    /// Decodes the model a Core Data store keeps in `Z_METADATA`'s companion table
    /// `Z_MODELCACHE.Z_CONTENT`: raw DEFLATE data of an `NSKeyedArchiver` archive of the
    /// `NSManagedObjectModel` the store was last saved with (framework 637 and later, about 2011).
    ///
    /// The model's ``origin`` is ``ModelOrigin/storeModelCache``. To read it straight from a
    /// store file use ``SQLiteStore/storedModel(at:)``.
    ///
    /// ```swift
    /// let model = try ManagedObjectModel(archivedModelCache: blob)
    /// model.entities.map(\.name)  // ["Color", "Post"]
    /// ```
    /// - Throws: ``ModelArchiveError`` naming what is wrong and where (the deflate stream, the
    ///   property list, or an object and key of the archive); ``CoreStackError/invalidModel(entity:property:reason:)``
    ///   when the decoded model is inconsistent.
    public convenience init(archivedModelCache data: Data, versionName: String? = nil, source: String = "Z_MODELCACHE") throws {
        let plist = try RawDeflate.inflate(data, source: source)
        try self.init(keyedArchive: plist, versionName: versionName, source: source, origin: .storeModelCache)
    }

    /// Decodes a compiled model: the contents of a `.mom` file (an uncompressed `NSKeyedArchiver`
    /// archive of an `NSManagedObjectModel`, the same encoding as a store's model cache).
    ///
    /// ```swift
    /// let data = try Data(contentsOf: URL(fileURLWithPath: "App.momd/App 2.mom"))
    /// let model = try ManagedObjectModel(archivedModel: data, versionName: "App 2")
    /// model.origin  // .compiledModel
    /// ```
    /// - Throws: ``ModelArchiveError``, ``CoreStackError/invalidModel(entity:property:reason:)``.
    public convenience init(archivedModel data: Data, versionName: String? = nil, source: String = "archived model") throws {
        try self.init(keyedArchive: data, versionName: versionName, source: source, origin: .compiledModel)
    }

    /// The model as a compiled `.mom` file holds it: an `NSKeyedArchiver` archive (binary property
    /// list) with the classes and keys Core Data writes, read back by
    /// ``init(archivedModel:versionName:source:)`` and by Apple's tools.
    ///
    /// ```swift
    /// try model.archivedModel().write(to: URL(fileURLWithPath: "Library.mom"))
    /// ```
    public func archivedModel() -> Data {
        ModelArchiveEncoder(model: self).encode()
    }

    /// The model as a store keeps it in `Z_MODELCACHE.Z_CONTENT`: ``archivedModel()`` compressed to
    /// raw DEFLATE. Stores CoreStack creates carry it, so they open with no model file.
    ///
    /// ```swift
    /// let blob = try model.archivedModelCache()
    /// let back = try ManagedObjectModel(archivedModelCache: blob)
    /// ```
    public func archivedModelCache() throws -> Data {
        try RawDeflate.deflate(archivedModel())
    }

    private convenience init(keyedArchive data: Data, versionName: String?, source: String, origin: ModelOrigin) throws {
        let archive = try KeyedArchive(plist: data, source: source)
        let decoded = try ModelArchiveDecoder(archive: archive).decode()
        try self.init(
            entities: decoded.entities, versionName: versionName, versionIdentifiers: decoded.versionIdentifiers,
            configurations: decoded.configurations, origin: origin)
    }
}
