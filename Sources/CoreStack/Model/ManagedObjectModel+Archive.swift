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
        let entities = try Self.consistentEntities(decoded.entities)
        let kept = Set(entities.map(\.name))
        try self.init(
            entities: entities, versionName: versionName, versionIdentifiers: decoded.versionIdentifiers,
            fetchRequestTemplates: decoded.fetchRequestTemplates.filter { kept.contains($0.entityName) },
            configurations: decoded.configurations, origin: origin)
    }

    /// The decoded entities, with what keeps them from making a model set aside as a note of its
    /// entity (``EntityDescription/unimplementedElements``) instead of refusing the whole model: a
    /// relationship whose inverse is missing or does not point back is read without its inverse;
    /// one whose destination entity does not exist is left out; a uniqueness constraint naming an
    /// unknown property is left out; an attribute's default value of another type or regular
    /// expression that does not compile is dropped. What cannot be set aside this way (a missing
    /// parent entity, a cycle of parents, a property declared twice) still throws, naming the
    /// entity and the property.
    private static func consistentEntities(_ declared: [EntityDescription]) throws -> [EntityDescription] {
        var entities = declared
        // Each repair removes or changes one element, so the loop ends.
        let limit = 1 + entities.reduce(0) { $0 + $1.attributes.count + 2 * $1.relationships.count + $1.uniquenessConstraints.count }
        for _ in 0..<limit {
            do {
                _ = try ManagedObjectModel(entities: entities)
                return entities
            } catch let CoreStackError.invalidModel(entity, property, reason) {
                guard let property, let i = entities.firstIndex(where: { $0.name == entity }),
                    let repaired = repair(entities[i], property: property, reason: reason)
                else { throw CoreStackError.invalidModel(entity: entity, property: property, reason: reason) }
                entities[i] = repaired
            }
        }
        return entities
    }

    /// `entity` with the element `property` that the model refused (for `reason`) set aside, or nil
    /// when it cannot be.
    private static func repair(_ e: EntityDescription, property: String, reason: String) -> EntityDescription? {
        var attributes = e.attributes
        var relationships = e.relationships
        var constraints = e.uniquenessConstraints
        let note: String
        if reason.hasPrefix("a uniqueness constraint") {
            constraints = constraints.filter { !$0.contains(property) }
            note = "uniqueness constraint naming \(property): \(reason) (not checked)"
        } else if let r = relationships.firstIndex(where: { $0.name == property }) {
            if reason.contains("destination entity") {
                relationships.remove(at: r)
                note = "relationship \(property): \(reason) (left out)"
            } else if reason.contains("inverse"), relationships[r].inverseName != nil {
                relationships[r].inverseName = nil
                note = "relationship \(property): \(reason) (read without its inverse)"
            } else {
                return nil
            }
        } else if let a = attributes.firstIndex(where: { $0.name == property }) {
            if reason.contains("default value"), !attributes[a].defaultValue.isNull {
                attributes[a].defaultValue = .null
                note = "attribute \(property): \(reason) (no default)"
            } else if reason.contains("regular expression"), attributes[a].regularExpression != nil {
                attributes[a].regularExpression = nil
                note = "attribute \(property): \(reason) (not checked)"
            } else {
                return nil
            }
        } else {
            return nil
        }
        return EntityDescription(
            name: e.name, superentityName: e.superentityName, isAbstract: e.isAbstract,
            attributes: attributes, relationships: relationships, uniquenessConstraints: constraints,
            fetchIndexes: e.fetchIndexes, managedObjectClass: e.managedObjectClass,
            representedClassName: e.representedClassName, renamingIdentifier: e.renamingIdentifier,
            versionHashModifier: e.versionHashModifier, userInfo: e.userInfo, fetchedProperties: e.fetchedProperties,
            compositeAttributes: e.compositeAttributes, unimplementedElements: e.unimplementedElements + [note])
    }
}
